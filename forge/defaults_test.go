package forge

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

type defaultsArgs struct {
	N     int64         `json:"n"`
	Units string        `json:"units,omitempty"`
	Limit int           `json:"limit,omitempty"`
	Inner *innerDefault `json:"inner,omitempty"`
}

type innerDefault struct {
	Mode string `json:"mode,omitempty"`
}

func (defaultsArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.Properties["units"].Default = json.RawMessage(`"metric"`)
	s.Properties["limit"].Default = json.RawMessage(`1e1`)
	return nil
}

// nestedDefaultsArgs has a default below the root, so the whole defaulted
// object is re-encoded for the struct.
type nestedDefaultsArgs defaultsArgs

func (nestedDefaultsArgs) CustomizeSchema(s *jsonschema.Schema) error {
	if err := (defaultsArgs{}).CustomizeSchema(s); err != nil {
		return err
	}
	inner := s.Properties["inner"]
	if len(inner.Types) > 0 { // *T derives as ["null","object"]
		inner.Types, inner.Type = nil, "object"
	}
	inner.Properties["mode"].Default = json.RawMessage(`"fast"`)
	return nil
}

// A typed tool receives its defaults whichever way they are applied, and
// root-only defaults leave the raw values' precision intact.
func TestTypedToolDefaults(t *testing.T) {
	var got defaultsArgs
	flat, err := NewTypedTool("t", "d", func(_ context.Context, a defaultsArgs, _ Invocation) (Output, error) {
		got = a
		return TextOutput(""), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !flat.v.topDefaultsOnly || len(flat.v.defaults) != 2 {
		t.Fatalf("defaults = %+v top=%v, want two root defaults", flat.v.defaults, flat.v.topDefaultsOnly)
	}
	var gotNested nestedDefaultsArgs
	nested, err := NewTypedTool("t", "d", func(_ context.Context, a nestedDefaultsArgs, _ Invocation) (Output, error) {
		gotNested = a
		return TextOutput(""), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if nested.v.topDefaultsOnly {
		t.Fatalf("nested defaults not detected")
	}
	fast := &innerDefault{Mode: "fast"}
	tests := []struct {
		raw    string
		flat   defaultsArgs
		nested defaultsArgs
	}{
		// The library fills a missing object whose properties have
		// defaults, hence Inner in the nested case.
		{`{"n":1}`, defaultsArgs{N: 1, Units: "metric", Limit: 10}, defaultsArgs{N: 1, Units: "metric", Limit: 10, Inner: fast}},
		{`{"n":1,"units":"imperial"}`, defaultsArgs{N: 1, Units: "imperial", Limit: 10}, defaultsArgs{N: 1, Units: "imperial", Limit: 10, Inner: fast}},
		{`{"n":1,"units":"x","limit":2}`, defaultsArgs{N: 1, Units: "x", Limit: 2}, defaultsArgs{N: 1, Units: "x", Limit: 2, Inner: fast}},
		{`{"n":3,"inner":{"mode":"slow"}}`, defaultsArgs{N: 3, Units: "metric", Limit: 10, Inner: &innerDefault{Mode: "slow"}},
			defaultsArgs{N: 3, Units: "metric", Limit: 10, Inner: &innerDefault{Mode: "slow"}}},
		{`{"n":2,"inner":{}}`, defaultsArgs{N: 2, Units: "metric", Limit: 10, Inner: &innerDefault{}},
			defaultsArgs{N: 2, Units: "metric", Limit: 10, Inner: fast}},
		// Integers past 2^53 keep every digit on both paths.
		{`{"n":9007199254740993}`, defaultsArgs{N: 9007199254740993, Units: "metric", Limit: 10},
			defaultsArgs{N: 9007199254740993, Units: "metric", Limit: 10, Inner: fast}},
		{`{"n":-9007199254740993,"inner":{}}`, defaultsArgs{N: -9007199254740993, Units: "metric", Limit: 10, Inner: &innerDefault{}},
			defaultsArgs{N: -9007199254740993, Units: "metric", Limit: 10, Inner: fast}},
		// An integer written with an exponent is an integer.
		{`{"n":1e2,"inner":{}}`, defaultsArgs{N: 100, Units: "metric", Limit: 10, Inner: &innerDefault{}},
			defaultsArgs{N: 100, Units: "metric", Limit: 10, Inner: fast}},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, gotNested = defaultsArgs{}, nestedDefaultsArgs{}
			if _, err := flat.Execute(context.Background(), json.RawMessage(tt.raw), Invocation{CallID: "c"}, nil); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.flat, got); diff != "" {
				t.Errorf("root defaults (-want +got):\n%s", diff)
			}
			if _, err := nested.Execute(context.Background(), json.RawMessage(tt.raw), Invocation{CallID: "c"}, nil); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.nested, defaultsArgs(gotNested)); diff != "" {
				t.Errorf("nested defaults (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRootDefaultsAsLibrary: with defaults only on root properties, the
// validator fills them in itself; the arguments must be exactly what the
// library's ApplyDefaults makes of them, and each call must get its own
// copy of a default.
func TestRootDefaultsAsLibrary(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"units":{"type":"string","default":"metric"},"limit":{"type":"integer","default":1e1}}}`,
		`{"type":"object","properties":{"opts":{"type":"object","default":{"a":[1,{"b":null}],"c":"x"}},"tags":{"type":"array","default":["p","q"]},"on":{"type":"boolean","default":false},"none":{"default":null}},"required":[]}`,
		`{"type":"object","properties":{"id":{"type":"string","default":"required-so-ignored"},"n":{"type":"number","default":0.5}},"required":["id"]}`,
		`{"type":"object","properties":{"inner":{"type":"object","properties":{"k":{"type":"string"}},"default":{"k":"v"}}},"additionalProperties":true}`,
	}
	argsList := []string{`{}`, ``, `{"units":"imperial"}`, `{"limit":3,"opts":{"z":1}}`, `{"id":"a"}`, `{"id":"a","n":2,"extra":true}`,
		`{"inner":{"k":"w"}}`, `{"tags":[],"on":true,"none":1}`}
	for _, sc := range schemas {
		v, _, err := newValidator(json.RawMessage(sc), nil)
		if err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
		if !v.topDefaultsOnly {
			t.Fatalf("%s: want root defaults only", sc)
		}
		for _, raw := range argsList {
			got, _, err := v.validate("t", json.RawMessage(raw))
			if err != nil {
				continue // refused by the schema: nothing to compare
			}
			want := libraryDefaults(t, v, sc, raw, got)
			// Scribble over every default handed out: the next call must
			// not see it.
			for _, d := range v.defaults {
				switch x := got[d.name].(type) {
				case map[string]any:
					x["scribbled"] = true
				case []any:
					if len(x) > 0 {
						x[0] = "scribbled"
					}
				}
			}
			again, _, err := v.validate("t", json.RawMessage(raw))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, again); diff != "" {
				t.Errorf("%s with %s: a handed-out default was shared (-want +got)\n%s", sc, raw, diff)
			}
		}
	}
}

// A default is a default however its key is written: forge decides whether
// a schema has any from the parsed schema, as the library does, not from
// the document's bytes.
func TestEscapedDefaultKeyword(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"x":{"type":"string","def\u0061ult":"v"}}}`,
		`{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"string","\u0064efault":"w"}}}}}`,
	}
	for _, sc := range schemas {
		v, _, err := newValidator(json.RawMessage(sc), nil)
		if err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
		for _, raw := range []string{`{}`, `{"o":{}}`, `{"x":"given","o":{"k":"given"}}`} {
			got, _, err := v.validate("t", json.RawMessage(raw))
			if err != nil {
				t.Fatalf("%s with %s: %v", sc, raw, err)
			}
			libraryDefaults(t, v, sc, raw, got)
		}
	}
}

// libraryDefaults decodes raw and applies the schema's defaults to it with
// jsonschema-go's ApplyDefaults, reports where got differs from that, and
// returns it.
func libraryDefaults(t *testing.T, v *validator, schema, raw string, got map[string]any) map[string]any {
	t.Helper()
	want := map[string]any{}
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.root.ApplyDefaults(&want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s with %s: (-library +validator)\n%s", schema, raw, diff)
	}
	return want
}

// plainDefaultsArgs is a struct of plain fields with root defaults: the
// typed tool sets it from the validated arguments, defaults included.
type plainDefaultsArgs struct {
	City  string  `json:"city"`
	Days  int     `json:"days,omitempty"`
	Units string  `json:"units,omitempty"`
	Ratio float64 `json:"ratio,omitempty"`
	Exact bool    `json:"exact,omitempty"`
	Big   int64   `json:"big,omitempty"`
}

func (plainDefaultsArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.Properties["days"].Default = json.RawMessage(`3.0e0`)
	s.Properties["units"].Default = json.RawMessage(`"metric"`)
	s.Properties["ratio"].Default = json.RawMessage(`0.1`)
	s.Properties["exact"].Default = json.RawMessage(`true`)
	s.Properties["big"].Default = json.RawMessage(`9007199254740993`) // float64 rounds it, as the patch does
	return nil
}

// decodePlainDefaults is the typed decoding without structFill: the raw
// document, then the root defaults it lacks, re-encoded, over the struct.
func decodePlainDefaults(t *testing.T, v *validator, raw []byte) plainDefaultsArgs {
	t.Helper()
	var a plainDefaultsArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		plain, changed := plainIntegers(raw)
		if !changed {
			t.Fatalf("decode %s: %v", raw, err)
		}
		a = plainDefaultsArgs{}
		if err := json.Unmarshal(plain, &a); err != nil {
			t.Fatalf("decode %s: %v", plain, err)
		}
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(raw, &present); err != nil {
		t.Fatal(err)
	}
	var mask uint64
	for i, d := range v.defaults {
		if _, ok := present[d.name]; !ok {
			mask |= 1 << i
		}
	}
	if err := json.Unmarshal(v.defaultsPatch(mask), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func checkPlainDefaults(t *testing.T, tool *Tool, got *plainDefaultsArgs, raw []byte) {
	t.Helper()
	*got = plainDefaultsArgs{}
	if _, err := tool.Execute(context.Background(), raw, Invocation{}, nil); err != nil {
		return // refused: both paths decode only validated arguments
	}
	if diff := cmp.Diff(decodePlainDefaults(t, tool.v, raw), *got); diff != "" {
		t.Errorf("%s (-slow path +got):\n%s", raw, diff)
	}
}

func plainDefaultsTool(t testing.TB, got *plainDefaultsArgs) *Tool {
	tool := typedTool(t, got)
	if !tool.v.topDefaultsOnly || len(tool.v.defaults) != 5 {
		t.Fatalf("defaults = %+v top=%v, want five root defaults", tool.v.defaults, tool.v.topDefaultsOnly)
	}
	return tool
}

var plainDefaultsCases = []string{`{"city":"Oslo"}`, `{"city":"Oslo","days":7}`, `{"city":"x","units":"imperial","ratio":2.5e-1}`,
	`{"city":"x","days":1e1,"exact":false,"big":-12}`, `{"city":"x","big":9007199254740993}`, `{"city":"x","days":null}`,
	`{"city":"\u00e9","ratio":-0}`, `{"city":"x","days":2,"days":4}`}

// Root defaults of a struct of plain fields come out as the slower path,
// which decodes raw and then the defaults' patch, makes them.
func TestPlainDefaultsAsSlowPath(t *testing.T) {
	var got plainDefaultsArgs
	tool := plainDefaultsTool(t, &got)
	for _, raw := range plainDefaultsCases {
		checkPlainDefaults(t, tool, &got, []byte(raw))
	}
	if _, err := tool.Execute(context.Background(), []byte(`{"city":"Oslo"}`), Invocation{}, nil); err != nil {
		t.Fatal(err)
	}
	want := plainDefaultsArgs{City: "Oslo", Days: 3, Units: "metric", Ratio: 0.1, Exact: true, Big: 9007199254740992}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func FuzzPlainDefaults(f *testing.F) {
	for _, raw := range plainDefaultsCases {
		f.Add([]byte(raw))
	}
	var got plainDefaultsArgs
	tool := plainDefaultsTool(f, &got)
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkPlainDefaults(t, tool, &got, raw)
	})
}
