package forge

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzExecute feeds arbitrary argument bytes to typed and untyped tools:
// Execute must never panic and must return either an Output or a coded error.
func FuzzExecute(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"city":"Oslo","days":3}`, `{"a":1,"b":"x"}`, `[]`, `null`, `"x"`, `{"a":`,
		`{"days":1e400}`, `{"city":"\ud800"}`, `{"units":"metric","tags":[null]}`, ` {"a" : 1e-7 } `, `{"a":1}{"a":2}`} {
		f.Add([]byte(s))
	}
	typed := weatherTool(f, nil)
	untyped := mustTool(f, objSchema, echoHandler, nil)
	open := mustTool(f, json.RawMessage(`{"type":"object"}`), echoHandler, nil)
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, tool := range []*Tool{typed, untyped, open} {
			out, err := tool.Execute(context.Background(), raw, Invocation{}, nil)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, ErrInvalidToolArgs) {
					t.Fatalf("%s(%q): uncoded or unexpected error %v", tool.Name(), raw, err)
				}
				continue
			}
			if out.Kind() != OutputText {
				t.Fatalf("%s(%q): output kind %v", tool.Name(), raw, out.Kind())
			}
		}
	})
}

// FuzzDecodeArgs checks the reflection-free argument decoder against
// encoding/json: whenever decodeArgs accepts an input, encoding/json must
// accept it too and produce the same value.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"city":"Oslo","days":3}`, ` {"a" : [1, -0.5e3, true, false, null, {"b":{}}, []]} `,
		`{"a":1,"a":2}`, `{"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}`, `{"s":"\ud800"}`, `{"s":"\udc00\ud800"}`,
		`{"n":1e400}`, `{"n":1e-400}`, `{"n":-0}`, `{"n":01}`, `{"n":1.}`, `{"n":.5}`, `{"n":1e}`, `{"a":1}{"a":2}`,
		`{"a":1,}`, `{"é":"ü"}`, "{\"a\":\"\xff\"}", "{\"a\":\"\x01\"}", `{"a":[1,]}`, `{"a":tru}`, `{"a"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := decodeArgs(raw)
		if !ok {
			return
		}
		var want map[string]any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("decodeArgs accepted %q, encoding/json rejects it: %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeArgs(%q) = %#v, encoding/json gives %#v", raw, got, want)
		}
	})
}
