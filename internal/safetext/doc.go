// Package safetext makes text safe to hand to a model or to show in a UI or
// a terminal: valid UTF-8 with every control character neutralised.
//
// Tool outputs, artifact bytes, tool names and ids come from models,
// programs and the network. Stored, they stay byte-exact; shown, they must
// not break a JSON or protobuf encoder (invalid UTF-8) nor drive a terminal
// (ESC sequences, a lone carriage return overwriting a line, NUL). Every
// package that turns such bytes into text for a model or a UI passes them
// through [String] (or [Bytes]), and quotes untrusted values in error text
// with [Prefix].
//
// # The rules
//
// Valid text is returned unchanged (and without allocating). Otherwise:
//
//   - each byte that is not part of a valid UTF-8 sequence becomes U+FFFD
//     (as ranging over a Go string decodes it);
//   - a C0 control character (U+0000–U+001F) other than tab and line feed,
//     and DEL (U+007F), becomes its Control Pictures symbol U+2400+c
//     (NUL is "␀", ESC is "␛", DEL is "␡"), so it stays visible and
//     countable without acting;
//   - a carriage return directly before a line feed is kept (CRLF line
//     ends are harmless); any other carriage return becomes "␍";
//   - a C1 control character (U+0080–U+009F, which some terminals treat as
//     ESC sequences) becomes U+FFFD.
//
// The mapping is fixed: callers may document it as theirs. It is not
// reversible (a literal "␛" in the input looks the same as a neutralised
// ESC), which is why the original bytes stay where they are stored and
// remain queryable.
package safetext
