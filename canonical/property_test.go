package canonical_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
)

// ptrRaw has MarshalJSON on its pointer; its output is JSON text holding
// the string as it is (invalid UTF-8 included), unsorted and spaced.
type ptrRaw string

func (p *ptrRaw) MarshalJSON() ([]byte, error) {
	return []byte(` {"z": "` + string(*p) + `", "a" : 1.50 } `), nil
}

// record is a struct with a field of every kind the generator makes, so
// that encoding/json walks the same things inside a struct as Stringify
// walks outside one.
type record struct {
	P   ptrJSON
	T   []ptrText
	A   [2]both
	AP  *[1]ptrJSON
	M   map[string]ptrText
	K   map[intKey]any
	I   map[int]string
	Any any
	PP  **int
	B   []byte
	N   json.Number
	R   json.RawMessage
	F   float32
	S   string `json:"s,omitempty"`
	U   uint64
	Raw ptrRaw
}

// entropy is where generated values come from: a seeded generator in the
// property test, the fuzzer's bytes in the fuzz target.
type entropy interface{ IntN(n int) int }

// byteEntropy draws from a byte string, then zeros.
type byteEntropy struct{ b []byte }

func (e *byteEntropy) IntN(n int) int {
	x := 0
	for span := n; span > 1 && len(e.b) > 0; span >>= 8 {
		x = x<<8 | int(e.b[0])
		e.b = e.b[1:]
	}
	return x % n
}

// gen makes Go values that encoding/json accepts: no NaN, no cycles, map
// keys whose names are distinct (they may still print the same).
type gen struct{ e entropy }

// textPieces are what generated strings are made of: ASCII, characters
// JSON escapes or JavaScript sorts oddly, and invalid UTF-8 (truncated,
// overlong, surrogate, stray continuation bytes) next to a valid U+FFFD.
var textPieces = []string{
	"a", "b", "Z", "0", " ", "<", "&", "\"", "\\", "\x00", "\x1f", "\x7f",
	"é", "東", "😀", "\ue000", "\u2028", "\ufffd",
	"\xff", "\xfe", "\x82", "\xe2", "\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf", "\xe0\x80",
}

func (g gen) text(pieces []string) string {
	var b strings.Builder
	for range g.e.IntN(6) {
		b.WriteString(pieces[g.e.IntN(len(pieces))])
	}
	return b.String()
}

func (g gen) str() string { return g.text(textPieces) }

// rawSafe is str without what would need escaping inside a JSON string.
func (g gen) rawSafe() ptrRaw {
	return ptrRaw(g.text([]string{"a", "é", "😀", "<", "\xff", "\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80"}))
}

func (g gen) float() float64 {
	switch g.e.IntN(4) {
	case 0:
		return []float64{0, math.Copysign(0, -1), 0.1, 1e21, 1e-7, 123456789012345680, 5e-324, math.MaxFloat64}[g.e.IntN(8)]
	case 1:
		return float64(g.e.IntN(2001)-1000) / 8
	default:
		f := math.Float64frombits(uint64(g.e.IntN(1<<31))<<33 | uint64(g.e.IntN(1<<31)))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 1
		}
		return f
	}
}

func (g gen) float32() float32 {
	if g.e.IntN(2) == 0 {
		return float32(g.e.IntN(2001)-1000) / 8
	}
	f := math.Float32frombits(uint32(g.e.IntN(1<<16))<<16 | uint32(g.e.IntN(1<<16)))
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return 0.1
	}
	return f
}

func (g gen) number() json.Number {
	var b strings.Builder
	if g.e.IntN(3) == 0 {
		b.WriteByte('-')
	}
	fmt.Fprint(&b, []int{0, 1, 9, 12, 9007199254740993}[g.e.IntN(5)])
	if g.e.IntN(2) == 0 {
		b.WriteString([]string{".5", ".50", ".0", ".000001"}[g.e.IntN(4)])
	}
	if g.e.IntN(3) == 0 {
		b.WriteString([]string{"e21", "E+2", "e-7", "e400", "e-400"}[g.e.IntN(5)])
	}
	if g.e.IntN(8) == 0 {
		return "" // encoding/json writes 0
	}
	return json.Number(b.String())
}

func (g gen) raw() json.RawMessage {
	raws := []string{
		`null`, ` { "b" : [1.0, 2E1], "a" : "\u0041\/" } `, `"a` + "\xe2\x82" + `b"`,
		`{"` + "\xff" + `":1,"` + "\xfe" + `":2}`, `[{"z":{"y":1,"x":2}},-0.0]`, `"\ud83d\ude00\ud800"`,
	}
	return json.RawMessage(raws[g.e.IntN(len(raws))])
}

func (g gen) record(depth int) record {
	n := g.e.IntN(100)
	p := &n
	return record{
		P:   ptrJSON{g.e.IntN(10)},
		T:   []ptrText{ptrText(g.str())},
		A:   [2]both{both(g.e.IntN(10)), both(g.e.IntN(10))},
		AP:  &[1]ptrJSON{{g.e.IntN(10)}},
		M:   map[string]ptrText{g.str(): ptrText(g.str())},
		K:   map[intKey]any{intKey(g.e.IntN(10)): g.value(depth - 1)},
		I:   map[int]string{g.e.IntN(20) - 10: g.str()},
		Any: g.value(depth - 1),
		PP:  &p,
		B:   []byte(g.str()),
		N:   g.number(),
		R:   g.raw(),
		F:   g.float32(),
		S:   g.str(),
		U:   uint64(g.e.IntN(1<<62)) << 2,
		Raw: g.rawSafe(),
	}
}

// value returns a value nested at most depth levels.
func (g gen) value(depth int) any {
	kinds := 10
	if depth > 0 {
		kinds = 24
	}
	switch g.e.IntN(kinds) {
	case 0:
		return nil
	case 1:
		return g.e.IntN(2) == 0
	case 2:
		return g.float()
	case 3:
		return []any{int8(g.e.IntN(256) - 128), int64(g.e.IntN(1<<62)) << 1, uint64(g.e.IntN(1<<62)) << 2, myInt(g.e.IntN(9))}[g.e.IntN(4)]
	case 4, 5:
		return g.str()
	case 6:
		return g.number()
	case 7:
		return g.raw()
	case 8:
		return []byte(g.str())
	case 9:
		return g.float32()
	case 10:
		s := make([]any, g.e.IntN(4))
		for i := range s {
			s[i] = g.value(depth - 1)
		}
		return s
	case 11, 12:
		m := map[string]any{}
		for range g.e.IntN(5) {
			m[g.str()] = g.value(depth - 1)
		}
		return m
	case 13:
		return []ptrJSON{{g.e.IntN(10)}, {g.e.IntN(10)}}
	case 14:
		a := [2]ptrText{ptrText(g.str()), ptrText(g.str())}
		return []any{a, &a}
	case 15:
		return map[string][]both{g.str(): {both(g.e.IntN(10))}, g.str(): nil}
	case 16:
		return []record{g.record(depth)}
	case 17:
		r := [2]record{g.record(depth), g.record(depth)}
		return []any{&r, r}
	case 18:
		return map[string]record{g.str(): g.record(depth)}
	case 19:
		r := g.record(depth)
		return []any{r, &r}
	case 20:
		v := g.value(depth - 1)
		p := &v
		return &p
	case 21:
		return map[intKey][1]ptrJSON{intKey(g.e.IntN(10)): {{g.e.IntN(10)}}}
	case 22:
		return &[]ptrRaw{g.rawSafe()}
	default:
		return map[int]any{g.e.IntN(20) - 10: g.value(depth - 1), g.e.IntN(20) + 10: g.str()}
	}
}

// checkMatchesEncodingJSON holds Stringify and Checksum of v to the
// canonical text of v's encoding/json encoding.
func checkMatchesEncodingJSON(t *testing.T, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("the generator made a value encoding/json rejects: %v", err)
	}
	want, err := canonical.StringifyJSON(data)
	if err != nil {
		t.Fatalf("StringifyJSON(%q): %v", data, err)
	}
	got, err := canonical.Stringify(v)
	if err != nil {
		t.Fatalf("Stringify(%#v): %v", v, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Stringify(%#v) differs from encoding/json's %q (-json +Stringify):\n%s", v, data, diff)
	}
	switch v.(type) {
	case []byte, json.RawMessage:
		return // Checksum takes these as JSON text, not as Go values
	}
	sum, err := canonical.Checksum("tool\xe2\x82", v)
	if err != nil {
		t.Fatalf("Checksum: %v", err)
	}
	if wantSum, err := canonical.ChecksumJSON("tool\xe2\x82", data); err != nil || sum != wantSum {
		t.Fatalf("Checksum = %s, ChecksumJSON of the encoding/json text = %s, %v", sum, wantSum, err)
	}
}

// TestStringifyMatchesEncodingJSON checks Stringify(v) ==
// StringifyJSON(json.Marshal(v)) over generated values: invalid UTF-8 in
// strings and keys, pointer-receiver marshalers in slices, arrays, maps
// and structs, nested pointers, numbers of every kind.
func TestStringifyMatchesEncodingJSON(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(1, 2))}
	for i := range 3000 {
		v := g.value(4)
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkMatchesEncodingJSON(t, v) })
	}
}

// FuzzStringifyValue is TestStringifyMatchesEncodingJSON with the values
// built from the fuzzer's bytes.
func FuzzStringifyValue(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x0b\x03\x04\x05\x02\x04\x1a\x10\x11"))
	f.Add([]byte("\x10\x05\x06\x07\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19"))
	f.Add([]byte("\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkMatchesEncodingJSON(t, gen{&byteEntropy{data}}.value(4))
	})
}
