package forge

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// flatMembers walks b, a JSON object with nothing but white space around
// it (b[0] == '{'), whose values are all strings, numbers, true, false or
// null: the shape of nearly every tool call's arguments. It calls member
// with each member's key (quotes included) and value as written, in order,
// until member returns false. ok is false when member did, or when b is not
// such an object: a nested value, or anything encoding/json would not take
// as valid JSON.
func flatMembers(b []byte, member func(key, val []byte) bool) (ok bool) {
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		k := i
		if i >= len(b) || b[i] != '"' {
			return false
		}
		if i, ok = stringEnd(b, i); !ok {
			return false
		}
		key := b[k:i]
		if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
			return false
		}
		v := skipSpace(b, i+1)
		if i, ok = scalarEnd(b, v); !ok || !member(key, b[v:i]) {
			return false
		}
		if i = skipSpace(b, i); i >= len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return skipSpace(b, i+1) == len(b)
		case ',':
			i = skipSpace(b, i+1)
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scalarEnd returns the index after the string, number, true, false or
// null at b[i].
func scalarEnd(b []byte, i int) (end int, ok bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return stringEnd(b, i)
	case c == '-' || isDigit(c):
		end, _, ok = numberEnd(b, i)
		return end, ok
	}
	for _, w := range [...]string{"true", "false", "null"} {
		if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
			return i + len(w), true
		}
	}
	return 0, false
}

// stringEnd returns the index after the JSON string at b[i] (b[i] == '"').
// Like encoding/json's scanner it takes any byte but control characters
// in a string, valid UTF-8 or not.
func stringEnd(b []byte, i int) (end int, ok bool) {
	for j := i + 1; j < len(b); {
		switch c := b[j]; {
		case c == '"':
			return j + 1, true
		case c < 0x20:
			return 0, false
		case c != '\\':
			j++
		case j+1 >= len(b):
			return 0, false
		case b[j+1] == 'u':
			if len(b)-j < 6 || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
				return 0, false
			}
			j += 6
		default:
			if _, ok := simpleEscape(b[j+1]); !ok {
				return 0, false
			}
			j += 2
		}
	}
	return 0, false
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// simpleEscape returns the byte the escape \e stands for; ok is false for
// \u and for invalid escapes.
func simpleEscape(e byte) (c byte, ok bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// numberEnd follows the JSON number grammar from b[i]: end is the index
// after the literal, intEnd after its integer part; ok is false when b[i:]
// does not start with a number.
func numberEnd(b []byte, i int) (end, intEnd int, ok bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return 0, 0, false
	}
	intEnd = i
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, 0, false
		}
		i = skipDigits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, 0, false
		}
		i = skipDigits(b, i)
	}
	return i, intEnd, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// decodeFlat decodes b, a JSON object with nothing but white space around
// it, in one pass when flatMembers walks it: ok is false, and the caller
// decodes b the general way (which also words the error of invalid input),
// for anything else, and for what encoding/json decodes with a judgement of
// its own: \u escapes, invalid UTF-8, a repeated key, a number float64
// cannot hold. Where it answers, the answer is encoding/json's:
// FuzzFlatMembers holds the two together.
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
	ok = flatMembers(b, func(k, v []byte) bool {
		kb, ok := stringContent(k)
		if !ok {
			return false
		}
		key, found := names[string(kb)]
		if !found {
			key = string(kb)
		}
		val, ok := scalarValue(v)
		members = append(members, member{key, val})
		return ok
	})
	if !ok {
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

// scalarValue decodes v, a string, number, true, false or null as
// flatMembers found it.
func scalarValue(v []byte) (val any, ok bool) {
	switch v[0] {
	case '"':
		s, ok := stringContent(v)
		return string(s), ok
	case 't':
		return true, true
	case 'f':
		return false, true
	case 'n':
		return nil, true
	}
	return numberValue(v)
}

// stringContent decodes the JSON string s (quotes included, valid as
// stringEnd has it); the content aliases s unless s has escapes. ok is false
// for \u escapes (encoding/json's handling of surrogates applies) and
// invalid UTF-8 (encoding/json replaces it).
func stringContent(s []byte) (content []byte, ok bool) {
	s = s[1 : len(s)-1]
	var out []byte // nil until the first escape
	for j := 0; j < len(s); {
		switch c := s[j]; {
		case c == '\\':
			e, ok := simpleEscape(s[j+1])
			if !ok {
				return nil, false
			}
			if out == nil {
				out = append(make([]byte, 0, len(s)), s[:j]...)
			}
			out = append(out, e)
			j += 2
		case c < utf8.RuneSelf:
			if out != nil {
				out = append(out, c)
			}
			j++
		default:
			r, size := utf8.DecodeRune(s[j:])
			if r == utf8.RuneError && size == 1 {
				return nil, false
			}
			if out != nil {
				out = append(out, s[j:j+size]...)
			}
			j += size
		}
	}
	if out == nil {
		return s, true
	}
	return out, true
}

// maxPlainDigits is the most digits of an integer literal that float64
// holds exactly whatever they are (10^15 < 2^53).
const maxPlainDigits = 15

// numberValue decodes the JSON number literal v (valid as numberEnd has
// it) into the float64 strconv.ParseFloat, and so encoding/json, makes of
// it; ok is false when it is out of float64's range.
func numberValue(v []byte) (val any, ok bool) {
	digits, neg := v, v[0] == '-'
	if neg {
		digits = v[1:]
	}
	if len(digits) <= maxPlainDigits && plainDigits(digits) {
		// An integer float64 holds exactly: no need for ParseFloat.
		var n int64
		for _, c := range digits {
			n = n*10 + int64(c-'0')
		}
		f := float64(n)
		if neg {
			f = -f // -0 stays negative zero, as ParseFloat makes it
		}
		return boxFloat(f), true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return nil, false
	}
	return boxFloat(f), true
}

func plainDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
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

// compactFlat returns what json.Compact makes of b, a JSON object with
// nothing but white space around it, in one pass and one allocation when
// flatMembers walks it; ok is false otherwise. FuzzFlatMembers holds it to
// json.Valid and json.Compact.
func compactFlat(b []byte) (out []byte, ok bool) {
	out = append(make([]byte, 0, len(b)), '{')
	ok = flatMembers(b, func(k, v []byte) bool {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, k...), ':'), v...)
		return true
	})
	return append(out, '}'), ok
}
