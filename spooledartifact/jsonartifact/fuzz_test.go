package jsonartifact_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ebbforge/adk/spooledartifact/jsonartifact"
)

// FuzzDetect feeds arbitrary bytes to format detection and every forged
// query: nothing panics, errors are the package's coded ones, and what
// detection accepts is what it claims.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, "{\"a\":1}\n{\"b\":[2]}\n", "{a:1,}", "1\n\n2\r\n", "", "[", "\n\n", `{"a":"\u00e9"}`,
		"{a: 0x1F, b: .5, c: +Infinity}", "// c\n[1,]", "\xff\xfe", `"x"` + "\n" + `{"y":`,
		"\ufeff{\"a\":1}", "\ufeff1\n2\n", "\ufeff{a:1,}", "\ufeff\ufeff1",
	} {
		f.Add([]byte(s), "a")
	}
	f.Add([]byte(`{"items":[{"p":1},{"p":20}]}`), "items.#(p>10)#.p")
	f.Add([]byte("{\"age\":40}\n{\"age\":2}"), "#(age>30)")
	for _, p := range []string{"$.items[?(@.p>1)].p", "$..a", "[a,b]", `$['a\'b'][0]`, `#(a=="[")`, "[", "a.[b,c"} {
		f.Add([]byte(`{"a":[1,{"b":2}]}`), p)
	}
	for _, p := range []string{"[@this,@this]|[@this,@this]", "{a:@this,b:@this}.{a:@this,b:@this}", "[[@this,@this],[@this,@this]]", "a|@tostr|@tostr", "{a,b:[a,a]}"} {
		f.Add([]byte(`{"a":"<\"\\>","b":[1,2]}`), p)
	}
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		format, root, err := jsonartifact.Detect(data)
		switch {
		case err != nil:
			if !errors.Is(err, jsonartifact.ErrUnsupportedFormat) && !errors.Is(err, jsonartifact.ErrTooDeep) {
				t.Fatalf("unexpected error %v", err)
			}
		case format == jsonartifact.FormatJSON || format == jsonartifact.FormatJSON5:
			if !gjson.ValidBytes(root) {
				t.Fatalf("%s root %q is not valid json", format, root)
			}
		case format == jsonartifact.FormatJSONL:
			for _, line := range bytes.Split(bytes.TrimPrefix(data, []byte("\ufeff")), []byte("\n")) {
				if line = bytes.TrimSpace(line); len(line) > 0 && !gjson.ValidBytes(line) {
					t.Fatalf("jsonl with invalid line %q", line)
				}
			}
		default:
			t.Fatalf("format %q", format)
		}
		k := jsonartifact.Kind{MaxMatches: 5, MaxAnswerBytes: 512}
		a := jsonartifact.New("id", newMem(string(data)), k)
		checkPathGrowth(t, a, path)
		for _, m := range k.Methods() {
			out, err := m.Call(context.Background(), a, map[string]any{"path": path, "start": 1.0, "end": 3.0})
			if err == nil && len(out) > 512+300 {
				t.Fatalf("%s: answer of %d bytes escapes the cap", m.Tool, len(out))
			}
		}
	})
}

// checkPathGrowth checks that path, if accepted, gives a value at most 16
// times the record it runs on plus its own text (gjson builds it whole
// before any cap): the fan-out bound of multipaths and @tostr.
func checkPathGrowth(t *testing.T, a *jsonartifact.Artifact, path string) {
	t.Helper()
	ctx := context.Background()
	for rec, err := range a.Records(ctx) {
		if err != nil {
			return
		}
		single := jsonartifact.New("id", newMem(string(rec.Value)), jsonartifact.Kind{Format: jsonartifact.FormatJSON})
		for v, err := range single.Get(ctx, path) {
			if err != nil {
				if !errors.Is(err, jsonartifact.ErrInvalidPath) {
					t.Fatalf("Get(%q): unexpected error %v", path, err)
				}
				return
			}
			if bound := 16 * (len(rec.Value) + len(path) + 16); len(v) > bound {
				t.Fatalf("Get(%q) on a %d-byte record gave %d bytes, above %d", path, len(rec.Value), len(v), bound)
			}
		}
	}
}
