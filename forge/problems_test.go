package forge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestProblemsNameEveryField holds the wording of argument errors: one
// problem per fault, each naming the argument at fault the way the model
// wrote it (never a place inside the schema), in document order.
func TestProblemsNameEveryField(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               []string
	}{
		{"every bad member of a nested object",
			`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"string"}}}}}`,
			`{"o":{"x":1,"y":2}}`,
			[]string{`o.x: type: 1 has type "integer", want "string"`, `o.y: type: 2 has type "integer", want "string"`}},
		{"$ref property named, not its $defs",
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/d"}},"$defs":{"d":{"type":"string"}}}`,
			`{"a":1}`,
			[]string{`a: type: 1 has type "integer", want "string"`}},
		{"property called items",
			`{"type":"object","properties":{"o":{"type":"object","properties":{"items":{"type":"string"}}}}}`,
			`{"o":{"items":1}}`,
			[]string{`o.items: type: 1 has type "integer", want "string"`}},
		{"additionalProperties schema names the key",
			`{"type":"object","additionalProperties":{"type":"string"}}`,
			`{"key1":1,"key2":"ok","key3":true}`,
			[]string{`key1: type: 1 has type "integer", want "string"`, `key3: type: true has type "boolean", want "string"`}},
		{"patternProperties names the key",
			`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
			`{"xa":1}`,
			[]string{`xa: type: 1 has type "integer", want "string"`}},
		{"every allOf branch, no branch index, no false unknown keys",
			`{"type":"object","allOf":[{"properties":{"x":{"type":"string"}}},{"properties":{"y":{"type":"string"}}}]}`,
			`{"x":1,"y":2}`,
			[]string{`x: type: 1 has type "integer", want "string"`, `y: type: 2 has type "integer", want "string"`}},
		{"root $ref: the really unknown key only",
			`{"type":"object","$ref":"#/$defs/x","$defs":{"x":{"properties":{"a":{"type":"integer"},"b":{}},"required":["b"]}}}`,
			`{"a":"s","zz":1}`,
			[]string{`a: type: "s" has type "string", want "integer"`, `required: missing properties: ["b"]`, `unexpected additional properties ["zz"]`}},
		{"root $id adds nothing",
			`{"$id":"urn:x:","type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string"}}}},"minProperties":3}`,
			`{"o":{"a":1},"b":1}`,
			[]string{`o.a: type: 1 has type "integer", want "string"`, `minProperties: the object has 2 properties, fewer than 3`,
				`unexpected additional properties ["b"]`}},
		{"null shown as null",
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"enum":["x"]}}}`,
			`{"a":null,"b":null}`,
			[]string{`a: type: null has type "null", want "string"`, `b: enum: null is not one of "x"`}},
		{"keys that are not plain names are quoted",
			`{"type":"object","properties":{"a.b":{"type":"string"},"":{"type":"string"},"c d":{"type":"string"}}}`,
			`{"a.b":1,"":2,"c d":3}`,
			[]string{`[""]: type: 2 has type "integer", want "string"`, `["a.b"]: type: 1 has type "integer", want "string"`,
				`["c d"]: type: 3 has type "integer", want "string"`}},
		{"array items by index, numerically",
			`{"type":"object","properties":{"t":{"type":"array","items":{"type":"string","minLength":2},"maxItems":11}}}`,
			`{"t":["a","bb","c","dd","ee","ff","gg","hh","ii","jj","k","ll"]}`,
			[]string{`t[0]: minLength: "a" has 1 character, fewer than 2`, `t[2]: minLength: "c" has 1 character, fewer than 2`,
				`t[10]: minLength: "k" has 1 character, fewer than 2`, `t: maxItems: the array has 12 items, more than 11`}},
		{"object after its members, root last",
			`{"type":"object","properties":{"city":{"type":"string"},"o":{"type":"object","properties":{"x":{"type":"integer"}},"required":["y"],"additionalProperties":false}},"required":["city"],"additionalProperties":false}`,
			`{"o":{"x":"1","z":0},"zz":1,"aa":2}`,
			[]string{`o.x: type: "1" has type "string", want "integer"`, `o: required: missing properties: ["y"]`,
				`o: unexpected additional properties ["z"]`, `required: missing properties: ["city"]`, `unexpected additional properties ["aa" "zz"]`}},
		{"nullable type merged",
			`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]},"b":{"type":["null","integer"]}}}`,
			`{"a":5,"b":1.5}`,
			[]string{`a: type: 5 has type "integer", want "string" or "null"`, `b: type: 1.5 has type "number", want "integer" or "null"`}},
		{"anyOf: the alternative of the value's type explains",
			`{"type":"object","properties":{"o":{"anyOf":[{"type":"null"},{"type":"object","properties":{"x":{"type":"string"}}}]}}}`,
			`{"o":{"x":1}}`,
			[]string{`o.x: type: 1 has type "integer", want "string"`}},
		{"oneOf: none matches",
			`{"type":"object","properties":{"a":{},"b":{}},"oneOf":[{"required":["a"]},{"required":["b"]}]}`,
			`{}`,
			[]string{`oneOf: matches none of the alternatives: (required: missing properties: ["a"]) or (required: missing properties: ["b"])`}},
		{"oneOf: more than one matches",
			`{"type":"object","properties":{"a":{},"b":{}},"oneOf":[{"required":["a"]},{"required":["b"]}]}`,
			`{"a":1,"b":2}`,
			[]string{`oneOf: matches more than one alternative, want exactly one`}},
		{"numbers as written",
			`{"type":"object","properties":{"a":{"minimum":0},"b":{"exclusiveMaximum":10},"c":{"multipleOf":0.5},"d":{"maximum":2.5}}}`,
			`{"a":-1,"b":10,"c":9.3,"d":3}`,
			[]string{`a: minimum: -1 is less than 0`, `b: exclusiveMaximum: 10 is not less than 10`, `c: multipleOf: 9.3 is not a multiple of 0.5`,
				`d: maximum: 3 is greater than 2.5`}},
		{"strings",
			`{"type":"object","properties":{"e":{"enum":["metric","imperial"]},"c":{"const":{"k":1}},"p":{"pattern":"^[a-z]+$","maxLength":4}}}`,
			`{"e":"kelvin","c":{"k":2},"p":"ABCDE"}`,
			[]string{`c: const: {"k":2} is not {"k":1}`, `e: enum: "kelvin" is not one of "metric", "imperial"`,
				`p: maxLength: "ABCDE" has 5 characters, more than 4`, `p: pattern: "ABCDE" does not match "^[a-z]+$"`}},
		{"if/then/else and not",
			`{"type":"object","properties":{"a":{"not":{"type":"string"}},"b":{"if":{"type":"integer"},"then":{"minimum":5},"else":{"type":"string"}}}}`,
			`{"a":"x","b":4}`,
			[]string{`a: not: the value matches the schema under not`, `b: minimum: 4 is less than 5`}},
		{"object keywords",
			`{"type":"object","additionalProperties":true,"maxProperties":2,"propertyNames":{"maxLength":3},"dependentRequired":{"a":["b"]}}`,
			`{"abcd":1,"a":1,"c":3}`,
			[]string{`dependentRequired: missing properties: ["b"] (required when "a" is present)`, `maxProperties: the object has 3 properties, more than 2`,
				`propertyNames: "abcd" is not an allowed property name: maxLength: "abcd" has 4 characters, more than 3`}},
		{"array keywords",
			`{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"integer"}],"items":false,"uniqueItems":true,"contains":{"const":1},"maxContains":1}}}`,
			`{"a":[1,1]}`,
			[]string{`a[1]: unexpected item: the array has more items than the schema allows`, `a: maxContains: 2 items match the schema under contains, more than 1`,
				`a: uniqueItems: items 0 and 1 are equal`}},
		{"a false property",
			`{"type":"object","properties":{"a":false}}`,
			`{"a":1}`,
			[]string{`a: not allowed: the schema allows no value here`}},
		{"long values shortened",
			`{"type":"object","properties":{"a":{"type":"integer"}}}`,
			`{"a":"` + strings.Repeat("é", 40) + `"}`,
			[]string{`a: type: "` + strings.Repeat("é", 31) + `…" has type "string", want "integer"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := mustTool(t, json.RawMessage(tt.schema), echoHandler, nil)
			for range 3 { // the validator walks maps: the text must not depend on their order
				_, err := tool.Validate(json.RawMessage(tt.args))
				if diff := cmp.Diff(tt.want, problemsOf(t, err)); diff != "" {
					t.Fatalf("Validate(%s) problems (-want +got):\n%s", tt.args, diff)
				}
			}
		})
	}
}

// TestProblemsRefCycle: arguments refused under a schema whose $ref points
// back at itself are explained, not a crash (the explanation once re-ran
// jsonschema-go, whose validator recursed until the stack overflowed).
// Rejecting such a schema at construction would do as well.
func TestProblemsRefCycle(t *testing.T) {
	tool, err := NewTool("t", "d", json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`), echoHandler, nil)
	if err != nil {
		return
	}
	_, err = tool.Validate(json.RawMessage(`{"a":1,"b":2}`))
	mentionsAll(t, err, "a: ", `unexpected additional properties ["b"]`)
}

// TestProblemsBounded: a refusal lists at most maxProblems problems, the
// last one counting those left out.
func TestProblemsBounded(t *testing.T) {
	tool := mustTool(t, json.RawMessage(`{"type":"object","properties":{"t":{"type":"array","items":{"type":"string"}}}}`), echoHandler, nil)
	items := make([]string, 80)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	_, err := tool.Validate(json.RawMessage(`{"t":[` + strings.Join(items, ",") + `]}`))
	got := problemsOf(t, err)
	if len(got) != maxProblems {
		t.Fatalf("%d problems, want %d", len(got), maxProblems)
	}
	if want := `t[48]: type: 48 has type "integer", want "string"`; got[maxProblems-2] != want {
		t.Errorf("problem %d = %q, want %q", maxProblems-2, got[maxProblems-2], want)
	}
	if want := "and 31 more problems"; got[maxProblems-1] != want {
		t.Errorf("last problem = %q, want %q", got[maxProblems-1], want)
	}
}

func TestFieldName(t *testing.T) {
	root := map[string]any{"a": []any{map[string]any{"b": 1.0}}, "x.y": map[string]any{"": 1.0}}
	tests := []struct {
		at   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "0", "b"}, "a[0].b"},
		{[]string{"a", "7"}, "a[7]"},
		{[]string{"x.y", ""}, `["x.y"][""]`},
		{[]string{"b/c", "d~e"}, "b/c.d~e"},
		{[]string{"é", "k:v", "q\"", "t\n"}, `é["k:v"]["q\""]["t\n"]`},
	}
	for _, tt := range tests {
		if got := fieldName(root, tt.at); got != tt.want {
			t.Errorf("fieldName(%q) = %q, want %q", tt.at, got, tt.want)
		}
	}
}

// FuzzProblems: whatever the arguments, a refusal names at least one and at
// most maxProblems problems, the same ones every time, in the argument's
// terms: no schema-internal place, no Go rendering of a value.
func FuzzProblems(f *testing.F) {
	schemas := []string{
		`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"string"},"items":{"type":"array","items":{"type":"integer","minimum":0}}},"required":["x"]}},"additionalProperties":{"type":"string","maxLength":3}}`,
		`{"$id":"urn:t:","type":"object","$ref":"#/$defs/x","$defs":{"x":{"properties":{"a":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/y"}]},"b":{"enum":[1,"1",null]}},"required":["b"]},"y":{"type":"object","properties":{"n":{"type":"number","multipleOf":0.5}},"additionalProperties":false}}}`,
		`{"type":"object","allOf":[{"properties":{"x":{"type":"string"}}},{"properties":{"y":{"type":"array","prefixItems":[{"type":"boolean"}],"items":false,"uniqueItems":true}}}],"oneOf":[{"required":["x"]},{"required":["y"]}]}`,
		`{"type":"object","patternProperties":{"^p":{"type":"integer"}},"propertyNames":{"maxLength":4},"minProperties":1,"dependentRequired":{"pa":["pb"]}}`,
	}
	var tools []*Tool
	for _, s := range schemas {
		tools = append(tools, mustTool(f, json.RawMessage(s), echoHandler, nil))
	}
	for _, s := range []string{`{}`, `{"o":{"x":1,"items":[1,-1,"a"]},"k":"long","z":null}`, `{"a":{"n":0.3,"m":1},"b":2,"zz":[]}`,
		`{"a":null,"b":"1"}`, `{"x":1,"y":[true,true,1]}`, `{"x":"a","y":[]}`, `{"pa":1,"pppppp":"x","q":{}}`, `{"":{"":[null]}}`} {
		f.Add([]byte(s))
	}
	banned := []string{"<invalid", "map[", "$defs", "allOf.", "anyOf.", "oneOf.", "patternProperties.", "additionalProperties.", "mem:", "urn:", "do not match the schema"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || len(raw) == 0 || raw[0] != '{' {
			return
		}
		for i, tool := range tools {
			_, err := tool.Validate(raw)
			if err == nil {
				continue
			}
			var ve *ValidationError
			if !errors.Is(err, ErrInvalidToolArgs) || !errors.As(err, &ve) {
				t.Fatalf("schema %d, %s: error %v", i, raw, err)
			}
			if n := len(ve.Problems); n == 0 || n > maxProblems {
				t.Fatalf("schema %d, %s: %d problems", i, raw, n)
			}
			for _, p := range ve.Problems {
				for _, b := range banned {
					if strings.Contains(p, b) && !strings.Contains(string(raw), b) { // not an echo of the arguments
						t.Errorf("schema %d, %s: problem %q contains %q", i, raw, p, b)
					}
				}
			}
			_, again := tool.Validate(raw)
			if diff := cmp.Diff(problemsOf(t, err), problemsOf(t, again)); diff != "" {
				t.Errorf("schema %d, %s: problems differ between calls (-first +second):\n%s", i, raw, diff)
			}
		}
	})
}

// color decodes only from a known name, with an error that names no field.
type color string

func (c *color) UnmarshalText(b []byte) error {
	if s := string(b); s != "red" && s != "blue" {
		return fmt.Errorf("unknown color %q", s)
	}
	*c = color(b)
	return nil
}

// wholeArgs refuses any document without a "k" member, whatever else it
// holds: decoding members alone says nothing about it.
type wholeArgs struct {
	K string `json:"k,omitempty"`
	T string `json:"t,omitempty"`
}

func (w *wholeArgs) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if _, ok := m["k"]; !ok {
		return errors.New("k is missing")
	}
	return nil
}

// TestDecodeProblemsNameFields: arguments the schema accepts but a typed
// tool's argument type does not decode name the field at fault, even when
// the error comes from a field's own decoder and says nothing of where.
func TestDecodeProblemsNameFields(t *testing.T) {
	type event struct {
		At time.Time `json:"at"`
	}
	type args struct {
		When   time.Time `json:"when,omitzero"`
		Color  color     `json:"color,omitempty"`
		Events []event   `json:"events,omitempty"`
		Nested struct {
			Since time.Time `json:"since,omitzero"`
		} `json:"nested,omitzero"`
	}
	tool, err := NewTypedTool("t", "d", func(context.Context, args, Invocation) (Output, error) { return TextOutput(""), nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := NewTypedTool("w", "d", func(context.Context, wholeArgs, Invocation) (Output, error) { return TextOutput(""), nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	const rfc = `is not a date-time in RFC 3339 format, such as "2006-01-02T15:04:05Z"`
	tests := []struct {
		tool *Tool
		raw  string
		want []string
	}{
		{tool, `{"when":"yesterday"}`, []string{`when: "yesterday" ` + rfc}},
		{tool, `{"when":"yesterday","color":"green","nested":{"since":"1 May"}}`,
			[]string{`color: unknown color "green"`, `nested.since: "1 May" ` + rfc, `when: "yesterday" ` + rfc}},
		{tool, `{"events":[{"at":"2024-01-02T03:04:05Z"},{"at":"soon"}]}`, []string{`events[1].at: "soon" ` + rfc}},
		{whole, `{"t":"x"}`, []string{`k is missing`}},
	}
	for _, tt := range tests {
		_, err := tt.tool.Validate(json.RawMessage(tt.raw))
		if !errors.Is(err, ErrInvalidToolArgs) {
			t.Fatalf("Validate(%s) = %v, want ErrInvalidToolArgs", tt.raw, err)
		}
		if diff := cmp.Diff(tt.want, problemsOf(t, err)); diff != "" {
			t.Errorf("Validate(%s) problems (-want +got):\n%s", tt.raw, diff)
		}
	}
}
