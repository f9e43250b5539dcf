package forge

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fillArgs is a struct of every plain field kind structFill sets.
type fillArgs struct {
	S    string  `json:"s"`
	B    bool    `json:"b,omitempty"`
	F    float64 `json:"f"`
	I    int     `json:"i"`
	I8   int8    `json:"i8"`
	I64  int64   `json:"i64"`
	U    uint    `json:"u"`
	U16  uint16  `json:"u16"`
	N    int     // named by the field
	Dash string  `json:"-,"`
	Skip string  `json:"-"`
	priv int
}

// decodeLikeTyped is the typed tool's decoding without structFill: the raw
// document, with integers spelled with a fraction or exponent respelled.
func decodeLikeTyped(raw []byte) (fillArgs, error) {
	var a fillArgs
	err := json.Unmarshal(raw, &a)
	if err != nil && integralNumberError(err) {
		if plain, changed := plainIntegers(raw); changed {
			a = fillArgs{}
			err = json.Unmarshal(plain, &a)
		}
	}
	return a, err
}

func TestStructFillMatchesDecoding(t *testing.T) {
	f := newStructFill(reflect.TypeFor[fillArgs]())
	if f == nil {
		t.Fatal("newStructFill(fillArgs) = nil")
	}
	tests := []struct {
		raw    string
		filled bool
	}{
		{`{}`, true},
		{`{"s":"x","b":true,"f":1.5,"i":-3,"i8":127,"i64":1e15,"u":7,"u16":65535,"N":4,"-":"d"}`, true},
		{`{"i":1e2,"f":-0}`, true},
		{`{"s":null}`, false},       // left to encoding/json:
		{`{"i":1,"i":null}`, false}, // null keeps the value before it
		{`{"i":10.0,"u":1.50e1}`, true},
		{`{"i8":128}`, false},             // out of range: encoding/json's error
		{`{"u":-1}`, false},               // negative unsigned
		{`{"i":1.5}`, false},              // not an integer
		{`{"i":9007199254740993}`, false}, // float64 may round it
		{`{"i":"1"}`, false},              // wrong type
		{`{"S":"x"}`, false},              // case-folded key
		{`{"Skip":"x"}`, false},           // a key no field takes as written
		{`{"priv":1}`, false},
		{`{"f":1e-7,"s":"\u00e9"}`, true},
	}
	for _, tt := range tests {
		args, err := decodeObject([]byte(tt.raw), nil)
		if err != nil {
			t.Fatalf("decodeObject(%s): %v", tt.raw, err)
		}
		var got fillArgs
		if ok := f.fill(reflect.ValueOf(&got), []byte(tt.raw), args); ok != tt.filled {
			t.Errorf("fill(%s) = %v, want %v", tt.raw, ok, tt.filled)
			continue
		}
		if !tt.filled {
			continue
		}
		want, err := decodeLikeTyped([]byte(tt.raw))
		if err != nil {
			t.Fatalf("fill(%s) succeeded where decoding fails: %v", tt.raw, err)
		}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(fillArgs{})); d != "" {
			t.Errorf("fill(%s) differs from decoding (-want +got):\n%s", tt.raw, d)
		}
	}
}

func TestNewStructFillRefusesOtherShapes(t *testing.T) {
	type inner struct{ A int }
	for _, typ := range []reflect.Type{
		reflect.TypeFor[int](),
		reflect.TypeFor[struct{ P *int }](),
		reflect.TypeFor[struct{ F float32 }](),
		reflect.TypeFor[struct{ L []string }](),
		reflect.TypeFor[struct{ inner }](),
		reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		reflect.TypeFor[struct {
			N int `json:"a b"`
		}](),
		// Two fields of one json name, built at run time (vet refuses
		// the literal).
		reflect.StructOf([]reflect.StructField{
			{Name: "A", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
			{Name: "B", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
		}),
		reflect.TypeFor[struct{ R json.Number }](),
		reflect.TypeFor[struct{ T textField }](),
	} {
		if newStructFill(typ) != nil {
			t.Errorf("newStructFill(%v) != nil", typ)
		}
	}
}

// textField is a string that decodes itself.
type textField string

func (t *textField) UnmarshalText(b []byte) error { *t = textField("<" + string(b) + ">"); return nil }

// FuzzStructFill holds structFill to encoding/json: whenever it fills the
// struct, decoding the raw document gives the same struct.
func FuzzStructFill(f *testing.F) {
	for _, s := range []string{`{}`, `{"s":"x","i":1e2}`, `{"i8":-128,"u16":1.0e3}`, `{"f":0.1,"i64":123456789012345}`,
		`{"i":1,"i":2}`, `{"i":1,"i":null}`, `{"N":null,"-":"y"}`, `{"s":"\ud800"}`, `{"u":4294967296}`} {
		f.Add([]byte(s))
	}
	fill := newStructFill(reflect.TypeFor[fillArgs]())
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || raw[0] != '{' {
			return
		}
		args, err := decodeObject(raw, nil)
		if err != nil {
			return
		}
		var got fillArgs
		if !fill.fill(reflect.ValueOf(&got), raw, args) {
			return
		}
		want, err := decodeLikeTyped(raw)
		if err != nil {
			t.Fatalf("fill(%s) succeeded where decoding fails: %v", raw, err)
		}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(fillArgs{})); d != "" {
			t.Fatalf("fill(%s) differs from decoding (-want +got):\n%s", raw, d)
		}
	})
}
