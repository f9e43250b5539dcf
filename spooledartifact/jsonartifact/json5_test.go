package jsonartifact

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/titanous/json5"
)

// FuzzJSON5Shape checks the order-recovering scanner reads every document
// the json5 library accepts, and that the converted JSON holds the same
// value as the library's decoding.
func FuzzJSON5Shape(f *testing.F) {
	for _, s := range []string{
		"{zeta:1, alpha:2, mid:3,}", "// c\n{a: /* x */ [1, {b: 'q\\'}'},], c: \"\\\"\"}", "[]", "{}", "'s'",
		"{a:1,a:{b:2}}", "[0x1F, .5, +Infinity, NaN, -0]", "{\n\t$_k\f: null // end\r}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := json5.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		if _, err := shapeOf(data); err != nil {
			t.Fatalf("library accepts %q but shapeOf fails: %v", data, err)
		}
		out, err := json5ToJSON(data)
		if err != nil {
			return // trailing content: refused as a whole
		}
		want, err := json.Marshal(fromJSON5(v))
		if err != nil {
			t.Fatal(err)
		}
		// Re-encoded through maps (sorted keys): compares values, not order.
		g, e := canonical(t, out), canonical(t, want)
		if !bytes.Equal(g, e) {
			t.Fatalf("%q: converted %s, library %s", data, out, want)
		}
	})
}

func canonical(t *testing.T, data []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("invalid json %s: %v", data, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
