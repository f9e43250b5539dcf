package canonical

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Flags of a scanned string.
const (
	flagRewrite uint8 = 1 << iota // JSON.stringify writes it otherwise
	flagDecode                    // its sort key differs from its raw text
)

// scanString validates the string literal starting at data[i] == '"' and
// returns the index just past its closing quote and its flags.
func scanString(data []byte, i int) (end int, flags uint8, err error) {
	start := i
	for i++; ; {
		// Eight bytes at a time up to the first byte that needs a look.
		for i+8 <= len(data) {
			if m := specialMask(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(data) {
			return 0, 0, syntaxError(data, start, "unterminated string")
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, flags, nil
		case c == '\\':
			size, canon, err := scanEscape(data, i)
			if err != nil {
				return 0, 0, err
			}
			if flags |= flagDecode; !canon {
				flags |= flagRewrite
			}
			i += size
		case c < 0x20:
			return 0, 0, syntaxError(data, i, "control character in string")
		case c < utf8.RuneSelf:
			i++ // a false positive of the mask
		case c >= 0xc2 && c <= 0xdf && i+1 < len(data) && data[i+1]&0xc0 == 0x80:
			i += 2 // a well-formed two-byte sequence, the common case
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				flags |= flagRewrite | flagDecode
			} else if size == 4 {
				flags |= flagDecode // two UTF-16 code units
			}
			i += size
		}
	}
}

// specialMask flags, in the high bit of each lane, the bytes of x that a
// JSON string scanner must look at: '"', '\\', control characters and
// non-ASCII bytes. Borrows only propagate upwards, so the lowest flagged lane
// is always a real hit (higher lanes may be false positives).
func specialMask(x uint64) uint64 {
	const lanes01, lanes80 = 0x0101010101010101, 0x8080808080808080
	q := x ^ (0x22 * lanes01)
	b := x ^ (0x5c * lanes01)
	return (((x-0x20*lanes01)|(q-lanes01)|(b-lanes01))&^x | x) & lanes80
}

// scanEscape validates the escape at data[i] == '\\' and returns its
// length and whether JSON.stringify writes it that way.
func scanEscape(data []byte, i int) (size int, canon bool, err error) {
	// At the end of data c is the backslash itself, and the string unterminated.
	switch c := data[min(i+1, len(data)-1)]; c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, c != '/', nil
	}
	var b [2]byte
	if i+6 > len(data) || data[i+1] != 'u' {
		return 0, false, syntaxError(data, i+1, "bad escape")
	}
	if _, err := hex.Decode(b[:], data[i+2:i+6]); err != nil {
		return 0, false, syntaxError(data, i+2, "bad \\u escape")
	}
	// JSON.stringify writes lowercase \u00xx for the control characters
	// without a short form, and everything else literally.
	return 6, b[0] == 0 && b[1] < 0x20 && !strings.ContainsRune(shortEscapes, rune(b[1])) && !bytes.ContainsAny(data[i+2:i+6], "ABCDEF"), nil
}

// shortEscapes are the control characters JSON.stringify escapes by name,
// escapeNames their names.
const shortEscapes, escapeNames = "\b\t\n\f\r", "btnfr"

// decodeEscape decodes the escape at raw[i] == '\\' (already validated).
// It returns the code point (a valid \u pair becomes one astral code point,
// a lone surrogate stays a surrogate code point) and the escape's length.
func decodeEscape(raw []byte, i int) (rune, int) {
	if c := raw[i+1]; c != 'u' {
		if k := strings.IndexByte(escapeNames, c); k >= 0 {
			return rune(shortEscapes[k]), 2
		}
		return rune(c), 2 // '"', '\\', '/'
	}
	r := hex4(raw[i+2:])
	if r >= 0xd800 && r < 0xdc00 && i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
		if pair := utf16.DecodeRune(r, hex4(raw[i+8:])); pair != utf8.RuneError {
			return pair, 12
		}
	}
	return r, 6
}

// hex4 decodes four validated hex digits.
func hex4(b []byte) rune {
	var v [2]byte
	hex.Decode(v[:], b[:4])
	return rune(v[0])<<8 | rune(v[1])
}

// nextRune decodes the rune at raw[i] of a validated JSON string body:
// escapes decoded, and invalid UTF-8 U+FFFD, one for each run of bytes a
// WHATWG UTF-8 decoder (TextDecoder, Buffer#toString) turns into one: the
// longest that could still begin a valid sequence, or a single byte.
func nextRune(raw []byte, i int) (rune, int) {
	if raw[i] == '\\' {
		return decodeEscape(raw, i)
	}
	r, n := utf8.DecodeRune(raw[i:])
	for n < len(raw)-i && r == utf8.RuneError && !utf8.FullRune(raw[i:i+n+1]) {
		n++ // these bytes could still begin a valid sequence
	}
	return r, n
}

// appendCanonicalString appends the canonical form of a raw JSON string
// body (the bytes between the quotes, already validated), quoted.
func appendCanonicalString(dst, raw []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := nextRune(raw, i)
		if c != '\\' && r != utf8.RuneError {
			i += n // valid UTF-8 is copied as it is
			continue
		}
		dst = appendEscapedRune(append(dst, raw[start:i]...), r)
		i += n
		start = i
	}
	return append(append(dst, raw[start:]...), '"')
}

// appendSortKey appends the decoded key raw (a validated string body) in
// CESU-8: each UTF-16 code unit (lone surrogates included) encoded as UTF-8
// encodes it, so that byte order is the UTF-16 code unit order JavaScript
// sorts keys by. A key without escapes, invalid UTF-8 or astral characters
// is its own sort key.
func appendSortKey(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		r, n := nextRune(raw, i)
		i += n
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			dst = appendUnit(dst, hi)
			r = lo
		}
		dst = appendUnit(dst, r)
	}
	return dst
}

// appendUnit appends a UTF-16 code unit in UTF-8 form, surrogates included.
func appendUnit(dst []byte, u rune) []byte {
	if u < 0x800 {
		return utf8.AppendRune(dst, u)
	}
	return append(dst, 0xe0|byte(u>>12), 0x80|byte(u>>6)&0x3f, 0x80|byte(u)&0x3f)
}

const hexDigits = "0123456789abcdef"

// appendEscapedRune appends r as JSON.stringify writes it inside a string:
// the quote, the backslash, control characters and (lone) surrogates
// escaped, anything else literally.
func appendEscapedRune(dst []byte, r rune) []byte {
	switch {
	case r == '"' || r == '\\':
		return append(dst, '\\', byte(r))
	case r < 0x20 || r >= 0xd800 && r <= 0xdfff:
		if k := strings.IndexRune(shortEscapes, r); k >= 0 {
			return append(dst, '\\', escapeNames[k])
		}
		return append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
	}
	return utf8.AppendRune(dst, r)
}

// appendQuotedText appends the Go string s as JSON.stringify writes it.
// Each byte of invalid UTF-8 becomes U+FFFD, as encoding/json writes Go
// strings, so that a string prints the same whether it is walked here or
// marshalled by encoding/json first.
func appendQuotedText(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:]) // utf8.RuneError for each invalid byte
		if r < 0x20 || r == '"' || r == '\\' || r == utf8.RuneError {
			dst = appendEscapedRune(append(dst, s[start:i]...), r)
			start = i + n
		}
		i += n
	}
	return append(append(dst, s[start:]...), '"')
}
