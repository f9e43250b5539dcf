package canonical

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// Scalar flags.
const (
	flagCopy    uint8 = 1 << iota // the raw text is already canonical
	flagEscaped                   // string contains a backslash
	flagASCII                     // string body is pure ASCII
	flagInvalid                   // string contains invalid UTF-8
)

func syntaxError(data []byte, i int, what string) error {
	if i >= len(data) {
		return fmt.Errorf("%w: unexpected end of input (%s)", ErrInvalidJSON, what)
	}
	return fmt.Errorf("%w: unexpected %q at offset %d (%s)", ErrInvalidJSON, data[i], i, what)
}

func skipSpace(data []byte, i int) int {
	if i < len(data) && data[i] > ' ' {
		return i // the common case, inlined
	}
	return skipSpaceSlow(data, i)
}

func skipSpaceSlow(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scanString validates the string literal starting at data[i] == '"' and
// returns the index just past its closing quote and its flags.
func scanString(data []byte, i int) (int, uint8, error) {
	return scanStringFrom(data, i, i+1)
}

// scanStringFrom is scanString for a string starting at data[start] whose
// bytes before data[i] are known to be plain ASCII (no quote, backslash or
// control character).
func scanStringFrom(data []byte, start, i int) (int, uint8, error) {
	flags := flagCopy | flagASCII
	n := len(data)
	for {
		for i+8 <= n {
			m := specialMask(binary.LittleEndian.Uint64(data[i : i+8]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= n {
			return i, 0, fmt.Errorf("%w: unterminated string starting at offset %d", ErrInvalidJSON, start)
		}
		c := data[i]
		switch {
		case c == '"':
			return i + 1, flags, nil
		case c == '\\':
			flags |= flagEscaped
			if i+1 >= n {
				return i, 0, syntaxError(data, i+1, "unterminated escape")
			}
			switch data[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case '/':
				flags &^= flagCopy
				i += 2
			case 'u':
				if i+6 > n {
					return i, 0, syntaxError(data, n, "short \\u escape")
				}
				canon := data[i+2] == '0' && data[i+3] == '0' && (data[i+4] == '0' || data[i+4] == '1')
				for j := i + 2; j < i+6; j++ {
					h := data[j]
					switch {
					case h >= '0' && h <= '9', h >= 'a' && h <= 'f':
					case h >= 'A' && h <= 'F':
						canon = false
					default:
						return i, 0, syntaxError(data, j, "bad \\u escape")
					}
				}
				if canon {
					switch data[i+5] {
					case '8', '9', 'a', 'c', 'd': // \b \t \n \f \r have short forms
						canon = data[i+4] != '0'
					}
				}
				if !canon {
					flags &^= flagCopy
				}
				i += 6
			default:
				return i, 0, syntaxError(data, i+1, "bad escape")
			}
		case c < 0x20:
			return i, 0, syntaxError(data, i, "control character in string")
		case c >= utf8.RuneSelf:
			flags &^= flagASCII
			// Common well-formed two- and three-byte sequences inline.
			if c >= 0xc2 && c <= 0xdf && i+1 < n && data[i+1]&0xc0 == 0x80 {
				i += 2
				continue
			}
			if c >= 0xe1 && c <= 0xef && c != 0xed && i+2 < n && data[i+1]&0xc0 == 0x80 && data[i+2]&0xc0 == 0x80 {
				i += 3
				continue
			}
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				flags = (flags | flagInvalid) &^ flagCopy
			}
			i += size
		default:
			i++ // a false positive of the SWAR mask
		}
	}
}
