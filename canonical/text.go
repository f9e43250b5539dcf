package canonical

import (
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// Flags of a scanned string.
const (
	flagCopy    uint8 = 1 << iota // the raw text is already canonical
	flagEscaped                   // the string contains a backslash
	flagASCII                     // the string is plain ASCII
	flagInvalid                   // the string contains invalid UTF-8
)

// scanString validates the string literal starting at data[i] == '"' and
// returns the index just past its closing quote and its flags.
func scanString(data []byte, i int) (int, uint8, error) {
	start, n := i, len(data)
	flags := flagCopy | flagASCII
	for i++; ; {
		// Eight bytes at a time up to the first byte that needs a look.
		for i+8 <= n {
			if m := specialMask(loadWord(data, i)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= n {
			return 0, 0, fmt.Errorf("%w: unterminated string starting at offset %d", ErrInvalidJSON, start)
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, flags, nil
		case c == '\\':
			size, canon, err := scanEscape(data, i)
			if err != nil {
				return 0, 0, err
			}
			flags |= flagEscaped
			if !canon {
				flags &^= flagCopy
			}
			i += size
		case c < 0x20:
			return 0, 0, syntaxError(data, i, "control character in string")
		case c >= utf8.RuneSelf:
			flags &^= flagASCII
			if c >= 0xc2 && c <= 0xdf && i+1 < n && data[i+1]&0xc0 == 0x80 {
				i += 2 // a well-formed two-byte sequence, the common case
				continue
			}
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				flags = (flags | flagInvalid) &^ flagCopy
			}
			i += size
		default:
			i++ // a false positive of the mask
		}
	}
}

// scanEscape validates the escape at data[i] == '\\' and returns its
// length and whether JSON.stringify writes it that way.
func scanEscape(data []byte, i int) (size int, canon bool, err error) {
	n := len(data)
	if i+1 >= n {
		return 0, false, syntaxError(data, i+1, "unterminated escape")
	}
	switch data[i+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2, true, nil
	case '/':
		return 2, false, nil
	case 'u':
	default:
		return 0, false, syntaxError(data, i+1, "bad escape")
	}
	if i+6 > n {
		return 0, false, syntaxError(data, n, "short \\u escape")
	}
	upper := false
	for j := i + 2; j < i+6; j++ {
		switch h := data[j]; {
		case h >= '0' && h <= '9', h >= 'a' && h <= 'f':
		case h >= 'A' && h <= 'F':
			upper = true
		default:
			return 0, false, syntaxError(data, j, "bad \\u escape")
		}
	}
	// JSON.stringify writes lowercase \u00xx for the control characters
	// without a short form, and everything else literally.
	u := data[i+2 : i+6]
	control := u[0] == '0' && u[1] == '0' && (u[2] == '0' || u[2] == '1')
	short := u[2] == '0' && (u[3] == '8' || u[3] == '9' || u[3] == 'a' || u[3] == 'c' || u[3] == 'd')
	return 6, control && !short && !upper, nil
}

// invalidPrefixLen returns how many bytes at the start of b (whose first byte
// does not begin a valid UTF-8 sequence) a WHATWG UTF-8 decoder (TextDecoder,
// Buffer#toString) turns into a single U+FFFD: the maximal subpart of a
// well-formed sequence, or 1.
func invalidPrefixLen(b []byte) int {
	c := b[0]
	need, lo, hi := 0, byte(0x80), byte(0xbf)
	switch {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c == 0xe0:
		need, lo = 2, 0xa0
	case c == 0xed:
		need, hi = 2, 0x9f
	case c >= 0xe1 && c <= 0xef:
		need = 2
	case c == 0xf0:
		need, lo = 3, 0x90
	case c == 0xf4:
		need, hi = 3, 0x8f
	case c >= 0xf1 && c <= 0xf3:
		need = 3
	default:
		return 1
	}
	n := 1
	for ; need > 0; need-- {
		if n >= len(b) || b[n] < lo || b[n] > hi {
			return n
		}
		lo, hi = 0x80, 0xbf
		n++
	}
	return n
}

// appendEscapedRune appends r as JSON.stringify renders it inside a string.
// Surrogate code points (only ever lone ones here) are escaped.
func appendEscapedRune(dst []byte, r rune) []byte {
	switch {
	case r == '"':
		return append(dst, '\\', '"')
	case r == '\\':
		return append(dst, '\\', '\\')
	case r < 0x20:
		switch r {
		case '\b':
			return append(dst, '\\', 'b')
		case '\t':
			return append(dst, '\\', 't')
		case '\n':
			return append(dst, '\\', 'n')
		case '\f':
			return append(dst, '\\', 'f')
		case '\r':
			return append(dst, '\\', 'r')
		}
		return append(dst, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
	case r < utf8.RuneSelf:
		return append(dst, byte(r))
	case r >= 0xd800 && r <= 0xdfff:
		return append(dst, '\\', 'u', 'd', hexDigits[(r>>8)&0xf], hexDigits[(r>>4)&0xf], hexDigits[r&0xf])
	}
	return utf8.AppendRune(dst, r)
}

// appendQuotedText appends the Go string s as a JSON string literal the way
// JSON.stringify prints it. Each byte of invalid UTF-8 becomes U+FFFD, as
// encoding/json writes Go strings, so that a string prints the same
// whether it is walked here or marshalled by encoding/json first.
func appendQuotedText(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscapedRune(dst, rune(c))
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// hexVal decodes four hex digits (already validated by the scanner).
func hexVal(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c <= '9':
			r |= rune(c - '0')
		case c >= 'a':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// decodeEscape decodes the escape sequence at raw[i] == '\\'. It returns the
// code point (a lone surrogate stays a surrogate code point, a valid \u pair
// becomes one astral code point) and the number of bytes consumed.
func decodeEscape(raw []byte, i int) (rune, int) {
	switch raw[i+1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
	default: // '"', '\\', '/'
		return rune(raw[i+1]), 2
	}
	r := hexVal(raw[i+2:])
	if r >= 0xd800 && r <= 0xdbff && i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
		if lo := hexVal(raw[i+8:]); lo >= 0xdc00 && lo <= 0xdfff {
			return 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00), 12
		}
	}
	return r, 6
}

// appendCanonicalString appends the canonical form of a raw JSON string body
// (the bytes between the quotes, already validated) including the quotes.
func appendCanonicalString(dst, raw []byte) []byte {
	dst = append(dst, '"')
	dst = appendUnescaped(dst, raw, appendEscapedRune)
	return append(dst, '"')
}

// appendWTF8 appends r in generalized UTF-8, which (unlike utf8.AppendRune)
// keeps surrogate code points as three-byte sequences so that lone surrogates
// survive into sort keys.
func appendWTF8(dst []byte, r rune) []byte {
	if r >= 0xd800 && r <= 0xdfff {
		return append(dst, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
	}
	return utf8.AppendRune(dst, r)
}

// appendDecodedKey appends the decoded value of a raw JSON string body as
// generalized UTF-8 (lone surrogates kept, invalid bytes replaced).
func appendDecodedKey(dst, raw []byte) []byte {
	return appendUnescaped(dst, raw, appendWTF8)
}

// appendUnescaped appends a raw JSON string body (already validated, no
// quotes), passing each escape's rune to appendRune and replacing each
// maximal invalid UTF-8 prefix with U+FFFD; other bytes are copied in runs.
// The two callers differ only in how a decoded escape is written back.
func appendUnescaped(dst, raw []byte, appendRune func([]byte, rune) []byte) []byte {
	start := 0
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			dst = append(dst, raw[start:i]...)
			r, n := decodeEscape(raw, i)
			dst = appendRune(dst, r)
			i += n
			start = i
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, raw[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i += invalidPrefixLen(raw[i:])
			start = i
		}
	}
	return append(dst, raw[start:]...)
}

// text is raw or decoded key text.
type text interface{ ~string | ~[]byte }

// compareKeys orders two well-formed generalized-UTF-8 strings by UTF-16 code
// units, the order of Array.prototype.sort's default comparator.
func compareKeys[T text](a, b T) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && string(a[i:i+8]) == string(b[i:i+8]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		return int(a[i]) - int(b[i])
	}
	for i > 0 && a[i]&0xc0 == 0x80 {
		i--
	}
	return compareUnits(a[i:], b[i:])
}

// compareUnits compares two generalized-UTF-8 strings unit by unit in UTF-16.
func compareUnits[T text](a, b T) int {
	ua, ub := unitReader[T]{s: a}, unitReader[T]{s: b}
	for {
		x, okA := ua.next()
		y, okB := ub.next()
		switch {
		case !okA && !okB:
			return 0
		case !okA:
			return -1
		case !okB:
			return 1
		case x != y:
			return int(x) - int(y)
		}
	}
}

// unitReader yields the UTF-16 code units of a generalized-UTF-8 string.
type unitReader[T text] struct {
	s       T
	pending uint16
}

func (u *unitReader[T]) next() (uint16, bool) {
	if u.pending != 0 {
		p := u.pending
		u.pending = 0
		return p, true
	}
	if len(u.s) == 0 {
		return 0, false
	}
	c := u.s[0]
	var r rune
	switch {
	case c < 0x80:
		r, u.s = rune(c), u.s[1:]
	case c < 0xe0:
		r, u.s = rune(c&0x1f)<<6|rune(u.s[1]&0x3f), u.s[2:]
	case c < 0xf0:
		r, u.s = rune(c&0x0f)<<12|rune(u.s[1]&0x3f)<<6|rune(u.s[2]&0x3f), u.s[3:]
	default:
		r, u.s = rune(c&0x07)<<18|rune(u.s[1]&0x3f)<<12|rune(u.s[2]&0x3f)<<6|rune(u.s[3]&0x3f), u.s[4:]
	}
	if r < 0x10000 {
		return uint16(r), true
	}
	r -= 0x10000
	u.pending = uint16(0xdc00 + r&0x3ff)
	return uint16(0xd800 + r>>10), true
}

// normalizeText returns the Go string s with each byte of invalid UTF-8
// replaced by U+FFFD, as appendQuotedText prints it; valid strings are
// returned as they are.
func normalizeText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
