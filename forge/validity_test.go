package forge

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// TestExternalRefRefused: a $ref outside the schema never reads a file,
// even one that exists, and the tool is not built.
func TestExternalRefRefused(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"file://" + filepath.ToSlash(other), other, "https://example.invalid/s.json"} {
		doc, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": ref}}})
		if _, err := compileSchema(doc); err == nil {
			t.Errorf("compileSchema with $ref %q: no error", ref)
		}
		_, err := NewTool("t", "d", doc, echoHandler, nil)
		if !errors.Is(err, ErrInvalidInitialToolValue) {
			t.Errorf("NewTool with $ref %q: error %v, want ErrInvalidInitialToolValue", ref, err)
		}
	}
}

// TestLocalRefResolved: references inside the document still work.
func TestLocalRefResolved(t *testing.T) {
	doc := json.RawMessage(`{"type":"object","$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`)
	tool := mustTool(t, doc, echoHandler, nil)
	if _, err := tool.Validate(json.RawMessage(`{"a":2}`)); err != nil {
		t.Fatalf("valid arguments refused: %v", err)
	}
	if _, err := tool.Validate(json.RawMessage(`{"a":"2"}`)); !errors.Is(err, ErrInvalidToolArgs) {
		t.Fatalf("string for an integer $ref: error %v, want ErrInvalidToolArgs", err)
	}
}

// TestDiagnoseReadsTheCompiledReport: the explanation comes from the
// deciding validator's report alone; jsonschema-go's view of the schema
// (here one that accepts anything) plays no part in it.
func TestDiagnoseReadsTheCompiledReport(t *testing.T) {
	open, err := (&jsonschema.Schema{Type: "object"}).Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	strict, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{"b/c":{"type":"string"}}},"n":{"minimum":3}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := &validator{root: open, check: strict}
	args := map[string]any{"a": map[string]any{"b/c": 5.0}, "n": 1.0}
	checkErr := strict.Validate(args)
	if checkErr == nil {
		t.Fatal("compiled schema accepted bad arguments")
	}
	want := []string{`a.b/c: type: 5 has type "integer", want "string"`, `n: minimum: 1 is less than 3`}
	if diff := cmp.Diff(want, v.diagnose(args, checkErr)); diff != "" {
		t.Errorf("diagnose (-want +got):\n%s", diff)
	}
}

// TestValidatorsAgree holds the deciding validator to jsonschema-go's verdict
// on a spread of schemas and arguments, so that switching validators changed
// no tool's behaviour.
func TestValidatorsAgree(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":0}},"required":["city"],"additionalProperties":false}`,
		`{"type":"object","properties":{"units":{"enum":["metric","imperial"]},"n":{"type":"number","exclusiveMaximum":10,"multipleOf":0.5}}}`,
		`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","minLength":2},"maxItems":2,"uniqueItems":true}}}`,
		`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":["integer","null"]}},"required":["x"]}}}`,
		`{"type":"object","patternProperties":{"^x_":{"type":"boolean"}},"additionalProperties":false}`,
		`{"type":"object","allOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":{"const":"k"}}}],"unevaluatedProperties":false}`,
		`{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}]}`,
		`{"type":"object","$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"a":{"$ref":"#/$defs/pos"},"s":{"type":"string","pattern":"^[a-z]+$","maxLength":4}}}`,
		`{"type":"object","properties":{"a":{"not":{"type":"string"}},"b":{"if":{"type":"integer"},"then":{"minimum":5},"else":{"type":"string"}}}}`,
		`{"type":"object","minProperties":1,"maxProperties":2,"propertyNames":{"maxLength":3},"dependentRequired":{"a":["b"]}}`,
		`{"type":"object","properties":{"e":{"type":"string","format":"email"},"d":{"format":"date-time"},"c":{"contentEncoding":"base64"}}}`,
		`{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"integer"}],"items":false,"contains":{"const":1},"maxContains":1}}}`,
	}
	instances := []string{
		`{}`, `{"city":"Oslo"}`, `{"city":"Oslo","days":3}`, `{"city":"Oslo","days":3.0}`, `{"city":"Oslo","days":3.5}`,
		`{"city":"Oslo","days":-1}`, `{"city":5}`, `{"days":"3"}`, `{"city":"Oslo","zz":1}`, `{"units":"metric","n":9.5}`,
		`{"units":"kelvin"}`, `{"n":10}`, `{"n":9.3}`, `{"tags":["ab","cd"]}`, `{"tags":["ab","ab"]}`, `{"tags":["a"]}`,
		`{"tags":["ab","cd","ef"]}`, `{"o":{"x":null}}`, `{"o":{"x":1.5}}`, `{"o":{}}`, `{"x_a":true}`, `{"x_a":1}`, `{"y":true}`,
		`{"a":1,"b":"k"}`, `{"a":1,"b":"j"}`, `{"a":1,"b":"k","c":0}`, `{"a":1}`, `{"b":1}`, `{"a":1,"b":2}`,
		`{"a":0,"s":"abc"}`, `{"a":2,"s":"ABC"}`, `{"a":2,"s":"abcde"}`, `{"a":"x"}`, `{"b":4}`, `{"b":6}`, `{"b":"s"}`, `{"b":true}`,
		`{"abcd":1}`, `{"a":1,"b":2,"c":3}`, `{"e":"not an email"}`, `{"e":"a@b.c","d":"yesterday"}`, `{"c":"%%%"}`,
		`{"a":[1]}`, `{"a":[1,1]}`, `{"a":[2]}`, `{"a":["x"]}`, `{"a":[]}`,
	}
	for si, doc := range schemas {
		tool := mustTool(t, json.RawMessage(doc), echoHandler, nil)
		v := tool.v
		for _, in := range instances {
			var args map[string]any
			if err := json.Unmarshal([]byte(in), &args); err != nil {
				t.Fatal(err)
			}
			checkErr, rootErr := v.check.Validate(args), v.root.Validate(args)
			if (checkErr == nil) != (rootErr == nil) {
				t.Errorf("schema %d, arguments %s: compiled says %v, jsonschema-go says %v", si, in, checkErr, rootErr)
			}
		}
	}
}

// FuzzCompileSchema: any schema document compiles or fails with an error,
// never a panic, and a compiled schema validates decoded arguments without
// one.
func FuzzCompileSchema(f *testing.F) {
	for _, s := range []string{`{"type":"object"}`, `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"integer"}}}`,
		`{"$ref":"#"}`, `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}]}`, `{"pattern":"("}`, `{"$id":"x","$anchor":"a"}`,
		`{"$dynamicRef":"#meta","$dynamicAnchor":"meta"}`, `{"format":"regex"}`, `[]`, `true`, `{"enum":[]}`} {
		f.Add([]byte(s))
	}
	args := map[string]any{"a": 1.0, "b": "x", "c": []any{true, nil}, "d": map[string]any{"e": 2.5}}
	f.Fuzz(func(t *testing.T, doc []byte) {
		s, err := compileSchema(doc)
		if err == nil {
			_ = s.Validate(args)
		}
	})
}
