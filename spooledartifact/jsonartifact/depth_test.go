package jsonartifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/titanous/json5"
)

func TestNestingDepth(t *testing.T) {
	tests := []struct {
		data string
		want int
	}{
		{"", 0},
		{"1", 0},
		{"[]", 1},
		{`{"a":[{}]}`, 3},
		{`[[], [[]], []]`, 3},
		{`"[[["`, 0},
		{`["\"[["]`, 1},
		{`["\\", [1]]`, 2},
		{`["\\\"[", 1]`, 1},
		{`['[', "]", '\'[']`, 1},
		{`"[[`, 0},        // an unclosed string runs to the end
		{"]]]][", 1},      // a closer at depth 0 is ignored
		{"[}]", 1},        // any closer closes
		{"// [[\n[", 1},   // line comment
		{"[\r// [\r[", 2}, // a line comment ends at '\r' too
		{"/* [[ */[", 1},  // block comment
		{"/* * [[ / [[", 2},
		{"/*/ [[", 0}, // the first '*' is the opener's: unclosed
		{"/**/[", 1},  // closed at once
		{"// [", 0},   // runs to the end
		{"[/ [", 2},   // a lone '/' is no comment
		{`{a: ['x"[', /* ] */ "y'["]}`, 2},
	}
	for _, tt := range tests {
		if got := nestingDepth([]byte(tt.data), MaxDepth); got != tt.want {
			t.Errorf("nestingDepth(%q) = %d, want %d", tt.data, got, tt.want)
		}
	}
	if got := nestingDepth([]byte(strings.Repeat("[", 50)), 3); got != 4 {
		t.Errorf("nestingDepth stops at limit+1: got %d, want 4", got)
	}
}

func TestCheckDepth(t *testing.T) {
	nest := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	tests := []struct {
		name string
		data []byte
		deep bool
	}{
		{"at the limit", nest(MaxDepth), false},
		{"over the limit", nest(MaxDepth + 1), true},
		{"objects", []byte(strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)), true},
		{"brackets in a string", []byte(`["` + strings.Repeat("[", 2*MaxDepth) + `"]`), false},
		{"brackets in a comment", []byte("/*" + strings.Repeat("[", 2*MaxDepth) + "*/[]"), false},
		{"many shallow", bytes.Repeat([]byte("[[]],"), MaxDepth), false},
	}
	for _, tt := range tests {
		err := checkDepth(tt.data, -1)
		if got := errors.Is(err, ErrTooDeep); got != tt.deep || (err != nil && !tt.deep) {
			t.Errorf("%s: checkDepth = %v, want too deep %v", tt.name, err, tt.deep)
		}
	}
}

// jsonDepth is the nesting depth of valid JSON, from encoding/json's tokens.
func jsonDepth(t *testing.T, data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // a number beyond float64 is still valid JSON
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return deepest
		}
		if err != nil {
			t.Fatalf("valid json %q: %v", data, err)
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			deepest = max(deepest, depth)
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}

// shapeDepth is the nesting depth of a JSON5 value's shape (nil: a scalar).
func shapeDepth(sh *shape) int {
	if sh == nil {
		return 0
	}
	deepest := 0
	for _, e := range sh.elems {
		deepest = max(deepest, shapeDepth(e))
	}
	for _, m := range sh.members {
		deepest = max(deepest, shapeDepth(m))
	}
	return deepest + 1
}

// FuzzNestingDepth holds the depth scanner, a parser of untrusted input,
// to its contract: it never panics, its limit only stops it early, it is
// exact on valid JSON and it bounds the nesting the json5 library reads.
func FuzzNestingDepth(f *testing.F) {
	for _, s := range []string{
		"", "[]", `{"a":[{"b":"]["}]}`, `["\\\"[", 1]`, "['[', \"]\"]", "// [[\n[", "/* * [ / [[", "/*/ [",
		"]]][", "[\r// [\r[", `{a: ['x"[', /* ] */ "y'["]}`, strings.Repeat("[", 40), "\"\\",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := nestingDepth(data, len(data)+1)
		if d < 0 || d > len(data) {
			t.Fatalf("depth %d of %d bytes", d, len(data))
		}
		for _, limit := range []int{0, 1, d - 1, d} {
			if limit >= 0 {
				if got := nestingDepth(data, limit); got != min(d, limit+1) {
					t.Fatalf("limit %d: %d, want %d", limit, got, min(d, limit+1))
				}
			}
		}
		if json.Valid(data) {
			if want := jsonDepth(t, data); d != want {
				t.Fatalf("valid json %q: depth %d, want %d", data, d, want)
			}
		}
		var v any
		if json5.Unmarshal(data, &v) == nil {
			sh, err := shapeOf(data)
			if err != nil {
				return // FuzzJSON5Shape's concern
			}
			if want := shapeDepth(sh); d < want {
				t.Fatalf("json5 %q: depth %d below the library's %d", data, d, want)
			}
		}
	})
}

// BenchmarkNestingDepth scans 16 MiB of JSON records, strings included:
// the cost checkDepth adds to a big document's first query.
func BenchmarkNestingDepth(b *testing.B) {
	rec := []byte(`{"id":1234567890,"user":"user-0001234567","age":42,"active":true,"tags":["a","even"],"pad":"xxxxxxxxxxxxxxxx"},`)
	data := bytes.Repeat(rec, (16<<20)/len(rec))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if d := nestingDepth(data, MaxDepth); d != 2 {
			b.Fatal(d)
		}
	}
}
