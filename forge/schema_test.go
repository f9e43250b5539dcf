package forge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClosedRoot(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"open by omission", `{"type":"object","properties":{"a":{}}}`, `{"additionalProperties":false,"type":"object","properties":{"a":{}}}`},
		{"empty object", `{}`, `{"additionalProperties":false}`},
		{"empty with space", " { \n} ", ` {"additionalProperties":false` + " \n} "},
		{"leading space", ` { "type" : "object" }`, ` {"additionalProperties":false, "type" : "object" }`},
		{"nested keyword is not the root's", `{"type":"object","properties":{"additionalProperties":{"additionalProperties":true}}}`,
			`{"additionalProperties":false,"type":"object","properties":{"additionalProperties":{"additionalProperties":true}}}`},
		{"says true", `{"type":"object","additionalProperties":true}`, `{"type":"object","additionalProperties":true}`},
		{"says a schema", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"type":"object","additionalProperties":{"type":"string"}}`},
		{"patternProperties", `{"type":"object","patternProperties":{"^x":{}}}`, `{"type":"object","patternProperties":{"^x":{}}}`},
		{"unevaluatedProperties", `{"type":"object","unevaluatedProperties":true}`, `{"type":"object","unevaluatedProperties":true}`},
		{"allOf", `{"type":"object","allOf":[{"properties":{"a":{}}}]}`, `{"unevaluatedProperties":false,"type":"object","allOf":[{"properties":{"a":{}}}]}`},
		{"$ref", `{"$defs":{"x":{}},"$ref":"#/$defs/x"}`, `{"unevaluatedProperties":false,"$defs":{"x":{}},"$ref":"#/$defs/x"}`},
		{"escaped root key", `{"additional\u0050roperties":true}`, `{"additional\u0050roperties":true}`},
		{"escaped other key", `{"typ\u0065":"object"}`, `{"additionalProperties":false,"typ\u0065":"object"}`},
		{"keyword in a value", `{"description":"\"additionalProperties\": {","x":[{"a":"}"}]}`,
			`{"additionalProperties":false,"description":"\"additionalProperties\": {","x":[{"a":"}"}]}`},
		{"keyword after nested object", `{"properties":{"a":{"type":"string"}},"patternProperties":{}}`, `{"properties":{"a":{"type":"string"}},"patternProperties":{}}`},
		{"not JSON", `{"type":`, `{"type":`},
		{"unterminated", `{"type":"object"`, `{"type":"object"`},
		{"trailing data", `{"type":"object"} {}`, `{"type":"object"} {}`},
		{"trailing space", "{\"type\":\"object\"} \n", "{\"additionalProperties\":false,\"type\":\"object\"} \n"},
		{"not an object", `[1]`, `[1]`},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := closedRoot([]byte(tt.doc))
			if err != nil {
				t.Fatalf("closedRoot(%s): %v", tt.doc, err)
			}
			got := string(b)
			if got != tt.want {
				t.Errorf("closedRoot(%s) = %s, want %s", tt.doc, got, tt.want)
			}
			if got != tt.doc && !json.Valid([]byte(got)) {
				t.Errorf("closedRoot(%s) = %s, not JSON", tt.doc, got)
			}
		})
	}
}

// Drafts before 2019-09 ignore unevaluatedProperties: their roots are
// closed with additionalProperties, and one that composes subschemas, which
// additionalProperties would not see, must say what it allows itself.
func TestClosedRootByDraft(t *testing.T) {
	const (
		d4    = `"$schema":"http://json-schema.org/draft-04/schema#",`
		d6    = `"$schema":"http://json-schema.org/draft-06/schema#",`
		d7    = `"$schema":"http://json-schema.org/draft-07/schema#",`
		d7s   = `"$schema":"https://json-schema.org/draft-07/schema",`
		d2019 = `"$schema":"https://json-schema.org/draft/2019-09/schema",`
		d2020 = `"$schema":"https://json-schema.org/draft/2020-12/schema",`
	)
	tests := []struct {
		name, doc, want string
		wantErr         string // a substring of the error, "" for none
	}{
		{"draft-04 plain", `{` + d4 + `"type":"object","properties":{"a":{}}}`, `{"additionalProperties":false,` + d4 + `"type":"object","properties":{"a":{}}}`, ""},
		{"draft-06 plain", `{` + d6 + `"type":"object"}`, `{"additionalProperties":false,` + d6 + `"type":"object"}`, ""},
		{"draft-07 plain", `{` + d7 + `"type":"object"}`, `{"additionalProperties":false,` + d7 + `"type":"object"}`, ""},
		{"draft-07 https without #", `{` + d7s + `"type":"object"}`, `{"additionalProperties":false,` + d7s + `"type":"object"}`, ""},
		{"draft-04 allOf", `{` + d4 + `"allOf":[{}]}`, "", "allOf"},
		{"draft-06 anyOf", `{` + d6 + `"anyOf":[{}]}`, "", "draft-06"},
		{"draft-07 $ref", `{` + d7 + `"$ref":"#/definitions/x","definitions":{"x":{}}}`, "", "($ref)"},
		{"draft-07 if", `{` + d7 + `"if":{},"then":{}}`, "", "(if)"},
		{"draft-07 oneOf", `{` + d7 + `"oneOf":[{}]}`, "", "use draft 2020-12"},
		{"draft-07 schema dependency", `{` + d7 + `"dependencies":{"a":{"properties":{"b":{}}}}}`, "", "(dependencies)"},
		{"draft-07 name dependency", `{` + d7 + `"dependencies":{"a":["b"]}}`, `{"additionalProperties":false,` + d7 + `"dependencies":{"a":["b"]}}`, ""},
		{"draft-07 dependentSchemas is not a keyword", `{` + d7 + `"dependentSchemas":{"a":{}}}`, `{"additionalProperties":false,` + d7 + `"dependentSchemas":{"a":{}}}`, ""},
		{"draft-07 composed but says", `{` + d7 + `"allOf":[{}],"additionalProperties":true}`, `{` + d7 + `"allOf":[{}],"additionalProperties":true}`, ""},
		{"draft-07 composed, says unevaluated", `{` + d7 + `"allOf":[{}],"unevaluatedProperties":false}`, `{` + d7 + `"allOf":[{}],"unevaluatedProperties":false}`, ""},
		{"2019-09 allOf", `{` + d2019 + `"allOf":[{}]}`, `{"unevaluatedProperties":false,` + d2019 + `"allOf":[{}]}`, ""},
		{"2020-12 allOf", `{` + d2020 + `"allOf":[{}]}`, `{"unevaluatedProperties":false,` + d2020 + `"allOf":[{}]}`, ""},
		{"2020-12 dependencies is not a keyword", `{` + d2020 + `"dependencies":{"a":{}}}`, `{"additionalProperties":false,` + d2020 + `"dependencies":{"a":{}}}`, ""},
		{"2020-12 plain", `{` + d2020 + `"type":"object"}`, `{"additionalProperties":false,` + d2020 + `"type":"object"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := closedRoot([]byte(tt.doc))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("closedRoot(%s) error = %v, want one mentioning %q", tt.doc, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("closedRoot(%s): %v", tt.doc, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("closedRoot(%s) (-want +got):\n%s", tt.doc, diff)
			}
		})
	}
}

// What the closing means for calls, draft by draft: unknown keys are
// refused, and a pre-2019-09 root that composes subschemas is refused when
// the tool is built. Draft-04, -06 and 2019-09 are not validated by
// jsonschema-go at all, so those tools are refused whatever the root says.
func TestDraftUnknownKeys(t *testing.T) {
	const props = `"type":"object","properties":{"a":{}}`
	composed := `"type":"object","allOf":[{"properties":{"a":{}}}]`
	tests := []struct {
		name, schema string
		wantBuild    bool // NewTool accepts it
		wantSchema   string
	}{
		{"draft-07 plain", `{"$schema":"http://json-schema.org/draft-07/schema#",` + props + `}`, true,
			`{"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#",` + props + `}`},
		{"draft-07 allOf", `{"$schema":"http://json-schema.org/draft-07/schema#",` + composed + `}`, false, ""},
		{"draft-07 $ref", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","$ref":"#/definitions/x","definitions":{"x":{"properties":{"a":{}}}}}`, false, ""},
		{"draft-07 allOf closed by hand", `{"$schema":"http://json-schema.org/draft-07/schema#",` + composed + `,"properties":{"a":{}},"additionalProperties":false}`, true,
			`{"$schema":"http://json-schema.org/draft-07/schema#",` + composed + `,"properties":{"a":{}},"additionalProperties":false}`},
		{"draft-04 plain", `{"$schema":"http://json-schema.org/draft-04/schema#",` + props + `}`, false, ""},
		{"draft-06 allOf", `{"$schema":"http://json-schema.org/draft-06/schema#",` + composed + `}`, false, ""},
		{"2019-09 allOf", `{"$schema":"https://json-schema.org/draft/2019-09/schema",` + composed + `}`, false, ""},
		{"2020-12 allOf", `{"$schema":"https://json-schema.org/draft/2020-12/schema",` + composed + `}`, true,
			`{"unevaluatedProperties":false,"$schema":"https://json-schema.org/draft/2020-12/schema",` + composed + `}`},
		{"no $schema, $ref", `{"type":"object","$ref":"#/$defs/x","$defs":{"x":{"properties":{"a":{}}}}}`, true,
			`{"unevaluatedProperties":false,"type":"object","$ref":"#/$defs/x","$defs":{"x":{"properties":{"a":{}}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := NewTool("t", "d", json.RawMessage(tt.schema), echoHandler, nil)
			if !tt.wantBuild {
				if !errors.Is(err, ErrInvalidInitialToolValue) {
					t.Errorf("NewTool: got %v, want ErrInvalidInitialToolValue", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewTool: %v", err)
			}
			if diff := cmp.Diff(tt.wantSchema, string(tool.Schema())); diff != "" {
				t.Errorf("Schema() (-want +got):\n%s", diff)
			}
			if _, err := tool.Validate(json.RawMessage(`{"a":1}`)); err != nil {
				t.Errorf("known key refused: %v", err)
			}
			_, err = tool.Validate(json.RawMessage(`{"a":1,"zzz":2}`))
			if !errors.Is(err, ErrInvalidToolArgs) {
				t.Errorf("unknown key zzz: got %v, want ErrInvalidToolArgs", err)
			}
		})
	}
}

// Unknown keys in a nested closed object are listed in order too.
func TestUnexpectedNestedSorted(t *testing.T) {
	tool := mustTool(t, json.RawMessage(`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{}},"additionalProperties":false}}}`), echoHandler, nil)
	for range 5 { // map order varies between runs
		_, err := tool.Validate(json.RawMessage(`{"o":{"z":1,"y":2,"x":3,"w":4}}`))
		mentionsAll(t, err, `o: unexpected additional properties ["w" "x" "y" "z"]`)
	}
}
