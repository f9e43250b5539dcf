package forge

import (
	"strconv"
	"unicode/utf8"
)

// decodeArgs decodes a JSON object into the value encoding/json's Unmarshal
// into map[string]any would produce (objects map[string]any, arrays []any,
// numbers float64), without reflection. It copies b once into a string and
// slices unescaped strings and keys out of it, so a call costs a few
// allocations instead of one or more per token (a retained string keeps
// that copy alive, which for tool arguments is small).
//
// It only accepts what it is sure of: ok is false for invalid JSON and for
// rare valid inputs it leaves to encoding/json (invalid UTF-8, lone
// surrogate escapes, numbers that overflow a float64, very deep nesting).
// The caller then falls back to encoding/json, which also words the error.
// FuzzDecodeArgs checks the two agree whenever ok is true.
func decodeArgs(b []byte) (m map[string]any, ok bool) {
	d := argDecoder{s: string(b)}
	d.space()
	if d.i >= len(d.s) || d.s[d.i] != '{' {
		return nil, false
	}
	m, ok = d.object(0)
	if !ok {
		return nil, false
	}
	d.space()
	return m, d.i == len(d.s)
}

// maxArgDepth bounds the nesting decodeArgs handles itself; deeper input
// goes to encoding/json (whose own limit is 10000).
const maxArgDepth = 512

type argDecoder struct {
	s string
	i int
}

func (d *argDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *argDecoder) value(depth int) (any, bool) {
	d.space()
	if d.i >= len(d.s) {
		return nil, false
	}
	switch c := d.s[d.i]; {
	case c == '{':
		m, ok := d.object(depth + 1)
		return m, ok
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		s, ok := d.str()
		return s, ok
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return d.number()
	}
}

func (d *argDecoder) literal(word string) bool {
	if len(d.s)-d.i < len(word) || d.s[d.i:d.i+len(word)] != word {
		return false
	}
	d.i += len(word)
	return true
}

// object decodes from the '{' at d.i.
func (d *argDecoder) object(depth int) (map[string]any, bool) {
	if depth > maxArgDepth {
		return nil, false
	}
	d.i++ // '{'
	m := map[string]any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, false
		}
		d.i++
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		m[k] = v // a repeated key keeps the last value, as encoding/json does
		d.space()
		if d.i >= len(d.s) {
			return nil, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

// array decodes from the '[' at d.i.
func (d *argDecoder) array(depth int) ([]any, bool) {
	if depth > maxArgDepth {
		return nil, false
	}
	d.i++ // '['
	a := []any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.s) {
			return nil, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// str decodes the string whose opening quote is at d.i. Without escapes
// the result shares d.s; with escapes it is built once.
func (d *argDecoder) str() (string, bool) {
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.s); j++ {
		switch c := d.s[j]; {
		case c == '"':
			s := d.s[start:j]
			if !ascii && !utf8.ValidString(s) {
				return "", false // encoding/json substitutes U+FFFD; leave it that
			}
			d.i = j + 1
			return s, true
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// escaped decodes a string holding escapes, from its first byte at start.
func (d *argDecoder) escaped(start int) (string, bool) {
	buf := make([]byte, 0, len(d.s)-start)
	for j := start; j < len(d.s); {
		c := d.s[j]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				return "", false
			}
			d.i = j + 1
			return string(buf), true
		case c < 0x20:
			return "", false
		case c != '\\':
			buf = append(buf, c)
			j++
			continue
		}
		if j+1 >= len(d.s) {
			return "", false
		}
		switch e := d.s[j+1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(d.s, j+2)
			if !ok {
				return "", false
			}
			j += 6
			if r >= 0xD800 && r < 0xE000 {
				// A surrogate must be the high half of a pair; anything else
				// (encoding/json turns it into U+FFFD) is left to it.
				lo, ok := rune(0), false
				if r < 0xDC00 && j+1 < len(d.s) && d.s[j] == '\\' && d.s[j+1] == 'u' {
					lo, ok = hex4(d.s, j+2)
				}
				if !ok || lo < 0xDC00 || lo >= 0xE000 {
					return "", false
				}
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				j += 6
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}

func hex4(s string, at int) (rune, bool) {
	if at+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[at : at+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number decodes a JSON number at d.i into a float64, as encoding/json does.
func (d *argDecoder) number() (any, bool) {
	start, j := d.i, d.i
	if j < len(d.s) && d.s[j] == '-' {
		j++
	}
	switch {
	case j < len(d.s) && d.s[j] == '0':
		j++
	case j < len(d.s) && d.s[j] >= '1' && d.s[j] <= '9':
		for j < len(d.s) && d.s[j] >= '0' && d.s[j] <= '9' {
			j++
		}
	default:
		return nil, false
	}
	if j < len(d.s) && d.s[j] == '.' {
		j++
		k := j
		for j < len(d.s) && d.s[j] >= '0' && d.s[j] <= '9' {
			j++
		}
		if j == k {
			return nil, false
		}
	}
	if j < len(d.s) && (d.s[j] == 'e' || d.s[j] == 'E') {
		j++
		if j < len(d.s) && (d.s[j] == '+' || d.s[j] == '-') {
			j++
		}
		k := j
		for j < len(d.s) && d.s[j] >= '0' && d.s[j] <= '9' {
			j++
		}
		if j == k {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(d.s[start:j], 64)
	if err != nil {
		return nil, false // out of range: encoding/json reports it
	}
	d.i = j
	return f, true
}
