// Package sse reads Server-Sent Events from a response body, as model
// providers stream them.
//
// It accepts the three line terminators of the format (LF, CRLF and a lone
// CR), skips comment lines, joins multi-line data with LF, and takes lines of
// any length up to a bound (a base64 signature or a data URL easily exceeds
// the 64 KiB that bufio.Scanner allows by default). A final event that the
// body does not close with a blank line is still returned, because real
// streams end that way.
package sse
