// Package canonical renders JSON as canonical text and computes the
// {tool,args} SHA-256 checksum that identifies a tool call.
//
// The canonical text is what JavaScript's
//
//	canonicalStringify(JSON.parse(text))
//
// returns, where canonicalStringify is JSON.stringify with every object's
// keys sorted. That is canonical JSON in the sense of RFC 8785's sort order
// (keys compared as UTF-16 code units, so astral characters such as 😀 sort
// before U+E000-U+FFFF), with JSON.parse's leniency and JSON.stringify's
// numbers rather than RFC 8785's strictness:
//
//   - A duplicated key keeps its last value.
//   - A lone surrogate escape (\ud800) is kept, printed as lowercase
//     \udxxx; a valid escaped pair becomes the literal character.
//   - Invalid UTF-8 in JSON text becomes U+FFFD per maximal ill-formed
//     subsequence, as the WHATWG decoder (TextDecoder, Buffer#toString)
//     reads it; a leading byte-order mark is invalid JSON.
//   - Numbers are IEEE-754 doubles printed by Number.prototype.toString:
//     shortest round-trip digits, exponent form from 1e21 up and below
//     1e-6 (1e+21, 1e-7), -0 prints 0, integers beyond 2^53 round to the
//     nearest double, literals that overflow print null.
//   - Strings escape only the quote, the backslash and control characters
//     (\b \t \n \f \r, the others as \u00xx); other escapes are decoded.
//   - Whitespace is dropped. Anything after the document, comments, trailing
//     commas, NaN and other non-JSON input is rejected with [ErrInvalidJSON].
//
// The checksum is hex(sha256(canonical text of {"tool": tool, "args": args})).
// Loop detection, event correlation and trust envelopes compare it, and
// services written in Go and in TypeScript agree on it byte for byte.
//
// # Entry points
//
// [StringifyJSON], [AppendJSON] and [WriteJSON] canonicalise raw JSON text;
// [Stringify] canonicalises a Go value; [Checksum] and [ChecksumJSON] hash a
// call. Raw text is validated and canonicalised in one pass that copies runs
// of already canonical input as they are; [ChecksumJSON] streams the text
// into the hash wherever no open object can still reorder it. Scratch memory
// is pooled, so allocations do not grow with the size of the input. All
// functions are safe for concurrent use.
//
// # Go values
//
// A Go value prints as the canonical text of the JSON encoding/json writes
// for it: Stringify(v) is StringifyJSON(json.Marshal(v)) for every v
// json.Marshal accepts. Structs and types with MarshalJSON or MarshalText
// go through encoding/json (tags apply); map keys are named as
// encoding/json names them; []byte is a base64 string, except as the args
// of [Checksum], where []byte and json.RawMessage are raw JSON text. Invalid
// UTF-8 in Go strings becomes one U+FFFD per byte, as encoding/json writes
// it. Beyond json.Marshal, NaN and ±Inf print null (as JSON.stringify
// prints them) and a float32 is the double its JSON text denotes.
//
// # Errors and limits
//
// Failures are typed: [ErrInvalidJSON] for malformed text, json.Number or
// json.RawMessage; [ErrUnsupportedType] for channels, functions, complex
// numbers, unsupported map keys and failing marshalers; [ErrCycle] for a
// value that contains itself; [ErrLimit] for nesting deeper than [MaxDepth]
// or documents over 4 GiB. No input makes the package panic, and no error
// leaves partial output behind.
package canonical
