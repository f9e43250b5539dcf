package spooledartifact

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ebbforge/adk/forge"
	"github.com/google/go-cmp/cmp"
)

func TestToolSchema(t *testing.T) {
	callID := `"callId":{"description":"ToolCall id of the artifact to query.","type":"string"}`
	tests := []struct {
		name string
		m    Method
		want string
	}{
		{"no params", Method{Tool: "t"},
			`{"additionalProperties":false,"properties":{` + callID + `},"required":["callId"],"type":"object"}`},
		{"null params", Method{Tool: "t", Params: json.RawMessage(`null`)},
			`{"additionalProperties":false,"properties":{` + callID + `},"required":["callId"],"type":"object"}`},
		{"spaced, keys sorted", Method{Tool: "t", Params: json.RawMessage(" {\n \"z\" : { \"type\" : \"string\" } ,\t\"a\":{}}\n"),
			Required: []string{"z", "a"}},
			`{"additionalProperties":false,"properties":{"a":{},` + callID + `,"z":{"type":"string"}},"required":["a","callId","z"],"type":"object"}`},
		{"own callId loses", Method{Tool: "t", Params: json.RawMessage(`{"callId":{"type":"integer"},"x":{"description":"<&>"}}`),
			Required: []string{"callId", "x"}},
			`{"additionalProperties":false,"properties":{` + callID + `,"x":{"description":"\u003c\u0026\u003e"}},"required":["callId","x"],"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := toolSchema(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("document (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolSchemaBadParams(t *testing.T) {
	for _, params := range []string{`[]`, `"x"`, `{"a":`, `{"a":1}x`} {
		_, err := toolSchema(Method{Tool: "bad", Params: json.RawMessage(params)})
		if !errors.Is(err, forge.ErrInvalidInitialToolValue) {
			t.Errorf("%s: err = %v, want ErrInvalidInitialToolValue", params, err)
		}
	}
}

// The forged tools publish static documents, the same whatever the ids,
// and those documents are valid schemas: the eager constructor, which
// resolves at once, takes them.
func TestForgeToolsDocuments(t *testing.T) {
	s := NewMemoryStore()
	var calls []*forge.ToolCall
	for _, id := range []string{"p1", "u1", "p2", "a<b>&c"} {
		var kind forge.ArtifactKind
		if strings.HasPrefix(id, "u") {
			kind = upperKind{}
		}
		calls = append(calls, makeCall(t, id, spoolText(t, s, id, kind, "x\ny"), false))
	}
	reg, err := forgeTools(calls, 0)
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]Method{}
	for _, m := range EffectiveMethods(nil) {
		defs[m.Tool] = m
	}
	for _, m := range (upperKind{}).Methods() {
		if _, ok := defs[m.Tool]; !ok {
			defs[m.Tool] = m
		}
	}
	for _, d := range reg.Definitions() {
		want, err := toolSchema(defs[d.Name])
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(d.Parameters)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", d.Name, diff)
		}
		if strings.Contains(string(d.Parameters), "p1") {
			t.Errorf("%s: the schema names a call id: %s", d.Name, d.Parameters)
		}
		if d.Description != defs[d.Name].Description {
			t.Errorf("%s: description %q", d.Name, d.Description)
		}
		if _, err := forge.NewArtifactTool(d.Name, d.Description, d.Parameters, dispatchHandler(d.Name, &entryTable{}), nil); err != nil {
			t.Errorf("%s: schema does not resolve: %v", d.Name, err)
		}
	}
	if len(reg.Definitions()) != 8 {
		t.Errorf("%d definitions, want 8", len(reg.Definitions()))
	}
}

// FuzzToolSchema: whatever the params, toolSchema either refuses them with
// ErrInvalidInitialToolValue or returns an object schema with the string
// callId required and no other properties allowed.
func FuzzToolSchema(f *testing.F) {
	f.Add(`{"n":{"type":"integer"}}`, "n")
	f.Add(`{"callId":{},"Zed":{"enum":["<&>"]}}`, "callId,callId")
	f.Add(`null`, "")
	f.Add(`{"a":`, "a")
	f.Fuzz(func(t *testing.T, params, required string) {
		m := Method{Tool: "fuzz", Params: json.RawMessage(params)}
		if required != "" {
			m.Required = strings.Split(required, ",")
		}
		doc, err := toolSchema(m)
		if err != nil {
			if !errors.Is(err, forge.ErrInvalidInitialToolValue) {
				t.Fatalf("err = %v, want ErrInvalidInitialToolValue", err)
			}
			return
		}
		var got struct {
			AdditionalProperties *bool                      `json:"additionalProperties"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			Type                 string                     `json:"type"`
		}
		if err := json.Unmarshal(doc, &got); err != nil {
			t.Fatalf("document %s: %v", doc, err)
		}
		if got.AdditionalProperties == nil || *got.AdditionalProperties || got.Type != "object" {
			t.Errorf("root not a closed object: %s", doc)
		}
		if string(got.Properties["callId"]) != string(callIDSchema) {
			t.Errorf("callId schema %s", got.Properties["callId"])
		}
		n := 0
		for _, r := range got.Required {
			if r == "callId" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("callId required %d times: %q", n, got.Required)
		}
	})
}
