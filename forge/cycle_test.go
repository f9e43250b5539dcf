package forge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Reference cycles that never descend into the value are refused when the
// tool is built (or, for LazySchema, on first use): validating a value
// against one never ends, and jsonschema-go does not end it short of a
// fatal stack overflow.
func TestInPlaceCycleRefused(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"self $ref", `{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`, "#/properties/a -> #/properties/a"},
		{"through allOf", `{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/properties/a"}]}}}`, "#/properties/a"},
		{"through $defs", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/x"}]}}}`, "#/$defs/x"},
		{"root through oneOf", `{"type":"object","oneOf":[{"$ref":"#"}]}`, "reference cycle"},
		{"through not", `{"type":"object","properties":{"a":{"not":{"$ref":"#/properties/a"}}}}`, "#/properties/a"},
		{"through if", `{"type":"object","properties":{"a":{"if":{"$ref":"#/properties/a"}}}}`, "#/properties/a"},
		{"through then", `{"type":"object","properties":{"a":{"if":true,"then":{"$ref":"#/properties/a"}}}}`, "#/properties/a"},
		{"through else", `{"type":"object","properties":{"a":{"if":false,"else":{"$ref":"#/properties/a"}}}}`, "#/properties/a"},
		{"through dependentSchemas", `{"type":"object","properties":{"a":{"dependentSchemas":{"k":{"$ref":"#/properties/a"}}}}}`, "#/properties/a"},
		{"through $dynamicRef", `{"type":"object","properties":{"a":{"$dynamicAnchor":"n","allOf":[{"$dynamicRef":"#n"}]}}}`, "#/properties/a"},
		{"draft-07 definitions and dependencies", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":true,` +
			`"properties":{"a":{"$ref":"#/definitions/x"}},"definitions":{"x":{"dependencies":{"k":{"$ref":"#/definitions/x"}}}}}`, "#/definitions/x"},
		// Never referenced, but jsonschema-go checks every default.
		{"unreferenced $defs with a default", `{"type":"object","$defs":{"x":{"default":1,"allOf":[{"$ref":"#/$defs/x"}]}}}`, "#/$defs/x"},
		{"escaped property name", `{"type":"object","properties":{"a b%/~":{"allOf":[{"$ref":"#/properties/a%20b%25~1~0"}]}}}`, "reference cycle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewTool("t", "d", json.RawMessage(tt.schema), echoHandler, nil)
			if !errors.Is(err, ErrInvalidInitialToolValue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewTool: got %v, want ErrInvalidInitialToolValue mentioning %q", err, tt.want)
			}
			lazy, err := NewTool("t", "d", json.RawMessage(tt.schema), echoHandler, &ToolOptions{LazySchema: true})
			if err != nil {
				t.Fatalf("NewTool lazy: %v", err)
			}
			if _, err := lazy.Validate(json.RawMessage(`{"a":1}`)); !errors.Is(err, ErrInvalidInitialToolValue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("lazy Validate: got %v, want ErrInvalidInitialToolValue mentioning %q", err, tt.want)
			}
		})
	}
}

// Recursion that descends into the value is fine.
func TestRecursiveSchemaAccepted(t *testing.T) {
	tests := []struct{ name, schema, args string }{
		{"nested through properties", `{"type":"object","additionalProperties":true,"properties":{"child":{"$ref":"#"}}}`, `{"child":{"child":{}}}`},
		{"tree through items", `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},` +
			`"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`, `{"kids":[{"kids":[{}]}]}`},
		{"refs without a loop", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"allOf":[{"$ref":"#/$defs/y"}]},"y":{"type":"integer"}}}`, `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := mustTool(t, json.RawMessage(tt.schema), echoHandler, nil)
			if _, err := tool.Validate(json.RawMessage(tt.args)); err != nil {
				t.Errorf("Validate(%s): %v", tt.args, err)
			}
		})
	}
}

// The diagnostics cut properties loose from the root, where "#" means the
// property itself: a cycle the whole schema does not have. They must not
// hand it to jsonschema-go's Validate.
func TestDiagnosticsAvoidCutLooseCycle(t *testing.T) {
	tool := mustTool(t, json.RawMessage(`{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#"},{"type":"string"}]}}}`), echoHandler, nil)
	_, err := tool.Validate(json.RawMessage(`{"a":1}`))
	if !errors.Is(err, ErrInvalidToolArgs) {
		t.Fatalf("got %v, want ErrInvalidToolArgs", err)
	}
	mentionsAll(t, err, "a")
}

type cycleArgs struct {
	A string `json:"a"`
}

func (cycleArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.Properties["a"] = &jsonschema.Schema{AllOf: []*jsonschema.Schema{{Ref: "#/properties/a"}}}
	return nil
}

func TestTypedToolCycleRefused(t *testing.T) {
	h := func(context.Context, cycleArgs, Invocation) (Output, error) { return TextOutput(""), nil }
	if _, err := NewTypedTool("t", "d", h, nil); !errors.Is(err, ErrInvalidInitialToolValue) || !strings.Contains(err.Error(), "reference cycle") {
		t.Errorf("NewTypedTool: got %v, want a reference cycle refused", err)
	}
	lazy, err := NewTypedTool("t", "d", h, &ToolOptions{LazySchema: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lazy.Execute(context.Background(), json.RawMessage(`{"a":"x"}`), Invocation{}, nil); !errors.Is(err, ErrInvalidInitialToolValue) {
		t.Errorf("lazy Execute: got %v, want ErrInvalidInitialToolValue", err)
	}
}

// FuzzNewToolSchema builds tools from arbitrary schema documents and calls
// them: construction either fails with ErrInvalidInitialToolValue or gives
// a tool whose calls end in a result or a coded error, never a crash (a
// schema looping in place would overflow the stack in jsonschema-go).
func FuzzNewToolSchema(f *testing.F) {
	for _, s := range []string{`{"type":"object"}`, `{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#"},{"type":"string"}]}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"allOf":[{"$ref":"#/$defs/x"}]}}}`,
		`{"type":"object","$defs":{"x":{"default":1,"not":{"$ref":"#/$defs/x"}}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","allOf":[{"$ref":"#"}]}`,
		`{"type":"object","properties":{"a":{"type":"integer","maximum":3},"b":{"$ref":"#/properties/a"}},"required":["a"]}`} {
		f.Add([]byte(s))
	}
	calls := []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"a":1}`), json.RawMessage(`{"a":"x","b":[{}]}`),
		json.RawMessage(`{"a":{"a":{"a":null}},"b":9007199254740993}`)}
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, opts := range []*ToolOptions{nil, {LazySchema: true}} {
			tool, err := NewTool("t", "d", doc, echoHandler, opts)
			if err != nil {
				if !errors.Is(err, ErrInvalidInitialToolValue) {
					t.Fatalf("NewTool: uncoded error %v", err)
				}
				continue
			}
			for _, raw := range calls {
				if _, err := tool.Validate(raw); err != nil && !errors.Is(err, ErrInvalidToolArgs) && !errors.Is(err, ErrInvalidInitialToolValue) {
					t.Fatalf("Validate(%s): uncoded error %v", raw, err)
				}
			}
		}
	})
}
