package jsonartifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/titanous/json5"
)

// JSON5 key order. github.com/titanous/json5 validates and decodes JSON5,
// but only into Go values, whose maps lose the members' order (it has no
// token API). json5ToJSON therefore decodes with the library, then recovers
// each object's member order from the source with shapeOf, a small scanner
// that only needs to find objects, arrays, keys, strings and comments in
// text the library has already accepted, and writes JSON in that order.

// json5ToJSON converts one JSON5 document to compact JSON: object members in
// document order (a repeated key keeps its first position and its last
// value, as JSON.parse does), numbers as fromJSON5 makes them, strings
// without HTML escaping.
func json5ToJSON(data []byte) ([]byte, error) {
	dec := json5.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, ErrUnsupportedFormat.With(err, "jsonartifact: content is not valid json5")
	}
	// Decode stops after one value: anything but whitespace after it is an error.
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, ErrUnsupportedFormat.With(err, "jsonartifact: content is not a single json5 value")
	}
	// A shape the scanner cannot read (it never should, on accepted input)
	// costs only the order: members then come sorted.
	sh, _ := shapeOf(data)
	w := orderedWriter{}
	w.enc = json.NewEncoder(&w.scratch)
	w.enc.SetEscapeHTML(false)
	if err := w.write(fromJSON5(v), sh); err != nil {
		return nil, ErrUnsupportedFormat.With(err, "jsonartifact: json5 value has no json form")
	}
	return w.out.Bytes(), nil
}

// shape is the structure of one JSON5 value as written: an object's keys in
// first-seen order with the shape of each key's last value, or an array's
// element shapes; nil for a scalar.
type shape struct {
	object  bool
	keys    []string
	members map[string]*shape
	elems   []*shape
}

// shapeOf reads the shape of the first JSON5 value in data.
func shapeOf(data []byte) (*shape, error) {
	s := shapeScanner{data: data}
	return s.value(0)
}

// shapeScanner walks JSON5 text the library accepted: whitespace is the
// library's (space, \t, \r, \n, \f), comments are // and /* */ (ended as
// the library ends them), strings
// are '...' or "..." with backslash escapes, and an unquoted key runs to
// ':' or whitespace.
type shapeScanner struct {
	data []byte
	pos  int
}

const maxShapeDepth = 10000

func (s *shapeScanner) value(depth int) (*shape, error) {
	if depth > maxShapeDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxShapeDepth)
	}
	s.skip()
	if s.pos >= len(s.data) {
		return nil, io.ErrUnexpectedEOF
	}
	switch s.data[s.pos] {
	case '{':
		s.pos++
		sh := &shape{object: true, members: map[string]*shape{}}
		for {
			s.skip()
			if s.pos < len(s.data) && s.data[s.pos] == '}' {
				s.pos++
				return sh, nil
			}
			key, err := s.key()
			if err != nil {
				return nil, err
			}
			s.skip()
			if err := s.expect(':'); err != nil {
				return nil, err
			}
			child, err := s.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if _, seen := sh.members[key]; !seen {
				sh.keys = append(sh.keys, key)
			}
			sh.members[key] = child
			if err := s.next('}'); err != nil {
				return nil, err
			}
		}
	case '[':
		s.pos++
		sh := &shape{}
		for {
			s.skip()
			if s.pos < len(s.data) && s.data[s.pos] == ']' {
				s.pos++
				return sh, nil
			}
			child, err := s.value(depth + 1)
			if err != nil {
				return nil, err
			}
			sh.elems = append(sh.elems, child)
			if err := s.next(']'); err != nil {
				return nil, err
			}
		}
	case '"', '\'':
		_, err := s.str()
		return nil, err
	}
	start := s.pos // a number or literal: up to a delimiter
	for s.pos < len(s.data) && bytes.IndexByte([]byte(",]}:/ \t\r\n\f"), s.data[s.pos]) < 0 {
		s.pos++
	}
	if s.pos == start {
		return nil, fmt.Errorf("unexpected %q at %d", s.data[s.pos], s.pos)
	}
	return nil, nil
}

// next consumes the ',' after a member or element, or leaves the closing
// byte for the caller's loop.
func (s *shapeScanner) next(closing byte) error {
	s.skip()
	if s.pos < len(s.data) && s.data[s.pos] == ',' {
		s.pos++
		return nil
	}
	if s.pos < len(s.data) && s.data[s.pos] == closing {
		return nil
	}
	return fmt.Errorf("expected ',' or %q at %d", closing, s.pos)
}

func (s *shapeScanner) expect(c byte) error {
	if s.pos >= len(s.data) || s.data[s.pos] != c {
		return fmt.Errorf("expected %q at %d", c, s.pos)
	}
	s.pos++
	return nil
}

// key reads an object key: a quoted string, decoded by the library, or an
// unquoted identifier as written.
func (s *shapeScanner) key() (string, error) {
	if s.pos < len(s.data) && (s.data[s.pos] == '"' || s.data[s.pos] == '\'') {
		raw, err := s.str()
		if err != nil {
			return "", err
		}
		var k string
		if err := json5.Unmarshal(raw, &k); err != nil {
			return "", err
		}
		return k, nil
	}
	start := s.pos
	for s.pos < len(s.data) && bytes.IndexByte([]byte(": \t\r\n\f"), s.data[s.pos]) < 0 {
		s.pos++
	}
	if s.pos == start {
		return "", fmt.Errorf("missing key at %d", s.pos)
	}
	return string(s.data[start:s.pos]), nil
}

// str skips a quoted string and returns it, quotes included.
func (s *shapeScanner) str() ([]byte, error) {
	start, q := s.pos, s.data[s.pos]
	for s.pos++; s.pos < len(s.data); s.pos++ {
		switch s.data[s.pos] {
		case '\\':
			s.pos++
		case q:
			s.pos++
			return s.data[start:s.pos], nil
		}
	}
	return nil, io.ErrUnexpectedEOF
}

// skip passes whitespace and comments.
func (s *shapeScanner) skip() {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f':
			s.pos++
		case c == '/' && s.pos+1 < len(s.data) && s.data[s.pos+1] == '/':
			end := bytes.IndexAny(s.data[s.pos:], "\r\n")
			if end < 0 {
				s.pos = len(s.data)
				return
			}
			s.pos += end
		case c == '/' && s.pos+1 < len(s.data) && s.data[s.pos+1] == '*':
			// As the library reads it: after the first '*', the comment
			// ends at the next '/' ("/* a * b / c" ends at "/").
			star := bytes.IndexByte(s.data[s.pos+2:], '*')
			if star < 0 {
				s.pos = len(s.data)
				return
			}
			s.pos += 2 + star + 1
			slash := bytes.IndexByte(s.data[s.pos:], '/')
			if slash < 0 {
				s.pos = len(s.data)
				return
			}
			s.pos += slash + 1
		default:
			return
		}
	}
}

// orderedWriter writes a decoded value as compact JSON, objects in the
// order their shape gives.
type orderedWriter struct {
	out, scratch bytes.Buffer
	enc          *json.Encoder // into scratch, HTML escaping off
}

func (w *orderedWriter) write(v any, sh *shape) error {
	switch t := v.(type) {
	case map[string]any:
		keys := orderOf(t, sh)
		w.out.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.out.WriteByte(',')
			}
			if err := w.scalar(k); err != nil {
				return err
			}
			w.out.WriteByte(':')
			var child *shape
			if sh != nil {
				child = sh.members[k]
			}
			if err := w.write(t[k], child); err != nil {
				return err
			}
		}
		w.out.WriteByte('}')
		return nil
	case []any:
		w.out.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				w.out.WriteByte(',')
			}
			var child *shape
			if sh != nil && len(sh.elems) == len(t) {
				child = sh.elems[i]
			}
			if err := w.write(e, child); err != nil {
				return err
			}
		}
		w.out.WriteByte(']')
		return nil
	}
	return w.scalar(v)
}

func (w *orderedWriter) scalar(v any) error {
	w.scratch.Reset()
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	w.out.Write(bytes.TrimSuffix(w.scratch.Bytes(), []byte("\n")))
	return nil
}

// orderOf returns m's keys in the shape's order when the shape is the
// object's (the same keys), else sorted.
func orderOf(m map[string]any, sh *shape) []string {
	if sh != nil && sh.object && len(sh.keys) == len(m) {
		ok := true
		for _, k := range sh.keys {
			if _, in := m[k]; !in {
				ok = false
				break
			}
		}
		if ok {
			return sh.keys
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
