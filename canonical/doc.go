// Package canonical renders JSON as canonical text and computes the
// {tool,args} SHA-256 checksum that identifies a tool call.
//
// The canonical text of a document is what JavaScript's
// canonicalStringify(JSON.parse(text)) returns, canonicalStringify being
// JSON.stringify with every object's keys sorted. That is canonical JSON in
// the sense of RFC 8785's sort order (keys compared as UTF-16 code units, so
// astral characters such as 😀 sort before U+E000-U+FFFF), with JSON.parse's
// leniency and JSON.stringify's output rather than RFC 8785's strictness:
//
//   - A duplicated key keeps its last value.
//   - A lone surrogate escape (\ud800) is kept and printed as lowercase
//     \udxxx; a valid escaped pair becomes the literal character.
//   - Invalid UTF-8 becomes U+FFFD per maximal ill-formed subsequence, as a
//     WHATWG decoder (TextDecoder, Buffer#toString) reads it; a leading
//     byte-order mark is invalid JSON.
//   - Numbers are IEEE-754 doubles printed by Number.prototype.toString:
//     shortest round-trip digits, exponent form from 1e21 up and below 1e-6
//     (1e+21, 1e-7), -0 prints 0, literals that overflow print null.
//   - Strings escape only the quote, the backslash and control characters
//     (\b \t \n \f \r, the others as \u00xx); other escapes are decoded.
//   - Whitespace is dropped. Trailing text, comments, trailing commas, NaN
//     and other non-JSON input are rejected with [ErrInvalidJSON].
//
// The checksum is hex(sha256(canonical text of {"tool": tool, "args": args})):
// services written in Go and in TypeScript agree on it byte for byte.
//
// [StringifyJSON], [AppendJSON] and [WriteJSON] canonicalise raw JSON text
// in one validating pass that copies runs of already canonical input as
// they are; [Stringify] canonicalises a Go value; [Checksum] and
// [ChecksumJSON] hash a call. Scratch memory is pooled, so allocations do
// not grow with the input. All functions are safe for concurrent use.
//
// A Go value prints as the canonical text of the JSON encoding/json writes
// for it: Stringify(v) is StringifyJSON(json.Marshal(v)) for every v
// json.Marshal accepts, so struct tags, MarshalJSON and MarshalText apply
// and invalid UTF-8 in Go strings becomes one U+FFFD per byte. Beyond
// json.Marshal, a float64 or float32 that is NaN or ±Inf prints null (as
// JSON.stringify prints it) where it is held in an interface: alone, in
// []any or in map[string]any. As the args of [Checksum], []byte and
// json.RawMessage are raw JSON text.
//
// Failures are typed: [ErrInvalidJSON] for malformed text, json.Number or
// json.RawMessage; [ErrUnsupportedType] for what encoding/json cannot encode;
// [ErrCycle] for a value that contains itself; [ErrLimit] for nesting deeper
// than [MaxDepth] or over 4 GiB of text, given or canonical. No input makes
// the package panic, and no error leaves partial output behind.
package canonical
