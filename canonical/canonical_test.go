package canonical_test

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
)

func TestStringifyJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"sorted keys", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"whitespace", " \t\r\n{ \"a\" : [ 1 , 2 ] }\n ", `{"a":[1,2]}`},
		{"duplicate last wins", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{"duplicate thrice", `{"a":1,"a":{"x":1},"a":[2]}`, `{"a":[2]}`},
		{"nested duplicate", `{"o":{"k":1,"k":2},"o2":[{"z":0,"z":null}]}`, `{"o":{"k":2},"o2":[{"z":null}]}`},
		{"utf16 order astral before E000", `{"\uE000":1,"😀":2,"\uFFFF":3,"a":4}`, "{\"a\":4,\"😀\":2,\"\ue000\":1,\"\uffff\":3}"},
		{"utf16 order lone surrogates", `{"\udc00":1,"😀":2,"\ud83d":3,"\ud83dx":4}`, `{"\ud83d":3,"\ud83dx":4,"😀":2,"\udc00":1}`},
		{"integer keys sort as strings", `{"10":1,"2":2,"1":3}`, `{"1":3,"10":1,"2":2}`},
		{"proto key", `{"__proto__":1,"a":2}`, `{"__proto__":1,"a":2}`},
		{"escapes", `"\u0041\/\b\t\n\f\r\u0000\u001F\u007f\u2028\"\\"`, "\"A/\\b\\t\\n\\f\\r\\u0000\\u001f\x7f\u2028\\\"\\\\\""},
		{"html stays literal", `"<a href='x'>&amp;</a>"`, `"<a href='x'>&amp;</a>"`},
		{"surrogate pair escape", `"\ud83d\ude00\uD83D\uDE00"`, `"😀😀"`},
		{"lone surrogates", `["\ud800","\uDFFF","\ud800\u0041","\ude00\ud83d"]`, `["\ud800","\udfff","\ud800A","\ude00\ud83d"]`},
		{"invalid utf8 replaced", "\"a\xe2\x82b\xffc\xed\xa0\x80\"", "\"a\uFFFDb\uFFFDc\uFFFD\uFFFD\uFFFD\""},
		{"invalid utf8 key", "{\"\xff\":1,\"\xfe\":2}", "{\"\uFFFD\":2}"},
		{"literals", `[true,false,null]`, `[true,false,null]`},
		{"literals at the end", `false`, `false`},
		{"literals as values", `{"t":true,"f":false,"n":null}`, `{"f":false,"n":null,"t":true}`},
		{"empty containers", `[{},[], {  } ,[ ]]`, `[{},[],{},[]]`},
		{"numbers", `[0,-0,0.0,1.0,1.50,1e2,1E+2,0.1e1,-1e-7,1e-6,0.000001,1e21,1e20,123456789012345678,1e400,-1e400,5e-324,1e-400]`,
			`[0,0,0,1,1.5,100,100,1,-1e-7,0.000001,0.000001,1e+21,100000000000000000000,123456789012345680,null,null,5e-324,0]`},
		{"large integers", `[9007199254740993,18446744073709551615,1152921504606846976]`,
			`[9007199254740992,18446744073709552000,1152921504606847000]`},
		{"negative and small decimals", `[-12.5,-0.5,0.000001,0.0000001,-0.0000012,0.1234567890123456,-123456789012345,-1234567890123456,-12345678901234567,0.100,-0.0,-0.000001,0.0000010,-0.9999999999999999,0.12345678901234567,-5e-7,0.5e1]`,
			`[-12.5,-0.5,0.000001,1e-7,-0.0000012,0.1234567890123456,-123456789012345,-1234567890123456,-12345678901234568,0.1,0,-0.000001,0.000001,-0.9999999999999999,0.12345678901234566,-5e-7,5]`},
		{"nested reorders", `[{"b":1,"a":{"d":1,"c":2,"d":3,"e":{"g":1.50,"f":2}}},{"z":{"y":{"b":1.50,"a":[{"d":1,"c":2}]},"x":0,"x":{"q":1,"p":"\u0041"}},"a":1}]`,
			`[{"a":{"c":2,"d":3,"e":{"f":2,"g":1.5}},"b":1},{"a":1,"z":{"x":{"p":"A","q":1},"y":{"a":[{"c":2,"d":1}],"b":1.5}}}]`},
		{"nested reorders in order", `[{"b":{"d":{"f":{"h":1,"g":2},"e":0},"c":[{"j":1,"i":2}]},"a":{"l":1,"k":{"n":1,"m":2}}}]`,
			`[{"a":{"k":{"m":2,"n":1},"l":1},"b":{"c":[{"i":2,"j":1}],"d":{"e":0,"f":{"g":2,"h":1}}}}]`},
		{"keys sharing eight bytes", `{"prefix__b":1,"prefix__a\u0062":2,"prefix__a":3, "prefix__\ud83d\ude00":4,"prefix__\ue000":5,"prefix__ab":6}`,
			"{\"prefix__a\":3,\"prefix__ab\":6,\"prefix__b\":1,\"prefix__😀\":4,\"prefix__\ue000\":5}"},
		{"keys sharing eight bytes in order", `{"prefix__a":1, "prefix__a\n":2,"prefix__b" :3,"prefix__b\u0020":4}`, `{"prefix__a":1,"prefix__a\n":2,"prefix__b":3,"prefix__b ":4}`},
		{"keys sharing eight bytes, many", `{"key_____q":1,"key_____p":2,"key_____o":3,"key_____n":4,"key_____m":5,"key_____l":6,"key_____k":7,"key_____j":8,"key_____i":9,"key_____h":10,"key_____g":11,"key_____f":12,"key_____e":13,"key_____d":14,"key_____c":15,"key_____b":16,"key_____a":17,"key_____q":0}`,
			`{"key_____a":17,"key_____b":16,"key_____c":15,"key_____d":14,"key_____e":13,"key_____f":12,"key_____g":11,"key_____h":10,"key_____i":9,"key_____j":8,"key_____k":7,"key_____l":6,"key_____m":5,"key_____n":4,"key_____o":3,"key_____p":2,"key_____q":0}`},
		{"string top level", `"x"`, `"x"`},
		{"number top level", ` 12.50 `, `12.5`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canonical.StringifyJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("StringifyJSON(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			again, err := canonical.StringifyJSON([]byte(got))
			if err != nil || again != got {
				t.Errorf("not a fixed point: %q -> %q, %v", got, again, err)
			}
			app, err := canonical.AppendJSON([]byte("prefix:"), []byte(tt.in))
			if err != nil || string(app) != "prefix:"+tt.want {
				t.Errorf("AppendJSON = %q, %v", app, err)
			}
		})
	}
}

func TestStringifyJSONInvalid(t *testing.T) {
	inputs := []string{
		"", " ", "{", "[1,]", `{"a":1,}`, `{a:1}`, "01", "-", "1.", ".5", "+1", "1e", "NaN", "tru",
		`"\x41"`, `"\u12"`, "\"a\tb\"", `{"a":1}{}`, "1 2", "\ufeff{}", "\u00a0{}", `[1}`, `{"a":1]`,
		`"unterminated`, `"\`, "[" + strings.Repeat(" ", 3), "\xff", `{"a" 1}`, `{"a":}`,
		// Literals are matched four bytes at a time.
		"nul", "fals", "falsE", "False", "nulL", "[tru]", "[nulx]", "[falsee]", "truex", `{"a":fals}`, "[t]",
	}
	for _, in := range inputs {
		t.Run(in, func(t *testing.T) {
			got, err := canonical.StringifyJSON([]byte(in))
			if !errors.Is(err, canonical.ErrInvalidJSON) {
				t.Fatalf("StringifyJSON(%q) = %q, %v; want ErrInvalidJSON", in, got, err)
			}
			var w bytes.Buffer
			if err := canonical.WriteJSON(&w, []byte(in)); err == nil || w.Len() != 0 {
				t.Fatalf("WriteJSON wrote %q, err %v", w.String(), err)
			}
			dst, err := canonical.AppendJSON([]byte("keep"), []byte(in))
			if err == nil || string(dst) != "keep" {
				t.Fatalf("AppendJSON = %q, %v", dst, err)
			}
		})
	}
}

func TestDepthLimit(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	if _, err := canonical.StringifyJSON(deep(canonical.MaxDepth)); err != nil {
		t.Fatalf("MaxDepth levels: %v", err)
	}
	if _, err := canonical.StringifyJSON(deep(canonical.MaxDepth + 1)); !errors.Is(err, canonical.ErrLimit) {
		t.Fatalf("MaxDepth+1 levels: %v, want ErrLimit", err)
	}
	// The checksum wraps args in one more object.
	if _, err := canonical.ChecksumJSON("t", deep(canonical.MaxDepth)); !errors.Is(err, canonical.ErrLimit) {
		t.Fatalf("checksum of MaxDepth levels: %v, want ErrLimit", err)
	}
	// Absurd nesting must neither crash nor be slow.
	if _, err := canonical.StringifyJSON(deep(5_000_000)); !errors.Is(err, canonical.ErrLimit) {
		t.Fatalf("5M levels: %v, want ErrLimit", err)
	}
	// Objects reordered at every level: all but the outermost leave their
	// order to the enclosing object.
	unsorted := strings.Repeat(`{"b":0,"a":`, canonical.MaxDepth) + "1" + strings.Repeat("}", canonical.MaxDepth)
	sorted := strings.Repeat(`{"a":`, canonical.MaxDepth) + "1" + strings.Repeat(`,"b":0}`, canonical.MaxDepth)
	if got, err := canonical.StringifyJSON([]byte(unsorted)); err != nil || got != sorted {
		t.Fatalf("deep unsorted objects: %v", err)
	}
	objs := strings.Repeat(`{"a":`, canonical.MaxDepth) + "1" + strings.Repeat("}", canonical.MaxDepth)
	if got, err := canonical.StringifyJSON([]byte(objs)); err != nil || got != objs {
		t.Fatalf("deep objects: %v", err)
	}
}

func TestChecksum(t *testing.T) {
	raw := `{"b":[1,2.50,{"y":null,"x":"\u00e9"}],"a":true}`
	canon := `{"a":true,"b":[1,2.5,{"x":"é","y":null}]}`
	want := sha256.Sum256([]byte(`{"args":` + canon + `,"tool":"get_weather"}`))
	wantHex := hex.EncodeToString(want[:])

	var decoded any
	if err := json.Unmarshal([]byte(raw), &decoded); err != nil {
		t.Fatal(err)
	}
	type args struct {
		B []any `json:"b"`
		A bool  `json:"a"`
	}
	cases := map[string]any{
		"RawMessage": json.RawMessage(raw),
		"bytes":      []byte(raw),
		"decoded":    decoded,
		"struct":     args{A: true, B: []any{1, 2.5, map[string]any{"x": "é", "y": nil}}},
		"pointer":    &args{A: true, B: []any{int8(1), float32(2.5), map[string]*int{"y": nil, "x": nil}}},
	}
	cases["pointer"].(*args).B[2] = map[string]any{"x": "é", "y": json.RawMessage(" null ")}
	for name, a := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := canonical.Checksum("get_weather", a)
			if err != nil || got != wantHex {
				t.Fatalf("Checksum = %s, %v; want %s", got, err, wantHex)
			}
		})
	}
	got, err := canonical.ChecksumJSON("get_weather", []byte(raw))
	if err != nil || got != wantHex {
		t.Fatalf("ChecksumJSON = %s, %v", got, err)
	}
	// The tool name is escaped like any string; invalid UTF-8 becomes U+FFFD.
	a, _ := canonical.Checksum("a\"\n\xff", nil)
	b := sha256.Sum256([]byte(`{"args":null,"tool":"a\"\n` + "\uFFFD" + `"}`))
	if a != hex.EncodeToString(b[:]) {
		t.Fatalf("tool escaping: %s", a)
	}
}

// TestInvalidUTF8 checks the two replacement rules: one U+FFFD per invalid
// byte in Go strings, wherever they sit (as encoding/json writes them), one
// per maximal invalid sequence in JSON text (as TextDecoder reads it).
func TestInvalidUTF8(t *testing.T) {
	sum := func(text string) string {
		h := sha256.Sum256([]byte(text))
		return hex.EncodeToString(h[:])
	}
	tests := []struct {
		in, goText, rawText string
	}{
		{"a\xe2\x82b", "a\uFFFD\uFFFDb", "a\uFFFDb"},
		{"\xf0\x9f\x98", "\uFFFD\uFFFD\uFFFD", "\uFFFD"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD", "\uFFFD\uFFFD\uFFFD"},
		{"\xe0\x80", "\uFFFD\uFFFD", "\uFFFD\uFFFD"},
		{"\xff\xfe", "\uFFFD\uFFFD", "\uFFFD\uFFFD"},
		{"x\xc3", "x\uFFFD", "x\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			goQ, rawQ := `"`+tt.goText+`"`, `"`+tt.rawText+`"`
			raw := []byte(`"` + tt.in + `"`)
			cases := []struct {
				name string
				got  func() (string, error)
				want string
			}{
				{"string", func() (string, error) { return canonical.Stringify(tt.in) }, goQ},
				{"map key and value", func() (string, error) { return canonical.Stringify(map[string]string{tt.in: tt.in}) }, "{" + goQ + ":" + goQ + "}"},
				{"struct field", func() (string, error) { return canonical.Stringify(struct{ Q string }{tt.in}) }, `{"Q":` + goQ + "}"},
				{"MarshalText", func() (string, error) { return canonical.Stringify([]ptrText{ptrText(tt.in)}) }, `["T` + tt.goText + `"]`},
				{"Checksum tool", func() (string, error) { return canonical.Checksum(tt.in, nil) }, sum(`{"args":null,"tool":` + goQ + "}")},
				{"ChecksumJSON tool", func() (string, error) { return canonical.ChecksumJSON(tt.in, []byte("null")) }, sum(`{"args":null,"tool":` + goQ + "}")},
				{"StringifyJSON", func() (string, error) { return canonical.StringifyJSON(raw) }, rawQ},
				{"Checksum raw args", func() (string, error) { return canonical.Checksum("t", json.RawMessage(raw)) }, sum(`{"args":` + rawQ + `,"tool":"t"}`)},
				{"embedded RawMessage", func() (string, error) { return canonical.Stringify([]any{json.RawMessage(raw)}) }, "[" + rawQ + "]"},
				{"RawMessage field", func() (string, error) { return canonical.Stringify(struct{ R json.RawMessage }{raw}) }, `{"R":` + rawQ + "}"},
			}
			for _, c := range cases {
				got, err := c.got()
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", c.name, diff)
				}
			}
		})
	}
}

type textKey string

func (k textKey) MarshalText() ([]byte, error) { return []byte("T" + string(k)), nil }

type myInt int

type cyclic struct {
	Self *cyclic `json:"self"`
}

func TestStringify(t *testing.T) {
	var nilMap map[string]any
	var nilPtr *int
	answer := 42
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, "null"},
		{"bools", []bool{true, false}, "[true,false]"},
		{"ints", []any{int8(-8), int16(16), int32(-32), int64(1 << 62), uint(7), uint8(8), uint16(16), uint32(32), uint64(1<<64 - 1), myInt(3)},
			"[-8,16,-32,4611686018427388000,7,8,16,32,18446744073709552000,3]"},
		{"floats", []any{0.1, -0.0, math.NaN(), math.Inf(1), math.Inf(-1), 1e21, 1e-7, float32(0.1), float32(16777217)},
			"[0.1,0,null,null,null,1e+21,1e-7,0.1,16777216]"},
		{"json.Number", []json.Number{"1.50", "-0", "1e400", ""}, "[1.5,0,null,0]"},
		{"strings", []string{"<&>", "\u2028", "\x7f", "a\xffb", "\x00"}, `["<&>","` + "\u2028" + `","` + "\x7f" + `","a` + "\uFFFD" + `b","\u0000"]`},
		{"map sorted", map[string]int{"b": 1, "a": 2, "😀": 3, "\uE000": 4}, `{"a":2,"b":1,"😀":3,"` + "\uE000" + `":4}`},
		{"named map key kind string", map[textKey]int{"x": 1}, `{"x":1}`},
		{"nil map", nilMap, "null"},
		{"nil slice", []int(nil), "null"},
		{"nil pointer", nilPtr, "null"},
		{"pointer", &answer, "42"},
		{"array", [3]uint8{1, 2, 3}, "[1,2,3]"},
		{"bytes as base64", []byte("hi"), `"aGk="`},
		{"raw message", map[string]any{"r": json.RawMessage(`{"z":1,"a":[1.0]}`)}, `{"r":{"a":[1],"z":1}}`},
		{"nil raw message", json.RawMessage(nil), "null"},
		{"struct", struct {
			Z int    `json:"z"`
			A string `json:"a,omitempty"`
			H string `json:"-"`
		}{Z: 1, H: "hidden"}, `{"z":1}`},
		{"time", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), `"2024-01-02T03:04:05Z"`},
		{"text marshaler", textKey("v"), `"Tv"`},
		{"invalid utf8 keys collapse deterministically", map[string]int{"\xff": 1, "\xfe": 2}, "{\"\uFFFD\":1}"},
		{"invalid utf8 keys per byte", map[string]int{"a\xe2": 1, "a\xe2\x82": 2}, "{\"a\uFFFD\":1,\"a\uFFFD\uFFFD\":2}"},
		{"shared non-cyclic", func() any { s := []any{1}; return []any{s, s, map[string]any{"s": s}} }(), `[[1],[1],{"s":[1]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canonical.Stringify(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Stringify mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// ptrJSON has MarshalJSON on its pointer only, so encoding/json calls it
// where the value is addressable and encodes the plain struct elsewhere.
type ptrJSON struct{ N int }

func (p *ptrJSON) MarshalJSON() ([]byte, error) { return fmt.Appendf(nil, `{"ptr":%d}`, p.N), nil }

// ptrText is a non-struct type with MarshalText on its pointer only.
type ptrText string

func (p *ptrText) MarshalText() ([]byte, error) { return []byte("T" + *p), nil }

// both has MarshalText on the value and MarshalJSON on the pointer: which
// one encoding/json uses depends on addressability.
type both int

func (b both) MarshalText() ([]byte, error)  { return fmt.Appendf(nil, "text%d", int(b)), nil }
func (b *both) MarshalJSON() ([]byte, error) { return fmt.Appendf(nil, `{"json":%d}`, int(*b)), nil }

// TestStringifyAddressableMarshalers checks that pointer-receiver marshalers
// run exactly where encoding/json runs them: on addressable values (slice
// elements, what a pointer points to, fields and elements within those),
// not on map values, interface contents or values passed by value.
func TestStringifyAddressableMarshalers(t *testing.T) {
	type holder struct{ P ptrJSON }
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"struct by value", ptrJSON{1}, `{"N":1}`},
		{"struct pointer", &ptrJSON{1}, `{"ptr":1}`},
		{"slice of structs", []ptrJSON{{1}, {2}}, `[{"ptr":1},{"ptr":2}]`},
		{"array by value", [1]ptrJSON{{1}}, `[{"N":1}]`},
		{"array through pointer", &[1]ptrJSON{{1}}, `[{"ptr":1}]`},
		{"arrays in a slice", [][1]ptrJSON{{{1}}}, `[[{"ptr":1}]]`},
		{"map values", map[string]ptrJSON{"k": {1}}, `{"k":{"N":1}}`},
		{"arrays as map values", map[string][1]ptrJSON{"k": {{1}}}, `{"k":[{"N":1}]}`},
		{"slices as map values", map[string][]ptrJSON{"k": {{1}}}, `{"k":[{"ptr":1}]}`},
		{"interface content", []any{ptrJSON{1}}, `[{"N":1}]`},
		{"pointer in interface", []any{&[1]ptrJSON{{1}}}, `[[{"ptr":1}]]`},
		{"field by value", holder{ptrJSON{1}}, `{"P":{"N":1}}`},
		{"field through pointer", &holder{ptrJSON{1}}, `{"P":{"ptr":1}}`},
		{"field of slice element", []holder{{ptrJSON{1}}}, `[{"P":{"ptr":1}}]`},
		{"field of map value", map[string]holder{"k": {ptrJSON{1}}}, `{"k":{"P":{"N":1}}}`},
		{"text by value", ptrText("a"), `"a"`},
		{"text slice", []ptrText{"a"}, `["Ta"]`},
		{"text through pointers", func() any { p := &[]ptrText{"a"}; return &p }(), `["Ta"]`},
		{"text map values", map[string]ptrText{"k": "a"}, `{"k":"a"}`},
		{"both by value", both(1), `"text1"`},
		{"both addressable", []both{1}, `[{"json":1}]`},
		{"both in map", map[string]both{"k": 1}, `{"k":"text1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { stringifiesLikeEncodingJSON(t, tt.in, tt.want) })
	}
}

// intKey is an integer map key with MarshalText, which encoding/json
// prefers to the digits.
type intKey int

func (k intKey) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "k%d", int(k)), nil }

// badKey is a map key whose MarshalText fails.
type badKey struct{}

func (badKey) MarshalText() ([]byte, error) { return nil, errors.New("no text") }

// TestStringifyMapKeys checks that map keys are named as encoding/json
// names them: strings as they are, MarshalText's text, integers' digits.
func TestStringifyMapKeys(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"ints sort as text", map[int]string{1: "a", 10: "b", 2: "c", -1: "d"}, `{"-1":"d","1":"a","10":"b","2":"c"}`},
		{"uints", map[uint8]int{255: 1, 0: 2}, `{"0":2,"255":1}`},
		{"string kind ignores MarshalText", map[textKey]int{"x": 1}, `{"x":1}`},
		{"text marshaler over digits", map[intKey]int{2: 1, 10: 2}, `{"k10":2,"k2":1}`},
		{"pointer keys", func() any { a := ptrText("a"); return map[*ptrText]int{nil: 1, &a: 2} }(), `{"":1,"Ta":2}`},
		{"keys in a struct", struct{ M map[intKey]int }{map[intKey]int{1: 1}}, `{"M":{"k1":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { stringifiesLikeEncodingJSON(t, tt.in, tt.want) })
	}
}

// list and selfPtr can hold themselves.
type (
	list    []list
	selfPtr *selfPtr
)

// TestStringifySharedAddresses checks values whose containers share an
// address without holding one another, nested deep enough for the cycle
// check: they are not cycles (encoding/json encodes them).
func TestStringifySharedAddresses(t *testing.T) {
	tests := []struct {
		name string
		in   func() any
		want string
	}{
		{"array and its first element", func() any {
			a := [2]any{5, nil}
			a[1] = &a[0]
			return &a
		}, `[5,5]`},
		{"slice of arrays and the first array's elements", func() any {
			s := make([][2]any, 2)
			s[1][0] = s[0][:]
			return s
		}, `[[null,null],[[null,null],null]]`},
		{"pointer and pointer to pointer", func() any {
			n := 1
			p := &n
			return []any{&p, p}
		}, `[1,1]`},
	}
	for _, tt := range tests {
		for _, levels := range []int{0, 100} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, levels), func(t *testing.T) {
				v := tt.in()
				want := tt.want
				for range levels {
					v = []any{v}
					want = "[" + want + "]"
				}
				got, err := canonical.Stringify(v)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Stringify mismatch (-want +got):\n%s", diff)
				}
				data, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if viaJSON, err := canonical.StringifyJSON(data); err != nil || viaJSON != want {
					t.Errorf("encoding/json writes %s, canonically %q (%v)", data, viaJSON, err)
				}
			})
		}
	}
}

func TestStringifyErrors(t *testing.T) {
	selfMap := map[string]any{}
	selfMap["me"] = selfMap
	selfSlice := []any{nil}
	selfSlice[0] = selfSlice
	var selfIface any
	selfIface = &selfIface
	selfStruct := &cyclic{}
	selfStruct.Self = selfStruct
	mixed := map[string]any{}
	mixed["s"] = []any{struct{ M map[string]any }{M: mixed}}
	var selfArray [2]any
	selfArray[1] = &selfArray
	selfSlicePtr := []any{nil}
	selfSlicePtr[0] = &selfSlicePtr
	selfMapPtr := map[string]any{}
	selfMapPtr["m"] = []any{&selfMapPtr}
	selfList := make(list, 1)
	selfList[0] = selfList
	var selfNamed selfPtr
	selfNamed = &selfNamed

	tests := []struct {
		name string
		in   any
		want error
	}{
		{"channel", make(chan int), canonical.ErrUnsupportedType},
		{"func", func() {}, canonical.ErrUnsupportedType},
		{"complex", complex(1, 2), canonical.ErrUnsupportedType},
		{"float keys", map[float64]string{1: "a"}, canonical.ErrUnsupportedType},
		{"array keys", map[[2]int]string{}, canonical.ErrUnsupportedType},
		{"nil float-keyed map", map[float64]string(nil), canonical.ErrUnsupportedType},
		{"failing key marshaler", map[badKey]int{{}: 1}, canonical.ErrUnsupportedType},
		{"failing key marshaler in struct", struct{ M map[badKey]int }{map[badKey]int{{}: 1}}, canonical.ErrUnsupportedType},
		{"nil interface key", map[encoding.TextMarshaler]int{nil: 1}, canonical.ErrUnsupportedType},
		{"nested channel", map[string]any{"c": []any{make(chan int)}}, canonical.ErrUnsupportedType},
		{"struct with NaN", struct{ F float64 }{math.NaN()}, canonical.ErrUnsupportedType},
		{"bad json.Number", json.Number("1.2.3"), canonical.ErrInvalidJSON},
		{"bad raw", json.RawMessage(`{"a"`), canonical.ErrInvalidJSON},
		{"self map", selfMap, canonical.ErrCycle},
		{"self slice", selfSlice, canonical.ErrCycle},
		{"self pointer", selfIface, canonical.ErrCycle},
		{"self struct", selfStruct, canonical.ErrCycle},
		{"cycle through struct", mixed, canonical.ErrCycle},
		{"array through its pointer", &selfArray, canonical.ErrCycle},
		{"slice through its pointer", selfSlicePtr, canonical.ErrCycle},
		{"map through its pointer", selfMapPtr, canonical.ErrCycle},
		{"typed slice", selfList, canonical.ErrCycle},
		{"named pointer", selfNamed, canonical.ErrCycle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canonical.Stringify(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Stringify = %q, %v; want %v", got, err, tt.want)
			}
			if sum, err := canonical.Checksum("t", tt.in); !errors.Is(err, tt.want) || sum != "" {
				t.Fatalf("Checksum = %q, %v; want %v", sum, err, tt.want)
			}
		})
	}
}

// failJSON is a marshaler that fails.
type failJSON struct{}

func (failJSON) MarshalJSON() ([]byte, error) { return nil, errors.New("no JSON") }

// TestErrorKindAnyContainer checks that a bad value fails with the same
// kind of error wherever it sits: at the top, in a slice, map, pointer or
// struct field, typed or held in an interface (structs go through
// encoding/json, the rest is walked here).
func TestErrorKindAnyContainer(t *testing.T) {
	deep := strings.Repeat("[", canonical.MaxDepth+1) + strings.Repeat("]", canonical.MaxDepth+1)
	bad := []struct {
		name string
		v    any
		want error
	}{
		{"leading zero Number", json.Number("01"), canonical.ErrInvalidJSON},
		{"two points Number", json.Number("1.2.3"), canonical.ErrInvalidJSON},
		{"spaced Number", json.Number(" 1"), canonical.ErrInvalidJSON},
		{"NaN Number", json.Number("NaN"), canonical.ErrInvalidJSON},
		{"unterminated RawMessage", json.RawMessage(`{"a"`), canonical.ErrInvalidJSON},
		{"empty RawMessage", json.RawMessage{}, canonical.ErrInvalidJSON},
		{"two-value RawMessage", json.RawMessage("1 2"), canonical.ErrInvalidJSON},
		{"too deep RawMessage", json.RawMessage(deep), canonical.ErrLimit},
		{"channel", make(chan int), canonical.ErrUnsupportedType},
		{"func", func() {}, canonical.ErrUnsupportedType},
		{"complex", complex(1, 2), canonical.ErrUnsupportedType},
		{"failing marshaler", failJSON{}, canonical.ErrUnsupportedType},
	}
	// typed returns v in a container of v's own type: slice, map, struct.
	typed := func(v any, kind reflect.Kind) any {
		rv := reflect.ValueOf(v)
		switch kind {
		case reflect.Slice:
			s := reflect.MakeSlice(reflect.SliceOf(rv.Type()), 1, 1)
			s.Index(0).Set(rv)
			return s.Interface()
		case reflect.Map:
			m := reflect.MakeMap(reflect.MapOf(reflect.TypeFor[string](), rv.Type()))
			m.SetMapIndex(reflect.ValueOf("k"), rv)
			return m.Interface()
		default:
			p := reflect.New(reflect.StructOf([]reflect.StructField{{Name: "F", Type: rv.Type()}}))
			p.Elem().Field(0).Set(rv)
			return p.Interface()
		}
	}
	containers := []struct {
		name string
		wrap func(any) any
	}{
		{"top", func(v any) any { return v }},
		{"slice", func(v any) any { return []any{v} }},
		{"map", func(v any) any { return map[string]any{"k": v} }},
		{"pointer", func(v any) any { return &v }},
		{"struct", func(v any) any { return struct{ F any }{v} }},
		{"struct pointer", func(v any) any { return &struct{ F any }{v} }},
		{"slice of structs", func(v any) any { return []struct{ F any }{{v}} }},
		{"map in struct", func(v any) any { return struct{ M map[string]any }{map[string]any{"k": v}} }},
		{"typed slice", func(v any) any { return typed(v, reflect.Slice) }},
		{"typed map", func(v any) any { return typed(v, reflect.Map) }},
		{"typed struct field", func(v any) any { return typed(v, reflect.Struct) }},
		{"typed struct by value", func(v any) any { return reflect.ValueOf(typed(v, reflect.Struct)).Elem().Interface() }},
		{"typed slice in struct", func(v any) any { return struct{ S any }{typed(v, reflect.Slice)} }},
	}
	for _, b := range bad {
		for _, c := range containers {
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				v := c.wrap(b.v)
				if got, err := canonical.Stringify(v); !errors.Is(err, b.want) {
					t.Errorf("Stringify = %q, %v; want %v", got, err, b.want)
				}
				if sum, err := canonical.Checksum("t", v); !errors.Is(err, b.want) {
					t.Errorf("Checksum = %q, %v; want %v", sum, err, b.want)
				}
			})
		}
	}
}

// TestDeepGoValue checks the depth limit on Go values.
func TestDeepGoValue(t *testing.T) {
	var v any = 1
	for range canonical.MaxDepth {
		v = []any{v}
	}
	if _, err := canonical.Stringify(v); err != nil {
		t.Fatalf("MaxDepth levels: %v", err)
	}
	if _, err := canonical.Stringify([]any{v}); !errors.Is(err, canonical.ErrLimit) {
		t.Fatalf("MaxDepth+1 levels: %v, want ErrLimit", err)
	}
}

// TestLargeStreaming exercises chunked output (spans longer than the chunk).
func TestLargeStreaming(t *testing.T) {
	long := strings.Repeat("abcdefgh", 20000)
	doc := []byte(`{"z":"` + long + `","a":[` + strings.Repeat(`"`+long[:100]+`",`, 2000) + `1]}`)
	want, err := canonical.StringifyJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := canonical.WriteJSON(&w, doc); err != nil || w.String() != want {
		t.Fatalf("WriteJSON differs from StringifyJSON (err %v)", err)
	}
	sum := sha256.Sum256([]byte(`{"args":` + want + `,"tool":"t"}`))
	if got, err := canonical.ChecksumJSON("t", doc); err != nil || got != hex.EncodeToString(sum[:]) {
		t.Fatalf("ChecksumJSON = %s, %v", got, err)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("boom")
}

func TestWriteJSONWriterError(t *testing.T) {
	doc := []byte(`[` + strings.Repeat(`"`+strings.Repeat("x", 1000)+`",`, 100) + `1]`)
	w := &failWriter{}
	if err := canonical.WriteJSON(w, doc); err == nil || err.Error() != "boom" {
		t.Fatalf("err = %v, want the writer's error", err)
	}
	if w.n != 1 {
		t.Fatalf("writer called %d times after failing, want 1", w.n)
	}
}

func TestConcurrent(t *testing.T) {
	vs := loadVectors(t, "vectors.jsonl")
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for _, v := range vs {
				if v.Error {
					continue
				}
				if got, err := canonical.ChecksumJSON(v.Tool, v.input(t)); err != nil || got != v.Checksum {
					t.Errorf("concurrent ChecksumJSON mismatch for %q", v.ArgsJSON)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}

// TestAlmostCanonical covers inputs close to canonical text, where the
// scanner must notice the one thing to change (or that nothing changes and
// whole containers are copied). Expectations come from node.
func TestAlmostCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{\"a\":1,\"a\":2}", "{\"a\":2}"},
		{"[\"\\/\"]", "[\"/\"]"},
		{"{\"\\u0061\":1}", "{\"a\":1}"},
		{"{\"a\":[1,{\"c\":1,\"b\":2}]}", "{\"a\":[1,{\"b\":2,\"c\":1}]}"},
		{"[1e21]", "[1e+21]"},
		{"[1E+21]", "[1e+21]"},
		{"[1e+21]", "[1e+21]"},
		{"[0.30000000000000004]", "[0.30000000000000004]"},
		{"[0.3000000000000000444]", "[0.30000000000000004]"},
		{"{\"\":1,\"a\":2}", "{\"\":1,\"a\":2}"},
		{"{\"😀\":1,\"\\uE000\":2}", "{\"😀\":1,\"\":2}"},
		{"{\"\\uE000\":2,\"😀\":1}", "{\"😀\":1,\"\":2}"},
		{"{\"😀\":1,\"ｚ\":2}", "{\"😀\":1,\"ｚ\":2}"},
		{"{\"ｚ\":2,\"😀\":1}", "{\"😀\":1,\"ｚ\":2}"},
		{"{\"a\":{\"b\":[true,null,\"x\\n\"]},\"b\":-1.5e-7}", "{\"a\":{\"b\":[true,null,\"x\\n\"]},\"b\":-1.5e-7}"},
		{"{\"a\":{\"b\":[true,null,\"x\\n\"]},\"b\":-1.5e-7 }", "{\"a\":{\"b\":[true,null,\"x\\n\"]},\"b\":-1.5e-7}"},
		{"[[],{},[{}]]", "[[],{},[{}]]"},
		{"{\"a\":1,\"b\":[2,{\"a\":0,\"a\":1}]}", "{\"a\":1,\"b\":[2,{\"a\":1}]}"},
		{"{\"ab\":1,\"abcdefghij\":2,\"abcdefghi\":3}", "{\"ab\":1,\"abcdefghi\":3,\"abcdefghij\":2}"},
		{"{\"a\\n\":1,\"a\":2}", "{\"a\":2,\"a\\n\":1}"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := canonical.StringifyJSON([]byte(tt.in))
			if err != nil || got != tt.want {
				t.Fatalf("StringifyJSON(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			a, _ := canonical.ChecksumJSON("t", []byte(tt.in))
			b, _ := canonical.ChecksumJSON("t", []byte(tt.want))
			if a != b {
				t.Fatalf("checksums differ: %s vs %s", a, b)
			}
		})
	}
}

// TestRepeatedShapes covers arrays of records, whose objects repeat the
// same keys in the same order, interleaved with objects that look alike
// but are not.
func TestRepeatedShapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[{"b":1,"a":2},{"b":3,"a":4},{"a":5,"b":6},{"b":7,"a":8,"c":9},{"b":0,"a":0}]`,
			`[{"a":2,"b":1},{"a":4,"b":3},{"a":5,"b":6},{"a":8,"b":7,"c":9},{"a":0,"b":0}]`},
		{`[{"abcdefghiZ":1,"abcdefghiA":2},{"abcdefghiZ":3,"abcdefghiA":4},{"abcdefghiA":5,"abcdefghiZ":6}]`,
			`[{"abcdefghiA":2,"abcdefghiZ":1},{"abcdefghiA":4,"abcdefghiZ":3},{"abcdefghiA":5,"abcdefghiZ":6}]`},
		{`[{"b":1,"a":2},{"b":3,"b":4},{"b":5,"a":6}]`, `[{"a":2,"b":1},{"b":4},{"a":6,"b":5}]`},
		{`[{"x":{"d":1,"c":2},"w":0},{"x":{"d":3,"c":4},"w":1},{"x":{"c":5,"d":6},"w":2}]`,
			`[{"w":0,"x":{"c":2,"d":1}},{"w":1,"x":{"c":4,"d":3}},{"w":2,"x":{"c":5,"d":6}}]`},
		{`[{"b":1,"a":2},{"b":3,"\u0061":4},{"b":5,"a":6}]`, `[{"a":2,"b":1},{"a":4,"b":3},{"a":6,"b":5}]`},
		{`[{"😀":1,"\uE000":2},{"😀":3,"\uE000":4},{"\ud83d":5,"\uE000":6}]`,
			"[{\"😀\":1,\"\ue000\":2},{\"😀\":3,\"\ue000\":4},{\"\\ud83d\":5,\"\ue000\":6}]"},
		{`[{"b" : 1, "a":[2, 3]}, {"b":4,"a":[5,6]}]`, `[{"a":[2,3],"b":1},{"a":[5,6],"b":4}]`},
		// Keys near the ones of the object before.
		{`[{"b":1,"a":2},{"b":1,"ab":2},{"bc":1,"a":2},{"b":1,"a\"":2}]`,
			`[{"a":2,"b":1},{"ab":2,"b":1},{"a":2,"bc":1},{"a\"":2,"b":1}]`},
		{`[{"zzzzzzz":1,"aaaaaaa":2},{"zzzzzzz":3,"aaaaaaaa":4},{"zzzzzzzz":5,"aaaaaaa":6}]`,
			`[{"aaaaaaa":2,"zzzzzzz":1},{"aaaaaaaa":4,"zzzzzzz":3},{"aaaaaaa":6,"zzzzzzzz":5}]`},
		{`[{"b":1,"":2},{"b":3,"":4},{"":5,"b":6},{"b":7,"":8}]`, `[{"":2,"b":1},{"":4,"b":3},{"":5,"b":6},{"":8,"b":7}]`},
		{`[{"b":1,"a":2},{"b" :3,"a"  :4},{"b":5,"é":6},{"b":7,"a":8}]`, `[{"a":2,"b":1},{"a":4,"b":3},{"b":5,"é":6},{"a":8,"b":7}]`},
		{`[{"b":1,"a":2},{"a":3,"a":4},{"b":5,"b":6},{"b":7,"a":8}]`, `[{"a":2,"b":1},{"a":4},{"b":6},{"a":8,"b":7}]`},
		// Objects in order next to ones out of order.
		{`[{"a":1,"b":2},{"a":3,"b":4},{"b":5,"a":6},{"a":7,"b":8},{"a":9,"b":0,"c":1}]`,
			`[{"a":1,"b":2},{"a":3,"b":4},{"a":6,"b":5},{"a":7,"b":8},{"a":9,"b":0,"c":1}]`},
		{`[{"abcdefghiA":1,"abcdefghiZ":2},{"abcdefghiZ":3,"abcdefghiA":4}]`,
			`[{"abcdefghiA":1,"abcdefghiZ":2},{"abcdefghiA":4,"abcdefghiZ":3}]`},
		// Fewer or more keys than the object before.
		{`[{"c":1,"b":2,"a":3},{"c":4,"b":5},{"c":6,"b":7,"a":8,"d":9},{"c":1,"b":2,"a":3}]`,
			`[{"a":3,"b":2,"c":1},{"b":5,"c":4},{"a":8,"b":7,"c":6,"d":9},{"a":3,"b":2,"c":1}]`},
	}
	// Objects of 15 to 18 members, keys in reverse order, each shape twice.
	for n := 15; n <= 18; n++ {
		var in, want []string
		for k := range n {
			in = append(in, fmt.Sprintf(`"k%02d":%d`, n-1-k, k))
			want = append(want, fmt.Sprintf(`"k%02d":%d`, k, n-1-k))
		}
		obj, sorted := "{"+strings.Join(in, ",")+"}", "{"+strings.Join(want, ",")+"}"
		tests = append(tests, struct{ in, want string }{"[" + obj + "," + obj + "]", "[" + sorted + "," + sorted + "]"})
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := canonical.StringifyJSON([]byte(tt.in))
			if err != nil || got != tt.want {
				t.Fatalf("StringifyJSON(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			sum, err := canonical.ChecksumJSON("t", []byte(tt.in))
			want := sha256.Sum256([]byte(`{"args":` + tt.want + `,"tool":"t"}`))
			if err != nil || sum != hex.EncodeToString(want[:]) {
				t.Fatalf("ChecksumJSON = %s, %v", sum, err)
			}
		})
	}
}

// TestMultibyteAtChunkEnd puts two- and three-byte characters (and broken
// ones) at every position near the end of the input, where the scanner's
// eight-byte steps run out.
func TestMultibyteAtChunkEnd(t *testing.T) {
	for _, ch := range []string{"é", "東", "😀", "\xe6\x9d", "\xc3", "\xff"} {
		for pad := range 12 {
			in := `"` + strings.Repeat("a", pad) + ch + `"`
			want := `"` + strings.Repeat("a", pad) + strings.ToValidUTF8(ch, "\uFFFD") + `"`
			got, err := canonical.StringifyJSON([]byte(in))
			if err != nil || got != want {
				t.Fatalf("StringifyJSON(%q) = %q, %v; want %q", in, got, err, want)
			}
			if _, err := canonical.StringifyJSON([]byte(in[:len(in)-1])); !errors.Is(err, canonical.ErrInvalidJSON) {
				t.Fatalf("unterminated %q: %v", in[:len(in)-1], err)
			}
		}
	}
}

type panicJSON struct{}

func (panicJSON) MarshalJSON() ([]byte, error) { panic("boom") }

type panicKey struct{}

func (panicKey) MarshalText() ([]byte, error) { panic("boom") }

// A panic in encoding/json or in a user's marshaler is ErrUnsupportedType,
// never a panic out of Stringify or Checksum.
func TestMarshalPanicsAreErrors(t *testing.T) {
	values := map[string]any{
		"panicking MarshalJSON":          panicJSON{},
		"panicking MarshalJSON in slice": []any{panicJSON{}},
		"panicking MarshalText key":      map[panicKey]int{{}: 1},
		"panicking key in struct":        struct{ M map[panicKey]int }{M: map[panicKey]int{{}: 1}},
		"nil interface key in struct": struct {
			M map[encoding.TextMarshaler]int
		}{M: map[encoding.TextMarshaler]int{nil: 1}},
	}
	for name, v := range values {
		if _, err := canonical.Stringify(v); !errors.Is(err, canonical.ErrUnsupportedType) {
			t.Errorf("%s: Stringify err = %v, want ErrUnsupportedType", name, err)
		}
		if _, err := canonical.Checksum("t", v); !errors.Is(err, canonical.ErrUnsupportedType) {
			t.Errorf("%s: Checksum err = %v, want ErrUnsupportedType", name, err)
		}
	}
}

// stringifiesLikeEncodingJSON checks Stringify(in) against want, and that
// want is also what StringifyJSON makes of encoding/json's text for in.
func stringifiesLikeEncodingJSON(t *testing.T, in any, want string) {
	t.Helper()
	got, err := canonical.Stringify(in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stringify mismatch (-want +got):\n%s", diff)
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if viaJSON, err := canonical.StringifyJSON(data); err != nil || viaJSON != want {
		t.Errorf("encoding/json writes %s, canonically %q (%v); the test expects %q", data, viaJSON, err, want)
	}
}

// TestRecordKeysMatchDecoding hashes arrays of records whose keys mostly
// repeat the record before, now and then with one key changed to a near
// miss: a longer or shorter key, an escaped spelling of the same key, a
// duplicate, blanks around the colon.
// encoding/json's decoding, canonicalised as a Go value, is the oracle
// (its last duplicate wins, as in JSON.parse).
func TestRecordKeysMatchDecoding(t *testing.T) {
	pool := []string{`a`, `ab`, `abc`, `abcdefg`, `abcdefgh`, `abcdefg\"`, `a\u0062`, `b`, ``, `é`, `id`, `idx`, `zzzzzz`, `zzzzzzz`, `\u00e9`}
	rng := rand.New(rand.NewPCG(7, 11))
	for doc := range 200 {
		var b strings.Builder
		b.WriteByte('[')
		var keys []string
		for r := range 40 {
			switch {
			case keys == nil || rng.IntN(4) == 0:
				keys = keys[:0]
				for range 1 + rng.IntN(18) {
					keys = append(keys, pool[rng.IntN(len(pool))])
				}
			case rng.IntN(3) == 0:
				keys[rng.IntN(len(keys))] = pool[rng.IntN(len(pool))]
			case rng.IntN(3) == 0 && len(keys) > 1:
				keys = keys[:1+rng.IntN(len(keys)-1)] // a prefix of the last
			case rng.IntN(2) == 0:
				keys = append(keys, pool[rng.IntN(len(pool))])
			}
			if r > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('{')
			for k, key := range keys {
				if k > 0 {
					b.WriteByte(',')
				}
				colon := ":"
				if rng.IntN(8) == 0 {
					colon = [...]string{" :", ": ", " : "}[rng.IntN(3)]
				}
				fmt.Fprintf(&b, `"%s"%s%d`, key, colon, rng.IntN(100))
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
		in := b.String()
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("document %d does not decode: %v\n%s", doc, err, in)
		}
		want, err := canonical.Stringify(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := canonical.StringifyJSON([]byte(in))
		if err != nil {
			t.Fatalf("document %d: %v\n%s", doc, err, in)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("document %d (-decoded +raw):\n%s\n%s", doc, diff, in)
		}
	}
}
