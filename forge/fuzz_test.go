package forge

import (
	"context"
	"encoding/json"
	"errors"
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
