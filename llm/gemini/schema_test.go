package gemini

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConvertSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no schema", ``, ``},
		{"no properties", `{"type":"object","properties":{},"additionalProperties":false}`, ``},
		{"types upper-case, unknown keywords dropped",
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{"n":{"type":"number","multipleOf":2,"exclusiveMinimum":0,"minimum":1}},"required":["n","gone"]}`,
			`{"properties":{"n":{"minimum":1,"type":"NUMBER"}},"required":["n"],"type":"OBJECT"}`},
		{"nullable type list and several types",
			`{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":["string","integer"]}}}`,
			`{"properties":{"a":{"nullable":true,"type":"STRING"},"b":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}},"type":"OBJECT"}`},
		{"formats by type",
			`{"type":"object","properties":{"u":{"type":"string","format":"uri"},"d":{"type":"string","format":"date-time"},"i":{"type":"integer","format":"int64"}}}`,
			`{"properties":{"d":{"format":"date-time","type":"STRING"},"i":{"format":"int64","type":"INTEGER"},"u":{"type":"STRING"}},"type":"OBJECT"}`},
		{"enums and const",
			`{"type":"object","properties":{"s":{"type":"string","enum":["a","b"]},"n":{"type":"integer","enum":[1,2],"description":"Level."},"c":{"const":"x"}}}`,
			`{"properties":{"c":{"enum":["x"],"type":"STRING"},"n":{"description":"Level. One of: 1, 2.","type":"INTEGER"},"s":{"enum":["a","b"],"type":"STRING"}},"type":"OBJECT"}`},
		{"refs inlined, recursion cut, oneOf and allOf",
			`{"type":"object","$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node","description":"Next."}}},"p":{"type":"string"}},"properties":{"n":{"$ref":"#/$defs/node"},"o":{"oneOf":[{"$ref":"#/$defs/p"},{"type":"integer"}]},"m":{"allOf":[{"$ref":"#/$defs/p"}],"description":"M."},"r":{"$ref":"#"}}}`,
			`{"properties":{"m":{"description":"M.","type":"STRING"},"n":{"properties":{"next":{"description":"Next."}},"type":"OBJECT"},"o":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]},"r":{}},"type":"OBJECT"}`},
		{"arrays and implied types",
			`{"properties":{"l":{"items":{"type":"string"},"minItems":1}}}`,
			`{"properties":{"l":{"items":{"type":"STRING"},"minItems":1,"type":"ARRAY"}},"type":"OBJECT"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := convertSchema(json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := convertSchema(json.RawMessage(`[1]`)); err == nil {
		t.Error("an array schema converted")
	}
}

// FuzzConvertSchema: any JSON gives an error or valid JSON, never a panic
// or an endless expansion.
func FuzzConvertSchema(f *testing.F) {
	f.Add(intArgs)
	f.Add(`{"$defs":{"a":{"properties":{"b":{"$ref":"#/$defs/b"}}},"b":{"properties":{"a":{"$ref":"#/$defs/a"}}}},"properties":{"x":{"$ref":"#/$defs/a"}}}`)
	f.Fuzz(func(t *testing.T, in string) {
		out, err := convertSchema(json.RawMessage(in))
		if err == nil && out != nil && !json.Valid(out) {
			t.Fatalf("invalid output %s", out)
		}
		if len(out) > 64*len(in)+64 {
			t.Fatalf("%d bytes from %d", len(out), len(in))
		}
	})
}
