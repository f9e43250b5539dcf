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
