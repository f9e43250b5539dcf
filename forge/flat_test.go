package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// flatDocs are schema documents of the flat shape, as typed tools derive
// them and as authors write them.
var flatDocs = []string{
	`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`,
	`{"type":"object","properties":{"s":{"type":"string"},"p":{"type":["null","integer"]},"f":{"type":"number"},"u":{"type":"integer","minimum":0,"maximum":255},"bo":{"type":"boolean"}},"required":["p","f","u","bo"],"additionalProperties":false}`,
	`{"additionalProperties":false,"description":"x","properties":{"n":{"default":3,"description":"count","type":"number","minimum":-1.5,"maximum":1e3}},"type":"object"}`,
	`{"type":"object","properties":{"q":{"type":"string"}}}`,
	`{"type":"object","additionalProperties":true,"required":["zz"]}`,
}

// notFlatDocs are documents the fast path leaves to the library.
var notFlatDocs = []string{
	`{"type":"object","properties":{"a":{"type":"string","enum":["x"]}}}`,
	`{"type":"object","properties":{"a":{"type":"string","pattern":"^a"}}}`,
	`{"type":"object","properties":{"a":{"type":"string","maxLength":3}}}`,
	`{"type":"object","properties":{"a":{"type":"array"}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","multipleOf":2}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","maximum":9007199254740993}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":0}}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":true}}`,
	`{"type":"object","properties":{"a":{}}}`,
	`{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"integer"}}}`,
	`{"type":"object","properties":{"\u0061":{"type":"string"}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
	`{"type":"object","additionalProperties":{"type":"string"}}`,
	`{"type":"object","patternProperties":{"^a":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`,
	`{"type":"object","minProperties":1}`,
	`{"type":["object"]}`,
}

func TestFlatObjectShapes(t *testing.T) {
	for _, doc := range flatDocs {
		if _, err := compileSchema(json.RawMessage(doc)); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if newFlatObject([]byte(doc)) == nil {
			t.Errorf("no fast path for %s", doc)
		}
	}
	for _, doc := range notFlatDocs {
		if newFlatObject([]byte(doc)) != nil {
			t.Errorf("fast path for %s", doc)
		}
	}
	type plain struct {
		A int     `json:"a"`
		S string  `json:"s,omitempty"`
		P *int    `json:"p"`
		F float64 `json:"f"`
		U uint8   `json:"u"`
		B bool    `json:"b"`
	}
	tool, err := NewTypedTool("plain", "d", func(ctx context.Context, a plain, inv Invocation) (Output, error) {
		return TextOutput("ok"), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tool.v.flat == nil {
		t.Errorf("no fast path for the typed tool's schema %s", tool.Schema())
	}
}

// TestFlatObjectAgreesWithLibrary runs the fast path and the library on
// arguments around every edge the fast path decides.
func TestFlatObjectAgreesWithLibrary(t *testing.T) {
	args := []string{`{}`, `{"a":1,"b":2}`, `{"a":1.5,"b":2}`, `{"a":1e2,"b":-0}`, `{"a":"1","b":2}`, `{"a":null,"b":2}`,
		`{"a":1,"b":2,"c":3}`, `{"a":1}`, `{"s":"x","p":null,"f":0.1,"u":255,"bo":true}`, `{"s":"x","p":1,"f":1,"u":256,"bo":true}`,
		`{"s":"x","p":1,"f":1,"u":-1,"bo":false}`, `{"s":1,"p":1,"f":1,"u":0,"bo":false}`, `{"s":"","p":1,"f":1,"u":0,"bo":false}`,
		`{"n":-1.5}`, `{"n":-1.50000001}`, `{"n":1000}`, `{"n":1000.0000001}`, `{"n":true}`, `{"q":{"x":1}}`, `{"zz":[1]}`,
		`{"a":1e300,"b":2}`, `{"a":123456789012345678901234567890,"b":2}`}
	for _, doc := range flatDocs {
		for _, a := range args {
			checkFlatAgainstLibrary(t, doc, a)
		}
	}
}

// checkFlatAgainstLibrary fails when the fast path calls args valid and
// the library does not, or, for scalar members (the ones the fast path
// decides), the other way round.
func checkFlatAgainstLibrary(t *testing.T, doc, args string) {
	t.Helper()
	check, err := compileSchema(json.RawMessage(doc))
	if err != nil {
		return
	}
	f := newFlatObject([]byte(doc))
	b := bytes.TrimSpace([]byte(args))
	if f == nil || len(b) == 0 || b[0] != '{' {
		return
	}
	m, err := decodeObject(b, nil)
	if err != nil {
		return
	}
	fast, lib := f.valid(m), check.Validate(m) == nil
	if fast && !lib {
		t.Fatalf("fast path accepts what the library refuses: %s against %s", args, doc)
	}
	scalars := true
	for _, v := range m {
		switch v.(type) {
		case map[string]any, []any:
			scalars = false
		}
	}
	if lib && scalars && !fast {
		t.Errorf("fast path refuses what the library accepts: %s against %s", args, doc)
	}
}

// FuzzFlatObject holds the fast path to the library on arbitrary schema
// documents and arguments.
func FuzzFlatObject(f *testing.F) {
	for _, doc := range append(append([]string{}, flatDocs...), notFlatDocs...) {
		f.Add(doc, `{"a":1,"b":2}`)
		f.Add(doc, `{"s":"x","p":null,"f":0.5,"u":7,"bo":true,"n":3}`)
	}
	f.Fuzz(func(t *testing.T, doc, args string) {
		checkFlatAgainstLibrary(t, doc, args)
	})
}
