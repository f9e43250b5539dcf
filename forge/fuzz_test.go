package forge

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"
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
	open := mustTool(f, json.RawMessage(`{"type":"object","additionalProperties":true}`), echoHandler, nil)
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

// FuzzPlainInteger checks plainInteger against exact rational arithmetic:
// whatever it respells has the same value, in plain digits, and it respells
// every integer of up to 20 digits written with a fraction or exponent.
func FuzzPlainInteger(f *testing.F) {
	for _, s := range []string{"1e2", "-1.50e1", "0.0", "1e-1", "9007199254740.993e3", "1e20", "100", "-0e5", "1.000e+003"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		var n json.Number
		if json.Unmarshal([]byte(lit), &n) != nil || string(n) != lit || len(lit) > 64 {
			return // only JSON number literals, kept small for big.Rat
		}
		if i := strings.IndexAny(lit, "eE"); i >= 0 {
			if e, err := strconv.Atoi(lit[i+1:]); err != nil || e < -1000 || e > 1000 {
				if _, done := plainInteger(lit); done && strings.Trim(lit[:i], "-0.") != "" {
					t.Fatalf("plainInteger(%q) respelled a number past its exponent range", lit)
				}
				return
			}
		}
		want, ok := new(big.Rat).SetString(lit)
		if !ok {
			t.Fatalf("big.Rat cannot parse %q", lit)
		}
		got, done := plainInteger(lit)
		if !done {
			plain := !strings.ContainsAny(lit, ".eE")
			if want.IsInt() && !plain && len(strings.TrimPrefix(want.Num().String(), "-")) <= 20 {
				t.Fatalf("plainInteger(%q) declined an integer %s", lit, want.Num())
			}
			return
		}
		if strings.ContainsAny(got, ".eE+") {
			t.Fatalf("plainInteger(%q) = %q, not plain digits", lit, got)
		}
		if r, ok := new(big.Rat).SetString(got); !ok || r.Cmp(want) != 0 {
			t.Fatalf("plainInteger(%q) = %q, value differs", lit, got)
		}
	})
}

// FuzzClosedRoot: for a valid JSON document closedRoot returns it
// unchanged, or that object with exactly one more root key
// (additionalProperties or unevaluatedProperties, false) that it lacked,
// added exactly when the root had none of the three keywords; invalid
// input must not panic.
func FuzzClosedRoot(f *testing.F) {
	for _, s := range []string{`{}`, ` { "type" : "object" } `, `{"type":"object","additionalProperties":true}`,
		`{"allOf":[{}]}`, `[1]`, `{"a":`, `{"properties":{"additionalProperties":{}}}`, `{"a":1}{}`,
		`{"additional\u0050roperties":true}`, `{"d":"\"additionalProperties\"","x":[{"a":"}"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		in := string(doc)
		got := closedRoot(doc)
		if string(doc) != in {
			t.Fatalf("closedRoot changed its input")
		}
		if !json.Valid(doc) {
			return
		}
		var before map[string]json.RawMessage
		isObject := json.Unmarshal(doc, &before) == nil && before != nil
		speaks := false
		for _, k := range []string{"additionalProperties", "patternProperties", "unevaluatedProperties"} {
			if _, ok := before[k]; ok {
				speaks = true
			}
		}
		if !isObject || speaks {
			if string(got) != in {
				t.Fatalf("closedRoot(%q) = %q, want it unchanged", in, got)
			}
			return
		}
		var after map[string]json.RawMessage
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("closedRoot(%q) = %q: %v", in, got, err)
		}
		if len(after) != len(before)+1 || string(after["additionalProperties"])+string(after["unevaluatedProperties"]) != "false" {
			t.Fatalf("closedRoot(%q) = %q: want exactly one closing key more", in, got)
		}
	})
}
