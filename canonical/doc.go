// Package canonical renders JSON values as canonical text and computes the
// {tool,args} SHA-256 checksum, byte-identical to the TypeScript reference.
//
// The checksum of a tool call is the join key of the kit: loop detection
// (identical calls collide on purpose), event correlation, trust envelopes
// and tamper evidence all compare it, and Go services must agree with
// TypeScript ones on it. The reference is
//
//	canonicalStringify(v) = JSON.stringify(v)               for primitives
//	                        "[" + elements joined by "," + "]"   for arrays
//	                        "{" + "key":value, keys in Array.prototype.sort order + "}"
//	checksum = hex(sha256(utf8(canonicalStringify({tool, args}))))
//
// # Entry points
//
//   - [StringifyJSON], [AppendJSON] and [WriteJSON] canonicalise raw JSON text,
//     exactly as canonicalStringify(JSON.parse(text)) does.
//   - [Stringify] canonicalises a Go value.
//   - [Checksum] hashes {"tool": tool, "args": args}; [ChecksumJSON] does the
//     same for raw argument text and never builds the canonical text in
//     memory: it is streamed into the hash.
//
// All functions are safe for concurrent use.
//
// # What JavaScript does, and so what this package does
//
//   - Numbers are IEEE-754 doubles printed by Number.prototype.toString:
//     shortest round-trip digits; exponent form from 1e21 up and below 1e-6
//     (1e+21, 1e-7); integral values without ".0"; -0 prints 0; integer
//     literals beyond 2^53 round to the nearest double
//     (9007199254740993 prints 9007199254740992); literals that overflow a
//     double (1e400) print null, literals that underflow print 0.
//   - Strings escape only the quote, the backslash and control characters:
//     \b \t \n \f \r in short form, the others as lowercase \u00xx. <, >, &, DEL, U+2028 and
//     U+2029 stay literal; escapes such as \/ and \u0041 are decoded. A lone
//     surrogate escape (\ud800, \uDFFF) is kept, printed as lowercase \udxxx;
//     a valid escaped pair becomes the literal character.
//   - Object keys sort by UTF-16 code units, not bytes or code points: astral
//     characters (😀) sort before U+E000-U+FFFF.
//   - A duplicated key keeps its last value.
//   - Whitespace around and inside the document is dropped; anything after
//     the document, a byte-order mark, comments, trailing commas, NaN and
//     other non-JSON input is rejected with [ErrInvalidJSON].
//
// # Bytes that are not UTF-8
//
// Invalid UTF-8 becomes U+FFFD by one of two rules, depending on whether it
// arrives as JSON text or in a Go string.
//
// JSON text (the input of [StringifyJSON], [AppendJSON], [WriteJSON] and
// [ChecksumJSON], the []byte or json.RawMessage args of [Checksum], an
// embedded json.RawMessage, what a MarshalJSON method returns) is read as
// JavaScript reads bytes: JSON.parse sees a JavaScript string, and the
// WHATWG UTF-8 decoder (TextDecoder, Buffer#toString) turns each maximal
// ill-formed subsequence into one U+FFFD, so "\xe2\x82" inside a JSON
// string is one U+FFFD. A leading byte-order mark is not stripped (it is
// then invalid JSON, as JSON.parse rejects U+FEFF; this is TextDecoder with
// ignoreBOM).
//
// Go strings (string values and map keys given to [Stringify] and
// [Checksum], MarshalText's text, and the tool name of [Checksum] and
// [ChecksumJSON]) are read as encoding/json writes them: each byte of an
// invalid sequence becomes one U+FFFD, so "\xe2\x82" is two. Stringify(v)
// is therefore StringifyJSON of json.Marshal(v) for every v json.Marshal
// accepts, and a string prints the same in a map and in a struct field. A
// JavaScript peer that decodes the same bytes itself sees the first rule's
// text: pass such bytes as JSON text to hash them as it does.
//
// # Go values
//
// [Stringify] and [Checksum] accept nil, bool, every integer and float kind,
// [encoding/json.Number] (validated as a JSON number literal), string, slices
// and arrays, maps, pointers and interfaces (followed), and
// [encoding/json.RawMessage] (embedded raw JSON). []byte is a base64 string,
// as encoding/json encodes it, except as the args of [Checksum], where
// []byte and json.RawMessage are raw JSON text. Map keys are named as
// encoding/json names them: a key of string kind is its text, else
// MarshalText's text, else an integer's digits; other key types are
// unsupported. Structs and types implementing [encoding/json.Marshaler] or
// [encoding.TextMarshaler] go through their encoding/json encoding (so
// struct tags apply, and a NaN field is an error there); as in
// encoding/json, a method on the pointer is used where the value is
// addressable (a slice element, what a pointer points to, and fields and
// array elements within those) and not elsewhere (map values, interface
// contents, a value passed by value).
//
// Integers beyond 2^53 round to the nearest double, as they would once in
// JavaScript; a float32 is taken as the double its JSON text denotes
// (float32(0.1) prints 0.1). When distinct Go map keys print the same
// (names that differ only in invalid UTF-8) the greatest name wins: its
// member is the one encoding/json writes last. Which of several keys whose
// MarshalText gives the same text wins is unspecified, as their order is
// in encoding/json.
//
// NaN and ±Inf print null, as JSON.stringify prints them, so two different
// Go values (NaN and nil, or a map holding either) can share a checksum.
// JavaScript's undefined has no Go counterpart; nil is null.
//
// # Errors and limits
//
// Failures are typed: [ErrInvalidJSON] for malformed text, json.Number or
// json.RawMessage, [ErrUnsupportedType] for channels, functions, complex
// numbers, maps with other keys and failing marshalers, [ErrCycle] for a
// value that contains itself (through maps, slices or pointers), and
// [ErrLimit] for nesting deeper than [MaxDepth] (the JavaScript reference
// itself overflows its stack a few thousand levels down) or documents over
// 4 GiB. A Go value's error has the same type whether the value sits at the
// top, in a map, slice or pointer, or in a struct field (which
// encoding/json encodes). No input makes the package panic, and no error
// leaves partial output behind: [WriteJSON] validates the whole document
// before writing.
//
// # Performance
//
// Raw JSON is validated and canonicalised in one pass. Input that is already
// canonical is not copied token by token: runs of it (whole sorted
// containers, most strings and numbers, including long decimals proved to
// be JavaScript's shortest form) are copied in one go, and only what
// differs is rewritten. An object whose keys arrive out of order is put in
// order when it closes by moving its members' output spans; the order is
// remembered per depth, so arrays of like records are not sorted again, and
// so are the keys themselves: the next object's keys are first compared
// whole against the remembered ones, a guess taken only when the bytes
// match, so records with the same keys skip most of the key scanning and,
// when all their keys matched, the sorting.
// [ChecksumJSON] streams the canonical text into SHA-256 wherever no open
// object can still reorder it (the members of an unsorted object wait in a
// pooled buffer until it closes). Scratch memory is pooled, so allocations
// do not grow with the number of tokens.
//
// Documents of 1 MiB and more are split between two goroutines when
// GOMAXPROCS allows: a worker canonicalises the elements of an array from a
// guessed element start onwards while the calling goroutine reads up to
// there, checks the guess and takes up the worker's output (a wrong guess
// only costs the worker's time; the result, errors included, is the serial
// one); when the worker falls behind, the calling goroutine takes chunks of
// its stretch over from the end. [ChecksumJSON] also hashes the worker's
// output while it is being produced, guessing the order of the root
// object's members from a probe of the document's end and checking the
// guess when the root object closes. Both goroutines have ended when the
// call returns. The split holds the worker's share of the canonical text
// (up to about two thirds of the document) in memory until the call ends,
// and an invalid document is only reported once the worker has stopped,
// which it checks for between array elements.
package canonical
