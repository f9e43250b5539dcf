package spooledartifact

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/ebbforge/adk/forge"
	"github.com/google/go-cmp/cmp"
)

// legacyToolSchema is the reference document of a forged tool, the way
// ForgeTools first built it: m's params and the callId enum as maps
// through json.Marshal. schemaTemplate must reproduce it byte for byte, so
// the model sees the same tools.
func legacyToolSchema(m Method, ids []string) (json.RawMessage, error) {
	props := map[string]json.RawMessage{}
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &props); err != nil {
			return nil, err
		}
	}
	if props == nil { // "null" params: the legacy code panicked
		props = map[string]json.RawMessage{}
	}
	callID, err := json.Marshal(map[string]any{"type": "string", "enum": ids, "description": CallIDDescription})
	if err != nil {
		return nil, err
	}
	props["callId"] = callID
	required := append([]string{}, m.Required...)
	required = append(required, "callId")
	sort.Strings(required)
	return json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	})
}

// templateDoc is the document ForgeTools publishes for m over ids.
func templateDoc(m Method, ids []string) (json.RawMessage, error) {
	tmpl, err := newSchemaTemplate(m)
	if err != nil {
		return nil, err
	}
	enum, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	return tmpl.doc(enum), nil
}

var trickyIDs = []string{"call_1", "a<b>&c", "ünï\u2028code", "bad\xffutf8", `quote"back\slash`, "Z", ""}

func TestSchemaTemplateMatchesLegacy(t *testing.T) {
	methods := BaseMethods()
	methods = append(methods, upperKind{}.Methods()...)
	methods = append(methods,
		Method{Tool: "no_params"},
		Method{Tool: "null_params", Params: json.RawMessage(`null`)},
		Method{Tool: "spaced", Params: json.RawMessage(" {\n \"z\" : { \"type\" : \"string\" } ,\t\"a\":{}}\n"),
			Required: []string{"z", "a"}},
		Method{Tool: "around_callId", Params: json.RawMessage(`{"Zed":{},"call":{},"callIdx":{},"callI":{},"caller":{},"a<&>":{"description":"<html> & more"}}`)},
		Method{Tool: "own_callId", Params: json.RawMessage(`{"callId":{"type":"integer"},"x":{"type":"string"}}`),
			Required: []string{"callId", "x"}},
	)
	for _, m := range methods {
		for _, ids := range [][]string{{"only"}, trickyIDs} {
			want, err := legacyToolSchema(m, ids)
			if err != nil {
				t.Fatalf("%s: legacy: %v", m.Tool, err)
			}
			got, err := templateDoc(m, ids)
			if err != nil {
				t.Fatalf("%s: %v", m.Tool, err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s %q: document (-legacy +template):\n%s", m.Tool, ids, diff)
			}
		}
	}
}

func TestSchemaTemplateBadParams(t *testing.T) {
	for _, params := range []string{`[]`, `"x"`, `{"a":`, `{"a":1}x`} {
		_, err := newSchemaTemplate(Method{Tool: "bad", Params: json.RawMessage(params)})
		if !errors.Is(err, forge.ErrInvalidInitialToolValue) {
			t.Errorf("%s: err = %v, want ErrInvalidInitialToolValue", params, err)
		}
	}
}

// The forged tools publish the legacy documents, and those documents are
// valid schemas: the eager constructor, which resolves at once, takes them.
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
	reg, err := ForgeTools(calls, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"p1", "u1", "p2", "a<b>&c"}
	defs := map[string]Method{}
	for _, m := range BaseMethods() {
		defs[m.Tool] = m
	}
	for _, m := range (upperKind{}).Methods() {
		if _, ok := defs[m.Tool]; !ok {
			defs[m.Tool] = m
		}
	}
	enums := map[string][]string{"artifact_upper": {"u1"}}
	for _, d := range reg.Definitions() {
		ids := enums[d.Name]
		if ids == nil {
			ids = all
		}
		want, err := legacyToolSchema(defs[d.Name], ids)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(d.Parameters)); diff != "" {
			t.Errorf("%s (-legacy +got):\n%s", d.Name, diff)
		}
		if d.Description != defs[d.Name].Description {
			t.Errorf("%s: description %q", d.Name, d.Description)
		}
		if _, err := forge.NewArtifactTool(d.Name, d.Description, d.Parameters, dispatchHandler(d.Name, nil), nil); err != nil {
			t.Errorf("%s: schema does not resolve: %v", d.Name, err)
		}
	}
	if len(reg.Definitions()) != 8 {
		t.Errorf("%d definitions, want 8", len(reg.Definitions()))
	}
}

func FuzzSchemaTemplate(f *testing.F) {
	f.Add(`{"n":{"type":"integer"}}`, "n", "call_1", "a<b>")
	f.Add(`{"callId":{},"Zed":{"enum":["<&>"]}}`, "callId", "\xff", "\u2028")
	f.Add(`null`, "", "", "")
	f.Fuzz(func(t *testing.T, params, required, id1, id2 string) {
		m := Method{Tool: "fuzz", Params: json.RawMessage(params)}
		if required != "" {
			m.Required = strings.Split(required, ",")
		}
		ids := []string{id1, id2}
		want, wantErr := legacyToolSchema(m, ids)
		got, err := templateDoc(m, ids)
		if (wantErr != nil) != (err != nil) {
			t.Fatalf("legacy err %v, template err %v", wantErr, err)
		}
		if string(want) != string(got) {
			t.Errorf("document differs:\nlegacy   %s\ntemplate %s", want, got)
		}
	})
}
