package forge

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// flatCases are objects of scalars, which decodeFlat decodes itself, and
// documents it must leave to the general path.
var flatCases = []struct {
	doc  string
	flat bool // decodeFlat answers
}{
	{`{}`, true},
	{`{ }`, true},
	{`{"a":1,"b":2}`, true},
	{" {\t\"a\" :\n1 ,\r\"b\": \"x\" } ", true},
	{`{"city":"Oslo","days":3,"ok":true,"no":false,"none":null}`, true},
	{`{"n":-0,"z":0,"m":-12,"f":0.1,"e":1e-7,"E":2.5E+3,"big":9007199254740993,"max":1e308}`, true},
	{`{"n":123456789012345,"m":1234567890123456,"k":-999999999999999}`, true},
	{`{"small":255,"edge":256,"neg":-1,"half":0.5,"x":255.0,"y":2.55e2}`, true},
	{`{"esc":"a\"b\\c\/d\b\f\n\r\t","plain":"é東京😀"}`, true},
	{`{"":""}`, true},
	{`{"a":{"b":1}}`, false},
	{`{"a":[1]}`, false},
	{`{"a":1,"a":2}`, false},
	{`{"u":"\u0041"}`, false},
	{`{"\u0061":1}`, false},
	{`{"bad":"` + "\xff" + `"}`, false},
	{`{"sur":"` + "\xed\xa0\x80" + `"}`, false},
	{`{"ctl":"` + "\x01" + `"}`, false},
	{`{"over":1e400}`, false},
	{`{"over":-1e999}`, false},
	{`{"a":01}`, false},
	{`{"a":1.}`, false},
	{`{"a":.5}`, false},
	{`{"a":+1}`, false},
	{`{"a":1e}`, false},
	{`{"a":-}`, false},
	{`{"a":NaN}`, false},
	{`{"a":tru}`, false},
	{`{"a":nul`, false},
	{`{"a":1,}`, false},
	{`{,}`, false},
	{`{"a" 1}`, false},
	{`{"a":1}x`, false},
	{`{"a":1}{}`, false},
	{`{"a":"x`, false},
	{`{"a":"\q"}`, false},
	{`{"a":1`, false},
	{`{a:1}`, false},
	{`{`, false},
}

func TestDecodeFlat(t *testing.T) {
	names := map[string]string{"a": "a", "city": "city"}
	for _, tt := range flatCases {
		b := []byte(strings.TrimLeft(tt.doc, " "))
		got, ok := decodeFlat(b, names)
		if ok != tt.flat {
			t.Errorf("decodeFlat(%q) ok = %v, want %v", tt.doc, ok, tt.flat)
			continue
		}
		checkDecode(t, b)
		if !ok {
			continue
		}
		var want map[string]any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("decodeFlat(%q) answered; encoding/json: %v", tt.doc, err)
		}
		if !sameJSON(want, got) {
			t.Errorf("decodeFlat(%q) = %#v, encoding/json %#v", tt.doc, got, want)
		}
	}
}

// The common arguments cost only the map's allocations (its header and its
// table): keys that are property names share the schema's strings, and
// small integers are boxed once for all.
func TestDecodeFlatAllocs(t *testing.T) {
	names := map[string]string{"a": "a", "b": "b"}
	b := []byte(`{"a":1,"b":2}`)
	if n := testing.AllocsPerRun(100, func() {
		if _, ok := decodeFlat(b, names); !ok {
			t.Fatal("not decoded")
		}
	}); n != 2 {
		t.Errorf("decodeFlat(%s) allocates %v times, want 2", b, n)
	}
}

// The boxed small integers are the numbers themselves.
func TestBoxFloat(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, 255, 256, 254.5, -1, 1e300, math.SmallestNonzeroFloat64} {
		got, ok := boxFloat(f).(float64)
		if !ok || math.Float64bits(got) != math.Float64bits(f) {
			t.Errorf("boxFloat(%v) = %#v", f, boxFloat(f))
		}
	}
}

// FuzzFlatMembers holds the two users of flatMembers to encoding/json.
// decodeFlat: where it answers, the same map (signs of zero included); and
// it answers for every object of scalars without \u escapes, invalid UTF-8,
// repeated keys or numbers out of float64's range. compactFlat: where it
// answers, b is valid and the answer is json.Compact's; and it answers for
// every valid object of scalars.
func FuzzFlatMembers(f *testing.F) {
	for _, tt := range flatCases {
		f.Add([]byte(tt.doc))
	}
	names := map[string]string{"a": "a", "b": "b", "city": "city", "": ""}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '{' {
			return // flatMembers' precondition
		}
		checkCompact(t, b)
		got, ok := decodeFlat(b, names)
		var want map[string]any
		err := json.Unmarshal(b, &want)
		if ok {
			if err != nil {
				t.Fatalf("decodeFlat(%q) answered; encoding/json: %v", b, err)
			}
			if !sameJSON(want, got) {
				t.Fatalf("decodeFlat(%q) = %#v, encoding/json %#v", b, got, want)
			}
			return
		}
		if err != nil || bytes.Contains(b, []byte(`\u`)) || !utf8.Valid(b) || topMembers(b) != len(want) || delims(b) != 2 {
			return
		}
		t.Fatalf("decodeFlat(%q) left an object of scalars to the general path", b)
	})
}

// topMembers counts the members of the valid JSON object b, repeated keys
// included.
func topMembers(b []byte) int {
	d := json.NewDecoder(bytes.NewReader(b))
	n, depth := 0, 0
	expectKey := false
	for {
		tok, err := d.Token()
		if err != nil {
			return n
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			expectKey = depth == 1
			continue
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 1 && expectKey {
			n++
		}
		if depth == 1 {
			expectKey = !expectKey
		}
	}
}

// sameJSON is reflect.DeepEqual for decoded JSON that also tells -0 from 0.
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case float64:
		b, ok := b.(float64)
		return ok && math.Float64bits(a) == math.Float64bits(b)
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) || (a == nil) != (b == nil) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) || (a == nil) != (b == nil) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return cmp.Equal(a, b)
}

func TestCompactFlat(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{}`, `{}`},
		{"{ \t\r\n}", `{}`},
		{` {"a" : 1 , "b":"x y" ,"c" :null}`, `{"a":1,"b":"x y","c":null}`},
		{`{"u":"\u00e9\ud800","e":"\n\"","b":"` + "\xff" + `"}`, `{"u":"\u00e9\ud800","e":"\n\"","b":"` + "\xff" + `"}`},
		{`{"a":1,"a":1e999}`, `{"a":1,"a":1e999}`},
		{`{"a":{}}`, ``},
		{`{"a":[]}`, ``},
		{`{"a":1,}`, ``},
		{`{"a":"\x"}`, ``},
		{`{"a":"\u12"}`, ``},
		{`{"a":01}`, ``},
		{`{"a":1} {}`, ``},
	} {
		got, ok := compactFlat([]byte(strings.TrimLeft(tt.in, " ")))
		if ok != (tt.want != "") || ok && string(got) != tt.want {
			t.Errorf("compactFlat(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
		checkCompact(t, []byte(strings.TrimLeft(tt.in, " ")))
	}
}

func checkCompact(t *testing.T, b []byte) {
	t.Helper()
	got, ok := compactFlat(b)
	var want bytes.Buffer
	valid := json.Compact(&want, b) == nil
	switch {
	case ok && !valid:
		t.Fatalf("compactFlat(%q) answered; encoding/json finds it invalid", b)
	case ok && !bytes.Equal(got, want.Bytes()):
		t.Fatalf("compactFlat(%q) = %q, json.Compact %q", b, got, want.Bytes())
	case !ok && valid && delims(b) == 2:
		t.Fatalf("compactFlat(%q) left a valid object of scalars to the general path", b)
	}
}

// delims counts the braces and brackets of the valid JSON b outside its
// strings.
func delims(b []byte) (n int) {
	d := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err != nil {
			return n
		}
		if _, ok := tok.(json.Delim); ok {
			n++
		}
	}
}
