package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/internal/forgestate"
)

// A LazySchema tool publishes its document as given (its root closed when
// it was open by omission) and validates exactly as the eager tool does:
// same arguments out, same errors.
func TestLazySchemaMatchesEager(t *testing.T) {
	schemas := map[string]struct{ doc, published string }{
		"open": {string(objSchema), `{"additionalProperties":false,` + string(objSchema[1:])},
		"spaced": {"{ \"type\" : \"object\",\n \"properties\": {\"a\": {\"type\": \"number\"}} }",
			"{\"additionalProperties\":false, \"type\" : \"object\",\n \"properties\": {\"a\": {\"type\": \"number\"}} }"},
		"closed": {`{"type":"object","properties":{"id":{"type":"string","enum":["x","y"]}},"required":["id"],"additionalProperties":false}`,
			`{"type":"object","properties":{"id":{"type":"string","enum":["x","y"]}},"required":["id"],"additionalProperties":false}`},
		"defaults": {`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"default":3},"f":{"type":"string","pattern":"^[ims]*$"}}}`,
			`{"additionalProperties":false,"type":"object","properties":{"n":{"type":"integer","minimum":1,"default":3},"f":{"type":"string","pattern":"^[ims]*$"}}}`},
		"explicitly open": {`{"type":"object","additionalProperties":true}`, `{"type":"object","additionalProperties":true}`},
	}
	args := []string{``, `{}`, `[1]`, `{"a":`, `{"a":1,"b":"x"}`, `{"a":"5","b":7}`, `{"id":"x"}`, `{"id":"z"}`,
		`{"id":"x","zz":1}`, `{"n":0}`, `{"n":2,"f":"g"}`, `{"f":"im"}`, `{"a":1,"zz":1,"yy":2}`}
	for name, tt := range schemas {
		schema := json.RawMessage(tt.doc)
		eager := mustTool(t, schema, echoHandler, nil)
		lazy := mustTool(t, schema, echoHandler, &ToolOptions{LazySchema: true})
		if lazy.v != nil {
			t.Fatalf("%s: lazy tool resolved at construction", name)
		}
		if diff := cmp.Diff(tt.published, string(lazy.Schema())); diff != "" {
			t.Errorf("%s: schema not published as given (-want +lazy):\n%s", name, diff)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(tt.published)); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(compact.String(), string(eager.Schema())); diff != "" {
			t.Errorf("%s: eager schema (-want +got):\n%s", name, diff)
		}
		for _, raw := range args {
			want, wantErr := eager.Validate(json.RawMessage(raw))
			got, gotErr := lazy.Validate(json.RawMessage(raw))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s: args (-eager +lazy):\n%s", name, raw, diff)
			}
			if errString(wantErr) != errString(gotErr) || errors.Is(gotErr, ErrInvalidToolArgs) != errors.Is(wantErr, ErrInvalidToolArgs) {
				t.Errorf("%s %s: err = %v, want %v", name, raw, gotErr, wantErr)
			}
		}
	}
}

// errString is err's message with the library's list of unexpected
// properties sorted: it comes in map order.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return unexpectedList.ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := unexpectedList.FindStringSubmatch(m)
		fields := strings.Fields(sub[1])
		slices.Sort(fields)
		return "unexpected additional properties [" + strings.Join(fields, " ") + "]"
	})
}

var unexpectedList = regexp.MustCompile(`unexpected additional properties \[([^\]]*)\]`)

func TestLazySchemaTyped(t *testing.T) {
	var got weatherArgs
	tool, err := NewTypedTool("weather", "get the weather", func(_ context.Context, a weatherArgs, _ Invocation) (Output, error) {
		got = a
		return TextOutput(a.City + "/" + a.Units), nil
	}, &ToolOptions{LazySchema: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(weatherTool(t, nil).Schema()), string(tool.Schema())); diff != "" {
		t.Errorf("schema (-eager +lazy):\n%s", diff)
	}
	out, err := tool.Execute(context.Background(), json.RawMessage(`{"city":"Oslo","days":2}`), Invocation{CallID: sum64}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (weatherArgs{City: "Oslo", Units: "metric", Days: 2}); out.Text() != "Oslo/metric" || !cmp.Equal(want, got) {
		t.Errorf("out %q, args %+v", out.Text(), got)
	}
	if _, err := tool.Validate(json.RawMessage(`{"city":"Oslo","units":"kelvin"}`)); !errors.Is(err, ErrInvalidToolArgs) {
		t.Errorf("bad enum: %v", err)
	}
}

// A schema that does not resolve fails every call of a LazySchema tool
// with the error construction gives an eager one, before the handler.
func TestLazySchemaUnresolvable(t *testing.T) {
	tests := []struct {
		name   string
		schema json.RawMessage
	}{
		{"root not object", json.RawMessage(`{"type":"array"}`)},
		{"bad pattern", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`)},
		{"bad default", json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","default":"x"}}}`)},
		{"not a schema", json.RawMessage(`{"type":"object","properties":[]}`)},
		{"not JSON", json.RawMessage(`{"type":`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, want := NewArtifactTool("q", "d", tt.schema, func(context.Context, map[string]any, Invocation) (string, error) {
				return "", nil
			}, nil)
			if !errors.Is(want, ErrInvalidInitialToolValue) {
				t.Fatalf("eager construction: %v", want)
			}
			called := false
			tool, err := NewArtifactTool("q", "d", tt.schema, func(context.Context, map[string]any, Invocation) (string, error) {
				called = true
				return "", nil
			}, &ToolOptions{LazySchema: true})
			if err != nil {
				t.Fatalf("lazy construction: %v", err)
			}
			if _, err := NewRegistry(tool); err != nil {
				t.Fatalf("register: %v", err)
			}
			for range 2 {
				if _, err := tool.Validate(json.RawMessage(`{}`)); !errors.Is(err, ErrInvalidInitialToolValue) || err.Error() != want.Error() {
					t.Errorf("Validate: %v, want %v", err, want)
				}
			}
			obs := &recorder{}
			if _, err := tool.Execute(context.Background(), json.RawMessage(`{}`), Invocation{CallID: sum64}, obs); !errors.Is(err, ErrInvalidInitialToolValue) {
				t.Errorf("Execute: %v", err)
			}
			if called || len(obs.starts) != 0 {
				t.Errorf("handler ran (%v) or events emitted (%d)", called, len(obs.starts))
			}
		})
	}
}

// The tool keeps its own copy of the document.
func TestLazySchemaCopied(t *testing.T) {
	doc := []byte(`{"type":"object"}`)
	tool := mustTool(t, doc, echoHandler, &ToolOptions{LazySchema: true})
	doc[2] = 'X'
	if got := string(tool.Schema()); got != `{"additionalProperties":false,"type":"object"}` {
		t.Errorf("schema = %s", got)
	}
	if _, err := tool.Validate(nil); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestLazySchemaConcurrentFirstUse(t *testing.T) {
	tool := mustTool(t, objSchema, echoHandler, &ToolOptions{LazySchema: true})
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = tool.Validate(json.RawMessage(`{"a":1}`))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
}

// A LazySchema tool costs the tool, its copy of the document and the
// holder of the schema it resolves later; a copy answering with another
// handler (how artifact tools are forged per turn) costs the copy alone,
// and resolves the schema once with the tool it was copied from.
func TestLazyConstructionAllocs(t *testing.T) {
	doc := json.RawMessage(`{"additionalProperties":false,"type":"object","properties":{"a":{"type":"string"}}}`)
	opts := &ToolOptions{Ephemeral: true, OnCollision: CollisionReplace, LazySchema: true}
	h := func(context.Context, map[string]any, Invocation) (string, error) { return "template", nil }
	if n := testing.AllocsPerRun(50, func() {
		if _, err := NewArtifactTool("artifact_x", "d", doc, h, opts); err != nil {
			t.Fatal(err)
		}
	}); n != 3 {
		t.Errorf("NewArtifactTool with LazySchema: %v allocations, want 3", n)
	}
	template, err := NewArtifactTool("artifact_x", "d", doc, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	bound := func(context.Context, map[string]any, Invocation) (string, error) { return "bound", nil }
	var tool *Tool
	if n := testing.AllocsPerRun(50, func() {
		tool = forgestate.WithHandler(template, bound).(*Tool)
	}); n != 1 {
		t.Errorf("a copy with another handler: %v allocations, want 1", n)
	}
	out, err := tool.Execute(context.Background(), json.RawMessage(`{"a":"x"}`), Invocation{}, nil)
	if err != nil || out.Text() != "bound" {
		t.Fatalf("copy answered %q, %v; want the bound handler's answer", out.Text(), err)
	}
	if tool.lazy != template.lazy || template.lazy.v == nil {
		t.Error("the copy did not resolve the schema once for both")
	}
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{}, nil); !errors.Is(err, ErrInvalidToolArgs) {
		t.Errorf("copy with bad arguments: %v, want ErrInvalidToolArgs", err)
	}
	if out, _ := template.Execute(context.Background(), json.RawMessage(`{"a":"x"}`), Invocation{}, nil); out.Text() != "template" {
		t.Errorf("template answered %q after the copy; want its own handler's", out.Text())
	}
}
