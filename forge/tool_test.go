package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

var objSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}},"required":["a"]}`)

func echoHandler(_ context.Context, args map[string]any, _ Invocation) (Output, error) {
	b, _ := json.Marshal(args)
	return TextOutput(string(b)), nil
}

func mustTool(t testing.TB, schema json.RawMessage, h handler, opts *ToolOptions) *Tool {
	t.Helper()
	tool, err := NewTool("t", "a test tool", schema, h, opts)
	if err != nil {
		t.Fatalf("NewTool: %v", err)
	}
	return tool
}

func TestToolDefaults(t *testing.T) {
	tool := mustTool(t, objSchema, echoHandler, nil)
	if diff := cmp.Diff(ToolOptions{OnCollision: CollisionThrow}, tool.Options()); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if tool.IsArtifactTool() {
		t.Errorf("an artifact tool")
	}
	if tool.Name() != "t" || tool.Description() != "a test tool" {
		t.Errorf("name/description = %q/%q", tool.Name(), tool.Description())
	}
	if !json.Valid(tool.Schema()) {
		t.Errorf("schema not JSON: %s", tool.Schema())
	}
}

func TestToolOptionsKept(t *testing.T) {
	meta := map[string]any{"k": "v"}
	tool := mustTool(t, objSchema, echoHandler, &ToolOptions{ArtifactKind: fakeKind("CSVArtifact"), Trusted: true,
		Ephemeral: true, OnCollision: CollisionReplace, Meta: meta, Timeout: time.Second})
	meta["k"] = "changed" // the tool keeps its own copy
	got := tool.Options().Meta
	got["k"] = "mutated" // and hands out copies
	o := tool.Options()
	if diff := cmp.Diff(map[string]any{"k": "v"}, o.Meta); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
	if o.ArtifactKind.Name() != "CSVArtifact" || !o.Trusted || !o.Ephemeral ||
		o.OnCollision != CollisionReplace || o.Timeout != time.Second {
		t.Errorf("options not kept: %+v", o)
	}
}

// Tool is immutable and Meta, Invocation.Meta and the stored options are
// copies down through nested JSON-like values (map[string]any, []any): a
// nested change through any of them, even from handlers running
// concurrently, never reaches the tool's Meta (go test -race checks the
// concurrent case).
func TestToolMetaDeepCopy(t *testing.T) {
	mutate := func(m map[string]any) {
		m["cfg"].(map[string]any)["k"] = 2
		m["list"].([]any)[0].(map[string]any)["k"] = 2
	}
	tests := []struct {
		name string
		// change mutates nested meta through one boundary; opts is the
		// caller's meta, already handed to NewTool.
		change func(tool *Tool, opts map[string]any)
	}{
		{"caller's options after NewTool", func(_ *Tool, opts map[string]any) { mutate(opts) }},
		{"Options().Meta", func(tool *Tool, _ map[string]any) { mutate(tool.Options().Meta) }},
		{"Invocation.Meta in concurrent calls", func(tool *Tool, _ map[string]any) {
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					if _, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{}, nil); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta := map[string]any{"cfg": map[string]any{"k": 1}, "list": []any{map[string]any{"k": 1}}}
			tool := mustTool(t, objSchema, func(_ context.Context, _ map[string]any, inv Invocation) (Output, error) {
				mutate(inv.Meta) // the handler's copy
				return TextOutput(""), nil
			}, &ToolOptions{Meta: meta})
			tt.change(tool, meta)
			want := map[string]any{"cfg": map[string]any{"k": 1}, "list": []any{map[string]any{"k": 1}}}
			if diff := cmp.Diff(want, tool.Options().Meta); diff != "" {
				t.Errorf("the tool's meta changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewToolInvalid(t *testing.T) {
	long := strings.Repeat("a", 65)
	tests := []struct {
		name, tool, desc string
		schema           json.RawMessage
		h                handler
		opts             *ToolOptions
		fields           []string
	}{
		{"empty name", "", "d", objSchema, echoHandler, nil, []string{"name"}},
		{"space in name", "a b", "d", objSchema, echoHandler, nil, []string{"name"}},
		{"name too long", long, "d", objSchema, echoHandler, nil, []string{"name"}},
		{"non-ascii name", "wetter_ü", "d", objSchema, echoHandler, nil, []string{"name"}},
		{"dot in name", "a.b", "d", objSchema, echoHandler, nil, []string{"name"}},
		{"empty description", "t", "", objSchema, echoHandler, nil, []string{"description"}},
		{"nil handler", "t", "d", objSchema, nil, nil, []string{"handler"}},
		{"bad collision", "t", "d", objSchema, echoHandler, &ToolOptions{OnCollision: "merge"}, []string{"onCollision"}},
		{"negative timeout", "t", "d", objSchema, echoHandler, &ToolOptions{Timeout: -1}, []string{"timeout"}},
		{"nil-pointer kind", "t", "d", objSchema, echoHandler, &ToolOptions{ArtifactKind: (*nilKind)(nil)}, []string{"artifactKind"}},
		{"empty kind name", "t", "d", objSchema, echoHandler, &ToolOptions{ArtifactKind: fakeKind("")}, []string{"artifactKind"}},
		{"no schema", "t", "d", nil, echoHandler, nil, []string{"schema"}},
		{"string schema", "t", "d", json.RawMessage(`{"type":"string"}`), echoHandler, nil, []string{"schema"}},
		{"untyped schema", "t", "d", json.RawMessage(`{"properties":{}}`), echoHandler, nil, []string{"schema"}},
		{"not JSON", "t", "d", json.RawMessage(`{type`), echoHandler, nil, []string{"schema"}},
		{"array schema", "t", "d", json.RawMessage(`[]`), echoHandler, nil, []string{"schema"}},
		{"bad default", "t", "d", json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","default":"x"}}}`), echoHandler, nil, []string{"schema"}},
		{"every field", "", "", json.RawMessage(`{"type":"array"}`), nil, &ToolOptions{OnCollision: "x", Timeout: -1},
			[]string{"name", "description", "handler", "onCollision", "timeout", "schema"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := NewTool(tt.tool, tt.desc, tt.schema, tt.h, tt.opts)
			if !errors.Is(err, ErrInvalidInitialToolValue) {
				t.Fatalf("err = %v, want ErrInvalidInitialToolValue", err)
			}
			if tool != nil {
				t.Errorf("tool returned with an error")
			}
			mentionsAll(t, err, tt.fields...)
			var e *Error
			if !errors.As(err, &e) || !e.Fatal || e.Status != 500 {
				t.Errorf("want fatal 500, got %+v", e)
			}
		})
	}
}

type nilKind struct{}

func (*nilKind) Name() string { return "x" }

func TestToolNameBoundaries(t *testing.T) {
	for _, name := range []string{"a", strings.Repeat("Z", 64), "get-weather_v2", "0"} {
		if _, err := NewTool(name, "d", objSchema, echoHandler, nil); err != nil {
			t.Errorf("NewTool(%q): %v", name, err)
		}
	}
}

func TestArtifactToolRejectsKind(t *testing.T) {
	h := func(context.Context, map[string]any, Invocation) (string, error) { return "", nil }
	_, err := NewArtifactTool("artifact_head", "d", objSchema, h, &ToolOptions{ArtifactKind: fakeKind("X")})
	if !errors.Is(err, ErrInvalidInitialToolValue) {
		t.Fatalf("err = %v", err)
	}
	mentionsAll(t, err, "artifactKind")
	_, err = NewArtifactTool("artifact_head", "d", objSchema, nil, nil)
	mentionsAll(t, err, "handler")
}

func TestTypedToolUnsupportedType(t *testing.T) {
	type bad struct {
		C chan int `json:"c"`
	}
	_, err := NewTypedTool("t", "d", func(context.Context, bad, Invocation) (Output, error) { return Output{}, nil }, nil)
	if !errors.Is(err, ErrInvalidInitialToolValue) {
		t.Fatalf("err = %v", err)
	}
	_, err = NewTypedTool("t", "d", func(context.Context, []string, Invocation) (Output, error) { return Output{}, nil }, nil)
	if !errors.Is(err, ErrInvalidInitialToolValue) {
		t.Fatalf("non-object args type: err = %v", err)
	}
	_, err = NewTypedTool[weatherArgs]("t", "d", nil, nil)
	mentionsAll(t, err, "handler")
}

// panickyArgs' customizer indexes a property that does not exist.
type panickyArgs struct {
	X int `json:"x"`
}

func (panickyArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.Properties["y"].Default = json.RawMessage(`1`)
	return nil
}

type failingArgs struct {
	X int `json:"x"`
}

func (*failingArgs) CustomizeSchema(*jsonschema.Schema) error { return errors.New("no bounds today") }

// A customizer's error or panic is a construction problem, never a panic
// across the API.
func TestTypedToolCustomizerFails(t *testing.T) {
	_, err := NewTypedTool("t", "d", func(context.Context, panickyArgs, Invocation) (Output, error) { return Output{}, nil }, nil)
	if !errors.Is(err, ErrInvalidInitialToolValue) {
		t.Fatalf("panicking customizer: err = %v", err)
	}
	mentionsAll(t, err, "schema: customize: panicked:")
	_, err = NewTypedTool("t", "d", func(context.Context, failingArgs, Invocation) (Output, error) { return Output{}, nil }, nil)
	if !errors.Is(err, ErrInvalidInitialToolValue) {
		t.Fatalf("failing customizer: err = %v", err)
	}
	mentionsAll(t, err, "schema: customize: no bounds today")
}

type weatherArgs struct {
	City  string   `json:"city" jsonschema:"the city to look up"`
	Days  int      `json:"days,omitempty" jsonschema:"how many days ahead"`
	Units string   `json:"units,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// CustomizeSchema adds what struct tags cannot express.
func (weatherArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.Properties["units"].Enum = []any{"metric", "imperial"}
	s.Properties["units"].Default = json.RawMessage(`"metric"`)
	s.Properties["days"].Minimum = jsonschema.Ptr(0.0)
	return nil
}

func weatherTool(t testing.TB, got *weatherArgs) *Tool {
	t.Helper()
	tool, err := NewTypedTool("weather", "get the weather", func(_ context.Context, a weatherArgs, _ Invocation) (Output, error) {
		if got != nil {
			*got = a
		}
		return TextOutput(a.City + "/" + a.Units), nil
	}, nil)
	if err != nil {
		t.Fatalf("NewTypedTool: %v", err)
	}
	return tool
}

func TestTypedToolSchema(t *testing.T) {
	tool := weatherTool(t, nil)
	var s map[string]any
	if err := json.Unmarshal(tool.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	if s["type"] != "object" || s["additionalProperties"] != false {
		t.Errorf("schema = %s", tool.Schema())
	}
	if diff := cmp.Diff([]any{"city"}, s["required"]); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	props := s["properties"].(map[string]any)
	if d := props["city"].(map[string]any)["description"]; d != "the city to look up" {
		t.Errorf("description = %v", d)
	}
	if e := props["units"].(map[string]any)["enum"]; e == nil {
		t.Errorf("enum missing: %s", tool.Schema())
	}
}

func TestValidate(t *testing.T) {
	untyped := mustTool(t, objSchema, echoHandler, nil)
	open := mustTool(t, json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"additionalProperties":true}`), echoHandler, nil)
	patterned := mustTool(t, json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"patternProperties":{"^x_":{"type":"string"}}}`), echoHandler, nil)
	composed := mustTool(t, json.RawMessage(`{"type":"object","allOf":[{"properties":{"a":{"type":"number"}}}],"properties":{"b":{}}}`), echoHandler, nil)
	closed := mustTool(t, json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"additionalProperties":false}`), echoHandler, nil)
	defaults := mustTool(t, json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","default":3}}}`), echoHandler, nil)
	typed := weatherTool(t, nil)
	tests := []struct {
		name   string
		tool   *Tool
		raw    string
		want   map[string]any // nil: expect ErrInvalidToolArgs
		fields []string       // fields the error must name
	}{
		{"valid", untyped, `{"a":1,"b":"x"}`, map[string]any{"a": 1.0, "b": "x"}, nil},
		{"unknown key rejected", untyped, `{"a":1,"zz":true}`, nil, []string{`unexpected additional properties ["zz"]`}},
		{"unknown keys named in order", untyped, `{"zz":1,"a":1,"yy":2,"b":"x","xx":3}`, nil, []string{`unexpected additional properties ["xx" "yy" "zz"]`}},
		{"unknown key allowed by schema", open, `{"a":1,"zz":true}`, map[string]any{"a": 1.0, "zz": true}, nil},
		{"pattern key allowed", patterned, `{"a":1,"x_y":"s"}`, map[string]any{"a": 1.0, "x_y": "s"}, nil},
		{"pattern schema closes nothing else", patterned, `{"a":1,"zz":"s"}`, map[string]any{"a": 1.0, "zz": "s"}, nil},
		{"composed root keys allowed", composed, `{"a":1,"b":2}`, map[string]any{"a": 1.0, "b": 2.0}, nil},
		{"composed root unknown key", composed, `{"a":1,"zz":2}`, nil, []string{"unexpected additional properties"}},
		{"required missing", untyped, `{}`, nil, []string{"required"}},
		{"empty means {}", untyped, ``, nil, []string{"required"}},
		{"no coercion", untyped, `{"a":"5"}`, nil, []string{"a:"}},
		{"every field", untyped, `{"a":"5","b":7}`, nil, []string{"a:", "b:"}},
		{"array", untyped, `[1]`, nil, []string{"arguments must be a JSON object"}},
		{"string", untyped, `"{}"`, nil, []string{"arguments must be a JSON object"}},
		{"null", untyped, `null`, nil, []string{"arguments must be a JSON object"}},
		{"number", untyped, `5`, nil, []string{"arguments must be a JSON object"}},
		{"invalid JSON", untyped, `{"a":`, nil, []string{"arguments are not valid JSON"}},
		{"garbage", untyped, `xyz`, nil, []string{"arguments are not valid JSON"}},
		{"trailing data", untyped, `{"a":1} {}`, nil, []string{"arguments are not valid JSON"}},
		{"closed schema rejects unknown", closed, `{"a":1,"zz":1}`, nil, []string{"unexpected additional properties"}},
		{"closed schema empty", closed, ` `, map[string]any{}, nil},
		{"default applied", defaults, `{}`, map[string]any{"n": 3.0}, nil},
		{"default not over value", defaults, `{"n":4}`, map[string]any{"n": 4.0}, nil},
		{"typed valid", typed, `{"city":"Oslo"}`, map[string]any{"city": "Oslo", "units": "metric"}, nil},
		{"typed unknown key", typed, `{"city":"Oslo","country":"NO"}`, nil, []string{"unexpected additional properties"}},
		{"typed case-folded key", typed, `{"City":"Oslo"}`, nil, []string{"required", "unexpected additional properties"}},
		{"typed string for int", typed, `{"city":"Oslo","days":"5"}`, nil, []string{"days:"}},
		{"typed float for int", typed, `{"city":"Oslo","days":5.5}`, nil, []string{"days:"}},
		{"typed int overflow", typed, `{"city":"Oslo","days":1e30}`, nil, []string{"days"}},
		{"typed int with exponent", typed, `{"city":"Oslo","days":1e1}`, map[string]any{"city": "Oslo", "days": 10.0, "units": "metric"}, nil},
		{"typed int with zero fraction", typed, `{"city":"Oslo","days":2.50e1}`, map[string]any{"city": "Oslo", "days": 25.0, "units": "metric"}, nil},
		{"typed fraction for int", typed, `{"city":"Oslo","days":1.5e0}`, nil, []string{"days:"}},
		{"typed enum", typed, `{"city":"Oslo","units":"kelvin"}`, nil, []string{"units:"}},
		{"typed minimum", typed, `{"city":"Oslo","days":-1}`, nil, []string{"days:"}},
		{"typed nested item", typed, `{"city":"Oslo","tags":[1]}`, nil, []string{"tags"}},
		{"typed all at once", typed, `{"days":"x","units":1,"zz":0}`, nil, []string{"days:", "units:", "required", "unexpected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tool.Validate(json.RawMessage(tt.raw))
			if tt.want != nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("args (-want +got):\n%s", diff)
				}
				return
			}
			if !errors.Is(err, ErrInvalidToolArgs) {
				t.Fatalf("err = %v, want ErrInvalidToolArgs", err)
			}
			var e *Error
			if errors.As(err, &e); e.Fatal || e.Status != 422 {
				t.Errorf("want non-fatal 422, got %+v", e)
			}
			mentionsAll(t, err, tt.fields...)
			if !strings.Contains(err.Error(), tt.tool.Name()) {
				t.Errorf("message does not name the tool: %v", err)
			}
		})
	}
}

func TestTypedToolReceivesDecodedArgs(t *testing.T) {
	var got weatherArgs
	tool := weatherTool(t, &got)
	out, err := tool.Execute(context.Background(), json.RawMessage(`{"city":"Oslo","days":2,"tags":["a"]}`), Invocation{CallID: "c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := weatherArgs{City: "Oslo", Days: 2, Units: "metric", Tags: []string{"a"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if out.Kind() != OutputText || out.Text() != "Oslo/metric" {
		t.Errorf("output = %v %q", out.Kind(), out.Text())
	}
}

// A typed tool whose argument type has no defaults decodes the raw bytes
// directly, so large integers keep their precision.
func TestTypedToolIntegerPrecision(t *testing.T) {
	type big struct {
		N int64 `json:"n"`
	}
	var got int64
	tool, err := NewTypedTool("t", "d", func(_ context.Context, a big, _ Invocation) (Output, error) {
		got = a.N
		return TextOutput(""), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"n":9007199254740993}`), Invocation{CallID: "c"}, nil); err != nil {
		t.Fatal(err)
	}
	if got != 9007199254740993 {
		t.Errorf("n = %d", got)
	}
}

// JSON Schema counts 1e2 as an integer, so a typed tool's int field takes
// it, exactly, however many digits it has.
func TestTypedToolIntegerSpellings(t *testing.T) {
	type ints struct {
		N int64   `json:"n"`
		U uint64  `json:"u,omitempty"`
		F float64 `json:"f,omitempty"`
	}
	var got ints
	tool, err := NewTypedTool("t", "d", func(_ context.Context, a ints, _ Invocation) (Output, error) {
		got = a
		return TextOutput(""), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		raw  string
		want ints
		bad  string // field the error names; "" for success
	}{
		{`{"n":1e2}`, ints{N: 100}, ""},
		{`{"n":-1E+2,"f":1.5}`, ints{N: -100, F: 1.5}, ""},
		{`{"n":9007199254740.993e3}`, ints{N: 9007199254740993}, ""},
		{`{"n":0.0,"u":18446744073709551615e0}`, ints{U: 18446744073709551615}, ""},
		{`{"n":1,"u":1.8446744073709551616e19}`, ints{}, "u"},
		{`{"n":1.5}`, ints{}, "n"},
		{`{"n":1e2,"u":2.5}`, ints{}, "u"},
		{`{"n":1e-400}`, ints{}, "n"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) { typedCall(t, tool, tt.raw, &got, tt.want, tt.bad) })
	}
}

// bigArgs holds integers past 2^53 that float64 rounds: bounds must hold
// for the exact values the handler receives.
type bigArgs struct {
	Max   int64  `json:"max,omitempty"`
	Above int64  `json:"above,omitempty"`
	Is    int64  `json:"is,omitempty"`
	Note  string `json:"note,omitempty"`
	Units string `json:"units,omitempty"`
}

func (bigArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.Properties["max"].Maximum = jsonschema.Ptr(float64(1 << 53))
	s.Properties["above"].ExclusiveMinimum = jsonschema.Ptr(float64(1 << 53))
	s.Properties["is"].Const = jsonschema.Ptr[any](json.Number("9007199254740993"))
	s.Properties["units"].Default = json.RawMessage(`"metric"`)
	return nil
}

// nestedBigArgs has a default below the root, so the arguments take the
// library's ApplyDefaults path.
type nestedBigArgs struct {
	Max int64 `json:"max,omitempty"`
	Opt struct {
		Units string `json:"units,omitempty"`
	} `json:"opt,omitzero"`
}

func (nestedBigArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.Properties["max"].Maximum = jsonschema.Ptr(float64(1 << 53))
	s.Properties["opt"].Properties["units"].Default = json.RawMessage(`"metric"`)
	return nil
}

func TestTypedToolExactNumbers(t *testing.T) {
	var got bigArgs
	tool, err := NewTypedTool("t", "d", func(_ context.Context, a bigArgs, _ Invocation) (Output, error) {
		got = a
		return TextOutput(""), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nested, err := NewTypedTool("n", "d", func(context.Context, nestedBigArgs, Invocation) (Output, error) { return TextOutput(""), nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tool *Tool
		raw  string
		want bigArgs // for tool
		bad  string  // field the error names; "" for success
	}{
		{"maximum, exact value above", tool, `{"max":9007199254740993}`, bigArgs{}, "max: maximum: 9007199254740993 is greater than 9007199254740992"},
		{"maximum, at the bound", tool, `{"max":9007199254740992}`, bigArgs{Max: 1 << 53, Units: "metric"}, ""},
		{"maximum, spelled with an exponent", tool, `{"max":9.007199254740993e15}`, bigArgs{}, "max"},
		{"exclusiveMinimum, exact value above", tool, `{"above":9007199254740993}`, bigArgs{Above: 1<<53 + 1, Units: "metric"}, ""},
		{"exclusiveMinimum, at the bound", tool, `{"above":9007199254740992}`, bigArgs{}, "above"},
		{"const, exact", tool, `{"is":9007199254740993}`, bigArgs{Is: 1<<53 + 1, Units: "metric"}, ""},
		{"const, rounds to the same float", tool, `{"is":9007199254740992}`, bigArgs{}, "is"},
		{"long digits in a string only", tool, `{"max":1,"note":"12345678901234567890"}`, bigArgs{Max: 1, Note: "12345678901234567890", Units: "metric"}, ""},
		{"default given", tool, `{"max":9007199254740993,"units":"si"}`, bigArgs{}, "max"},
		{"nested defaults, above", nested, `{"max":9007199254740993}`, bigArgs{}, "max"},
		{"nested defaults, at the bound", nested, `{"max":9007199254740992}`, bigArgs{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = bigArgs{}
			_, err := tt.tool.Execute(context.Background(), json.RawMessage(tt.raw), Invocation{CallID: "c"}, nil)
			if tt.bad != "" {
				if !errors.Is(err, ErrInvalidToolArgs) {
					t.Fatalf("err = %v, want ErrInvalidToolArgs (handler got %+v)", err, got)
				}
				mentionsAll(t, err, tt.bad)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.tool == tool {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("args (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// An untyped handler sees float64, the values that were validated.
func TestUntypedToolFloatNumbers(t *testing.T) {
	var got any
	tool := mustTool(t, json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992}}}`),
		func(_ context.Context, args map[string]any, _ Invocation) (Output, error) {
			got = args["n"]
			return TextOutput(""), nil
		}, nil)
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"n":9007199254740993}`), Invocation{CallID: "c"}, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(any(float64(1<<53)), got); diff != "" {
		t.Errorf("n (-want +got):\n%s", diff)
	}
}

func TestMayRoundNumber(t *testing.T) {
	tests := []struct {
		raw  string
		want bool
	}{
		{`{"n":123456789012345}`, false},
		{`{"n":1234567890123456}`, true},
		{`{"n":1.23456789012345e300}`, false},
		{`{"n":12345678.12345678}`, true},
		{`{"n":-9007199254740993}`, true},
		{`{"a":123456789012345,"b":123456789012345}`, false},
		{`{"s":"12345678901234567"}`, true}, // errs towards yes
		{`{"n":-1e-400}`, true},             // underflows to -0
		{`{"n":1E+400}`, true},              // overflows
		{`{"n":2.5e-310}`, true},            // subnormal: digits lost
		{`{"n":0.0e-400}`, false},           // zero is zero
		{`{"n":1e-300,"m":9.9e307}`, false},
		{`{"type":"e123"}`, false},
		{``, false},
	}
	for _, tt := range tests {
		if got := mayRoundNumber([]byte(tt.raw)); got != tt.want {
			t.Errorf("mayRoundNumber(%s) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}

func TestPlainInteger(t *testing.T) {
	tests := []struct {
		lit, want string
		ok        bool
	}{
		{"1e2", "100", true},
		{"1E+2", "100", true},
		{"-1.50e1", "-15", true},
		{"10.0", "10", true},
		{"0.0", "0", true},
		{"-0e5", "0", true},
		{"0e-1000", "0", true},
		{"100e-2", "1", true},
		{"1000e-1", "100", true},
		{"12345678901234567890e0", "12345678901234567890", true},
		{"1e19", "10000000000000000000", true},
		{"1e20", "", false}, // 21 digits: no Go integer holds it
		{"1e1001", "", false},
		{"1e99999999999999999999", "", false},
		{"100", "", false}, // already plain
		{"1.5", "", false},
		{"15e-1", "", false},
		{"1e-1", "", false},
	}
	for _, tt := range tests {
		got, ok := plainInteger(tt.lit)
		if got != tt.want || ok != tt.ok {
			t.Errorf("plainInteger(%q) = %q, %v; want %q, %v", tt.lit, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDefinition(t *testing.T) {
	tool := mustTool(t, objSchema, echoHandler, nil)
	b, err := json.Marshal(Definition{Name: tool.Name(), Description: tool.Description(), Parameters: tool.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	if got["name"] != "t" || got["description"] != "a test tool" || got["parameters"].(map[string]any)["type"] != "object" {
		t.Errorf("definition = %s", b)
	}
	// The model is offered the schema closed to unknown keys.
	var r Registry
	if err := r.Register(tool, false); err != nil {
		t.Fatal(err)
	}
	defs := r.Definitions()
	if len(defs) != 1 || !bytes.HasPrefix(defs[0].Parameters, []byte(`{"additionalProperties":false,`)) {
		t.Errorf("registry definitions = %+v", defs)
	}
}

// typedCall executes a typed tool whose handler stores its arguments in
// *got, and checks them against want, or, when bad is set, that the call
// is ErrInvalidToolArgs mentioning bad.
func typedCall[T any](t *testing.T, tool *Tool, raw string, got *T, want T, bad string, opts ...cmp.Option) {
	t.Helper()
	var zero T
	*got = zero
	_, err := tool.Execute(context.Background(), json.RawMessage(raw), Invocation{CallID: "c"}, nil)
	if bad != "" {
		if !errors.Is(err, ErrInvalidToolArgs) {
			t.Fatalf("err = %v, want ErrInvalidToolArgs", err)
		}
		mentionsAll(t, err, bad)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, *got, opts...); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}

// A Meta that cannot be deep-copied is refused when the tool is built: a
// map or slice containing itself made the copy recurse until the stack
// overflowed (a fatal error, the process gone), and one held many times
// over made it explode. Deep but finite Meta within the bounds is kept.
func TestToolMetaThatCannotBeCopied(t *testing.T) {
	h := func(context.Context, map[string]any, Invocation) (Output, error) { return TextOutput(""), nil }
	selfMap := map[string]any{"name": "x"}
	selfMap["self"] = selfMap
	selfSlice := []any{1}
	selfSlice[0] = selfSlice
	fanOut := map[string]any{}
	fanOut["a"], fanOut["b"] = fanOut, fanOut
	shared := map[string]any{"leaf": 1}
	for range 30 { // 2^30 paths through 30 shared levels
		shared = map[string]any{"a": shared, "b": shared}
	}
	deep := map[string]any{}
	for range maxMetaDepth - 1 {
		deep = map[string]any{"d": deep}
	}
	for _, tc := range []struct {
		name string
		meta map[string]any
		ok   bool
	}{
		{"map containing itself", selfMap, false},
		{"slice containing itself", map[string]any{"s": selfSlice}, false},
		{"map held twice by itself", fanOut, false},
		{"map shared over many levels", shared, false},
		{"deep but finite", deep, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := NewTool("t", "d", objSchema, h, &ToolOptions{Meta: tc.meta})
			if tc.ok {
				if err != nil {
					t.Fatalf("NewTool: %v", err)
				}
				if diff := cmp.Diff(tc.meta, tool.Options().Meta); diff != "" {
					t.Errorf("Meta (-want +got):\n%s", diff)
				}
				return
			}
			if !errors.Is(err, ErrInvalidInitialToolValue) {
				t.Fatalf("err = %v, want ErrInvalidInitialToolValue", err)
			}
			mentionsAll(t, err, "meta")
		})
	}
}

// OpenSchema keeps a root that says nothing about unknown keys open, as
// JSON Schema reads it, and publishes the document unchanged; without it
// the same document is closed.
func TestOpenSchema(t *testing.T) {
	const doc = `{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`
	tests := []struct {
		name       string
		opts       *ToolOptions
		wantSchema string
		wantErr    bool // for {"a":1,"extra":true}
	}{
		{"closed by default", nil, `{"additionalProperties":false,` + doc[1:], true},
		{"open as written", &ToolOptions{OpenSchema: true}, doc, false},
		{"open and lazy", &ToolOptions{OpenSchema: true, LazySchema: true}, doc, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := mustTool(t, json.RawMessage(doc), echoHandler, tt.opts)
			if got := string(tool.Schema()); got != tt.wantSchema {
				t.Errorf("Schema() = %s, want %s", got, tt.wantSchema)
			}
			_, err := tool.Validate(json.RawMessage(`{"a":1,"extra":true}`))
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Errorf("Validate with an extra key: err = %v, want error %v", err, tt.wantErr)
			}
			if _, err := tool.Validate(json.RawMessage(`{"extra":true}`)); !errors.Is(err, ErrInvalidToolArgs) {
				t.Errorf("Validate without the required key: err = %v, want ErrInvalidToolArgs", err)
			}
		})
	}
	// A draft-07 root composing subschemas is refused unless open.
	const d7 = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","allOf":[{"properties":{"a":{}}}]}`
	if _, err := NewTool("d7", "d", json.RawMessage(d7), echoHandler, nil); !errors.Is(err, ErrInvalidInitialToolValue) {
		t.Errorf("closed draft-07 composing root: err = %v, want ErrInvalidInitialToolValue", err)
	}
	if _, err := NewTool("d7", "d", json.RawMessage(d7), echoHandler, &ToolOptions{OpenSchema: true}); err != nil {
		t.Errorf("open draft-07 composing root: %v", err)
	}
}
