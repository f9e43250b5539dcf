package canonical_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ebbforge/adk/canonical"
)

// FuzzStringifyJSON checks, for any input: no panic; a typed error or output
// that is valid JSON and a fixed point; agreement with Stringify of the
// encoding/json decoding wherever that decoding is lossless; agreement of
// every entry point.
func FuzzStringifyJSON(f *testing.F) {
	for _, name := range []string{"vectors.jsonl", "generated.jsonl"} {
		for i, v := range loadVectors(f, name) {
			if name == "generated.jsonl" && i%5 != 0 {
				continue // a sample keeps the seed corpus quick
			}
			f.Add(v.input(f))
		}
	}
	f.Add([]byte("\"\xe2\x82\""))
	f.Add([]byte(`{"\ud800":1,"😀":2,"\ue000":3}`))
	f.Add([]byte(`{"prefix__b":1,"prefix__a\u0062":2,"prefix__a": 3,"prefix__\ud83d\ude00":4,"prefix__\ue000":5,"prefix__b":6}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := canonical.StringifyJSON(data)
		if err != nil {
			if !errors.Is(err, canonical.ErrInvalidJSON) && !errors.Is(err, canonical.ErrLimit) {
				t.Fatalf("untyped error %v", err)
			}
			if json.Valid(data) && !errors.Is(err, canonical.ErrLimit) {
				t.Fatalf("rejected valid JSON %q: %v", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if !json.Valid([]byte(got)) || !utf8.ValidString(got) {
			t.Fatalf("output %q of %q is not valid JSON", got, data)
		}
		again, err := canonical.StringifyJSON([]byte(got))
		if err != nil || again != got {
			t.Fatalf("not a fixed point: %q -> %q (%v)", got, again, err)
		}
		var w bytes.Buffer
		if err := canonical.WriteJSON(&w, data); err != nil || w.String() != got {
			t.Fatalf("WriteJSON = %q, %v; want %q", w.String(), err, got)
		}
		if utf8.Valid(data) && !strings.Contains(got, `\ud`) {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("encoding/json rejects %q: %v", data, err)
			}
			s, err := canonical.Stringify(v)
			if err != nil || s != got {
				t.Fatalf("Stringify(decoded %q) = %q, %v; want %q", data, s, err, got)
			}
		}
	})
}

// FuzzRepeatedElements checks that an array's elements canonicalise as
// they do alone, whatever came before them. Each input is split in two documents a and b; [a,b,a,a] must
// canonicalise as its parts do.
func FuzzRepeatedElements(f *testing.F) {
	f.Add([]byte(`{"b":1,"a":2}`), []byte(`{"b":3,"ab":4}`))
	f.Add([]byte(`{"id":1,"name":"x","score":1.50}`), []byte(`{"id":2,"name":"y"}`))
	f.Add([]byte(`{"a":1,"b":{"d":1,"c":2}}`), []byte(`{"a":1,"b":{"d":1,"c":2,"c":3}}`))
	f.Add([]byte(`{"abcdefg":1,"zzzzzz" :2}`), []byte(`{"abcdefgh":1,"zzzzzz": 2}`))
	f.Add([]byte(`[{"x":1,"w":2},{"x":3,"w":4}]`), []byte(`{"\u0078":1,"w":2}`))
	f.Add([]byte(`{"b":1,"c":2,"a":3}`), []byte(`{"b":1,"c":2,"bb":3}`)) // only the last key differs
	f.Add([]byte(`{"p":0,"o":0,"n":0,"m":0,"l":0,"k":0,"j":0,"i":0,"h":0,"g":0,"f":0,"e":0,"d":0,"c":0,"b":0,"a":0}`),
		[]byte(`{"q":0,"p":0,"o":0,"n":0,"m":0,"l":0,"k":0,"j":0,"i":0,"h":0,"g":0,"f":0,"e":0,"d":0,"c":0,"b":0,"a":0}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ca, errA := canonical.StringifyJSON(a)
		cb, errB := canonical.StringifyJSON(b)
		if errA != nil || errB != nil {
			return
		}
		doc := bytes.Join([][]byte{a, b, a, a}, []byte(","))
		got, err := canonical.StringifyJSON(append(append([]byte("["), doc...), ']'))
		want := "[" + strings.Join([]string{ca, cb, ca, ca}, ",") + "]"
		if errors.Is(err, canonical.ErrLimit) {
			return // a or b was nested as deep as allowed
		}
		if err != nil || got != want {
			t.Fatalf("[a,b,a,a] = %q, %v; want %q\na = %q\nb = %q", got, err, want, a, b)
		}
	})
}

// FuzzStringifyString checks Go strings (any bytes): they print as their
// encoding/json encoding does, as values, map keys, struct fields and tool
// names alike, and as the raw path prints their bytes wherever the two
// replacement rules agree (valid UTF-8).
func FuzzStringifyString(f *testing.F) {
	f.Add("plain")
	f.Add("a\xe2\x82b\xff\xed\xa0\x80")
	f.Add("\u2028<&>\x00\x1f\x7f")
	f.Add("\xf0\x9f\x98\xef\xbf\xbd")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := canonical.Stringify(s)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid([]byte(got)) || !utf8.ValidString(got) {
			t.Fatalf("invalid output %q", got)
		}
		again, err := canonical.StringifyJSON([]byte(got))
		if err != nil || again != got {
			t.Fatalf("not a fixed point: %q -> %q (%v)", got, again, err)
		}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if viaJSON, err := canonical.StringifyJSON(data); err != nil || viaJSON != got {
			t.Fatalf("encoding/json path %q = %q, %v; Stringify = %q", data, viaJSON, err, got)
		}
		in := map[string]any{
			"map":    map[string]string{s: s},
			"struct": struct{ Q string }{s},
		}
		want := `{"map":{` + got + ":" + got + `},"struct":{"Q":` + got + "}}"
		if m, err := canonical.Stringify(in); err != nil || m != want {
			t.Fatalf("in containers: %q, %v; want %q", m, err, want)
		}
		tool := sha256.Sum256([]byte(`{"args":null,"tool":` + got + "}"))
		if sum, err := canonical.Checksum(s, nil); err != nil || sum != hex.EncodeToString(tool[:]) {
			t.Fatalf("Checksum with tool %q: %s, %v", s, sum, err)
		}
		if !utf8.ValidString(s) {
			return
		}
		// A valid string's bytes inside quotes (escaping only what JSON
		// needs) canonicalise to the same text.
		var raw bytes.Buffer
		raw.WriteByte('"')
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\':
				raw.WriteByte('\\')
				raw.WriteByte(c)
			case c < 0x20:
				raw.WriteString(`\u00`)
				raw.WriteByte("0123456789abcdef"[c>>4])
				raw.WriteByte("0123456789abcdef"[c&0xf])
			default:
				raw.WriteByte(c)
			}
		}
		raw.WriteByte('"')
		fromRaw, err := canonical.StringifyJSON(raw.Bytes())
		if err != nil || fromRaw != got {
			t.Fatalf("raw path %q = %q, %v; Stringify = %q", raw.Bytes(), fromRaw, err, got)
		}
	})
}
