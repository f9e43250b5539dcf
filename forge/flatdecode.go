package forge

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// decodeFlat decodes b, a JSON object with nothing around it, in one pass
// when every member's value is a string, number, true, false or null: the
// shape of nearly every tool call's arguments. ok is false, and the caller
// decodes b the general way (which also words the error of invalid input),
// for anything else: nested values, \u escapes, invalid UTF-8, a key that
// repeats, a number float64 cannot hold, invalid JSON. Where it answers, the
// answer is encoding/json's: FuzzDecodeFlat holds the two together.
//
// names maps property names to themselves (it may be nil): a key found in it
// shares the schema's string instead of allocating its own.
func decodeFlat(b []byte, names map[string]string) (m map[string]any, ok bool) {
	type member struct {
		key string
		val any
	}
	var buf [8]member
	members := buf[:0]
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return nil, false
			}
			kb, next, ok := scanString(b, i)
			if !ok {
				return nil, false
			}
			key, found := names[string(kb)]
			if !found {
				key = string(kb)
			}
			i = skipSpace(b, next)
			if i >= len(b) || b[i] != ':' {
				return nil, false
			}
			i = skipSpace(b, i+1)
			val, next, ok := scanScalar(b, i)
			if !ok {
				return nil, false
			}
			members = append(members, member{key, val})
			i = skipSpace(b, next)
			if i >= len(b) {
				return nil, false
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] != ',' {
				return nil, false
			}
			i = skipSpace(b, i+1)
		}
	}
	if skipSpace(b, i) != len(b) {
		return nil, false
	}
	m = make(map[string]any, len(members))
	for _, e := range members {
		m[e.key] = e.val
	}
	if len(m) != len(members) {
		return nil, false // a repeated key: left to the general path
	}
	return m, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanScalar decodes the string, number, true, false or null at b[i].
func scanScalar(b []byte, i int) (v any, next int, ok bool) {
	if i >= len(b) {
		return nil, 0, false
	}
	switch c := b[i]; {
	case c == '"':
		s, next, ok := scanString(b, i)
		if !ok {
			return nil, 0, false
		}
		return string(s), next, true
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(b, i)
	case hasWord(b, i, "true"):
		return true, i + 4, true
	case hasWord(b, i, "false"):
		return false, i + 5, true
	case hasWord(b, i, "null"):
		return nil, i + 4, true
	}
	return nil, 0, false
}

func hasWord(b []byte, i int, w string) bool {
	return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w
}

// scanString returns the content of the JSON string at b[i] (b[i] == '"')
// and the index after its closing quote. The content aliases b unless the
// string has escapes; ok is false for \u escapes, invalid UTF-8, control
// characters and unterminated strings.
func scanString(b []byte, i int) (s []byte, next int, ok bool) {
	start := i + 1
	for j := start; j < len(b); {
		switch c := b[j]; {
		case c == '"':
			return b[start:j], j + 1, true
		case c == '\\':
			return unescape(b, start, j)
		case c < 0x20:
			return nil, 0, false
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				return nil, 0, false
			}
			j += size
		}
	}
	return nil, 0, false
}

// unescape continues scanString from the first backslash, at b[j], of the
// string whose content starts at b[start], into a copy.
func unescape(b []byte, start, j int) (s []byte, next int, ok bool) {
	out := make([]byte, j-start, len(b)-start)
	copy(out, b[start:j])
	for j < len(b) {
		switch c := b[j]; {
		case c == '"':
			return out, j + 1, true
		case c == '\\':
			if j+1 >= len(b) {
				return nil, 0, false
			}
			switch e := b[j+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			default: // \u, where encoding/json's handling of surrogates applies, or invalid
				return nil, 0, false
			}
			j += 2
		case c < 0x20:
			return nil, 0, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			j++
		default:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				return nil, 0, false
			}
			out = append(out, b[j:j+size]...)
			j += size
		}
	}
	return nil, 0, false
}

// maxPlainDigits is the most digits of an integer literal that float64
// holds exactly whatever they are (10^15 < 2^53).
const maxPlainDigits = 15

// scanNumber decodes the JSON number at b[i] into the float64
// strconv.ParseFloat (and so encoding/json) makes of it; ok is false when
// it is not a valid literal or is out of float64's range.
func scanNumber(b []byte, i int) (v any, next int, ok bool) {
	start := i
	neg := b[i] == '-'
	if neg {
		i++
	}
	digits := i
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return nil, 0, false
	}
	intEnd := i
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return nil, 0, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return nil, 0, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i == intEnd && intEnd-digits <= maxPlainDigits {
		// A plain integer float64 holds exactly: no need for ParseFloat.
		var n int64
		for _, c := range b[digits:intEnd] {
			n = n*10 + int64(c-'0')
		}
		f := float64(n)
		if neg {
			f = -f // -0 stays negative zero, as ParseFloat makes it
		}
		return boxFloat(f), i, true
	}
	f, err := strconv.ParseFloat(string(b[start:i]), 64)
	if err != nil {
		return nil, 0, false
	}
	return boxFloat(f), i, true
}

// smallFloats are the integers 0 to 255 as float64 in an any, boxed once:
// the commonest numbers in arguments then cost no allocation.
var smallFloats = func() (a [256]any) {
	for i := range a {
		a[i] = float64(i)
	}
	return a
}()

func boxFloat(f float64) any {
	if f >= 0 && f < float64(len(smallFloats)) && f == math.Trunc(f) && !math.Signbit(f) {
		return smallFloats[int(f)]
	}
	return f
}
