package turnrunner_test

import (
	"context"
	"fmt"
	"iter"
	"testing"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// BenchmarkToolCallOverhead measures the runner's cost per tool call: a
// scripted response with 64 calls of a no-op tool (parse, checksum,
// validation, execution, spooling, four events, storage), then an answer.
// The ns/call metric is the turn's time divided by its calls.
func BenchmarkToolCallOverhead(b *testing.B) {
	const perTurn = 64
	noop, err := forge.NewTool("noop", "does nothing", objectSchema,
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("ok"), nil
		}, nil)
	if err != nil {
		b.Fatal(err)
	}
	calls := make([]scripted.Call, perTurn)
	for i := range calls {
		calls[i] = scripted.Call{ID: fmt.Sprintf("c%d", i), Name: "noop", Args: fmt.Sprintf(`{"q":"%d"}`, i)}
	}
	m := scripted.New(scripted.Use(calls...), scripted.Say("done"))
	r := newRunner(b, m, &turnrunner.Options{Tools: []*forge.Tool{noop}, EventBuffer: 256})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.Reset()
		ch, err := r.Run(ctx, turnrunner.Input{Prompt: "go"})
		if err != nil {
			b.Fatal(err)
		}
		for ev := range ch {
			if e, ok := ev.(turnrunner.TurnEnd); ok && e.Status != turnrunner.TurnCompleted {
				b.Fatalf("turn %s: %v", e.Status, e.Err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perTurn), "ns/call")
}

// BenchmarkEventThroughput streams 10,000 text deltas per turn from the
// scripted model through the channel to a consumer; events/s is the metric.
func BenchmarkEventThroughput(b *testing.B) {
	const parts = 10000
	chunks := make([]string, parts)
	for i := range chunks {
		chunks[i] = "tok "
	}
	m := scripted.New()
	step := scripted.Say(chunks...)
	model := turnrunner.ModelFunc(func(ctx context.Context, req *turnrunner.Request) iter.Seq2[turnrunner.Part, error] {
		return func(yield func(turnrunner.Part, error) bool) { scripted.Play(ctx, step, yield) }
	})
	_ = m
	r := newRunner(b, model, &turnrunner.Options{EventBuffer: 1024})
	ctx := context.Background()
	var events int
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ch, err := r.Run(ctx, turnrunner.Input{})
		if err != nil {
			b.Fatal(err)
		}
		for range ch {
			events++
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
