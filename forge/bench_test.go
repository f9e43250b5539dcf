package forge

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/internal/cputime"
)

// Executor overhead per call with a no-op handler. The target is under
// 5 µs on top of argument decoding. BenchmarkDecodeOnly and
// BenchmarkValidateOnly are references: encoding/json's decoding, and the
// compiled validator, which decides only for schemas outside the flat shape
// (see flatObject) and words failures. docs/benchmarks.md has the command
// and the current figures.

type benchArgs struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty"`
}

// benchDefaultsArgs has a default, so the typed path must apply it.
type benchDefaultsArgs struct {
	City  string `json:"city"`
	Days  int    `json:"days,omitempty"`
	Units string `json:"units,omitempty"`
}

func (benchDefaultsArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.Properties["units"].Default = json.RawMessage(`"metric"`)
	return nil
}

var (
	benchRaw    = json.RawMessage(`{"city":"Oslo","days":3}`)
	benchSchema = json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"],"additionalProperties":false}`)
)

func benchTools(b *testing.B) map[string]*Tool {
	b.Helper()
	noop := Output{kind: OutputText}
	untypedH := func(context.Context, map[string]any, Invocation) (Output, error) { return noop, nil }
	typed, err := NewTypedTool("weather", "d", func(context.Context, benchArgs, Invocation) (Output, error) { return noop, nil }, nil)
	if err != nil {
		b.Fatal(err)
	}
	typedDefaults, err := NewTypedTool("weather", "d", func(context.Context, benchDefaultsArgs, Invocation) (Output, error) { return noop, nil }, nil)
	if err != nil {
		b.Fatal(err)
	}
	untyped, err := NewTool("weather", "d", benchSchema, untypedH, nil)
	if err != nil {
		b.Fatal(err)
	}
	timed, err := NewTool("weather", "d", benchSchema, untypedH, &ToolOptions{Timeout: 1e9})
	if err != nil {
		b.Fatal(err)
	}
	return map[string]*Tool{"typed": typed, "typed_defaults": typedDefaults, "untyped": untyped, "timeout": timed}
}

// BenchmarkExecute measures Execute end to end with a no-op handler:
// decoding, validation, callId checksum, invocation, events and the call.
func BenchmarkExecute(b *testing.B) {
	tools := benchTools(b)
	obs := &nopObserver{}
	bg := context.Background()
	// A cancellable context (as a dispatch has) runs the handler on its own
	// goroutine, like a tool timeout does.
	cancellable, cancel := context.WithCancel(bg)
	defer cancel()
	cases := []struct {
		name string
		tool *Tool
		ctx  context.Context
		inv  Invocation
	}{
		{"typed", tools["typed"], bg, Invocation{}},
		{"typed_defaults", tools["typed_defaults"], bg, Invocation{}},
		{"untyped", tools["untyped"], bg, Invocation{}},
		{"untyped_timeout", tools["timeout"], bg, Invocation{}},
		{"untyped_cancellable_ctx", tools["untyped"], cancellable, Invocation{}},
		{"untyped_presetCallID", tools["untyped"], bg, Invocation{CallID: "c"}},
		{"typed_presetCallID", tools["typed"], bg, Invocation{CallID: "c"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			loop(b, func() {
				if _, err := c.tool.Execute(c.ctx, benchRaw, c.inv, obs); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkExecuteRefChecksum is the callId checksum alone
// (canonical.ChecksumJSON over the raw arguments), the part of Execute that
// Invocation.CallID skips when set.
func BenchmarkExecuteRefChecksum(b *testing.B) {
	loop(b, func() {
		if _, err := canonical.ChecksumJSON("weather", benchRaw); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkValidateOnly is validation alone on already decoded arguments:
// the compiled schema that decides (santhosh-tekuri/jsonschema), the floor
// of every call, and jsonschema-go's Resolved.Validate for comparison (it
// only runs to explain a failure).
func BenchmarkValidateOnly(b *testing.B) {
	tools := benchTools(b)
	var args map[string]any
	if err := json.Unmarshal(benchRaw, &args); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"untyped", "typed"} {
		v := tools[name].v
		b.Run(name+"/compiled", func(b *testing.B) {
			loop(b, func() {
				if err := v.check.Validate(args); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(name+"/jsonschema-go", func(b *testing.B) {
			loop(b, func() {
				if err := v.root.Validate(args); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkDecodeOnly is decoding the arguments alone: encoding/json into
// map[string]any (what Execute uses) and into the typed tool's struct (what
// typed tools add).
func BenchmarkDecodeOnly(b *testing.B) {
	b.Run("encoding_json_map", func(b *testing.B) {
		loop(b, func() {
			var m map[string]any
			if err := json.Unmarshal(benchRaw, &m); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("decodeObject", func(b *testing.B) { // what Execute uses
		loop(b, func() {
			if _, err := decodeObject(benchRaw, nil); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("encoding_json_struct", func(b *testing.B) {
		loop(b, func() {
			var a benchArgs
			if err := json.Unmarshal(benchRaw, &a); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkValidate is Tool.Validate: decoding plus validation, no handler.
func BenchmarkValidate(b *testing.B) {
	tools := benchTools(b)
	for _, name := range []string{"untyped", "typed"} {
		tool := tools[name]
		b.Run(name, func(b *testing.B) {
			loop(b, func() {
				if _, err := tool.Validate(benchRaw); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkNewToolCall is recording a settled call as a runner does after
// each tool call: raw JSON arguments and one spooled artifact.
func BenchmarkNewToolCall(b *testing.B) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	inline := true
	raw := RawToolCall{ID: "call_1", Tool: "weather", Args: benchRaw, Checksum: sum64,
		Results: ArtifactResults(fakeArtifact{id: "a1", kind: "SpooledArtifact"}), IsComplete: true, Inline: &inline,
		CreatedAt: at, UpdatedAt: at.Add(time.Millisecond), CompletedAt: at.Add(time.Millisecond)}
	loop(b, func() {
		if _, err := NewToolCall(raw); err != nil {
			b.Fatal(err)
		}
	})
}

// loop runs f b.N times via b.Loop and reports, besides ns/op (wall), the
// process CPU time per op as cpu-ns/op where the platform tells it.
func loop(b *testing.B, f func()) {
	b.Helper()
	b.ReportAllocs()
	c0, ok := cputime.Process()
	for b.Loop() {
		f()
	}
	if c1, ok1 := cputime.Process(); ok && ok1 && b.N > 0 {
		b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
	}
}

type nopObserver struct{}

func (*nopObserver) ToolExecutionStart(ExecutionStart) {}
func (*nopObserver) ToolExecutionEnd(ExecutionEnd)     {}

func BenchmarkEstimateTokensCached(b *testing.B) {
	tok := NewTokenizable("The quick brown fox jumps over the lazy dog.")
	loop(b, func() {
		if _, err := tok.EstimateTokens(EncodingCL100K); err != nil {
			b.Fatal(err)
		}
	})
}
