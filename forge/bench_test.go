package forge

import (
	"context"
	"encoding/json"
	"testing"
)

type benchArgs struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty"`
}

// BenchmarkExecute measures executor overhead with a no-op handler: decode,
// validation, callId checksum, invocation, events and the handler call.
func BenchmarkExecute(b *testing.B) {
	raw := json.RawMessage(`{"city":"Oslo","days":3}`)
	noop := Output{kind: OutputText}
	typed, err := NewTypedTool("weather", "d", func(context.Context, benchArgs, Invocation) (Output, error) { return noop, nil }, nil)
	if err != nil {
		b.Fatal(err)
	}
	untyped, err := NewTool("weather", "d", json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"],"additionalProperties":false}`),
		func(context.Context, map[string]any, Invocation) (Output, error) { return noop, nil }, nil)
	if err != nil {
		b.Fatal(err)
	}
	timed, err := NewTool("weather", "d", untyped.Schema(),
		func(context.Context, map[string]any, Invocation) (Output, error) { return noop, nil }, &ToolOptions{Timeout: 1e9})
	if err != nil {
		b.Fatal(err)
	}
	obs := &nopObserver{}
	cases := []struct {
		name string
		tool *Tool
		inv  Invocation
	}{
		{"typed", typed, Invocation{}},
		{"untyped", untyped, Invocation{}},
		{"untyped_timeout", timed, Invocation{}},
		{"untyped_presetCallID", untyped, Invocation{CallID: "c"}},
	}
	ctx := context.Background()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.tool.Execute(ctx, raw, c.inv, obs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The floors: decoding alone, and decoding plus the schema library's
	// validation; Execute's own overhead is the difference.
	b.Run("floor_decode_validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				b.Fatal(err)
			}
			if err := untyped.v.root.Validate(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor_decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type nopObserver struct{}

func (*nopObserver) ToolExecutionStart(ExecutionStart) {}
func (*nopObserver) ToolExecutionEnd(ExecutionEnd)     {}

func BenchmarkEstimateTokensCached(b *testing.B) {
	tok := NewTokenizable("The quick brown fox jumps over the lazy dog.")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tok.EstimateTokens(EncodingCL100K); err != nil {
			b.Fatal(err)
		}
	}
}
