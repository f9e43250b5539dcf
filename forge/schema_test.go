package forge

import (
	"encoding/json"
	"testing"
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
			got := string(closedRoot([]byte(tt.doc)))
			if got != tt.want {
				t.Errorf("closedRoot(%s) = %s, want %s", tt.doc, got, tt.want)
			}
			if got != tt.doc && !json.Valid([]byte(got)) {
				t.Errorf("closedRoot(%s) = %s, not JSON", tt.doc, got)
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
