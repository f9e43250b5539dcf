package turnrunner_test

import (
	"context"
	"fmt"
	"iter"
	"testing"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/cputime"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/media"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
)

// BenchmarkToolCallOverhead measures the runner's cost per tool call: a
// scripted response with 64 calls of a no-op tool, then an answer. Per call
// the runner parses, checksums, validates, executes, emits four events and
// stores. The sub-benchmarks separate runner overhead from result handling:
//
//   - text: the tool returns text, which is spooled into an artifact, and
//     the next iteration forges artifact_* tools over the 64 artifacts;
//   - artifact: the tool returns one artifact built once (no spooling, but
//     the artifact tools are still forged over it);
//   - media: the tool returns one media built once (no spooling, no forging):
//     the runner's own overhead.
//
// ns/call is the turn's wall time divided by its calls; cpu-ns/call is the
// process CPU time (user+system, all cores) per call, steadier on a shared
// machine.
func BenchmarkToolCallOverhead(b *testing.B) {
	ctx := context.Background()
	art, err := spooledartifact.SpoolString(ctx, spooledartifact.NewMemoryStore(), "prebuilt", nil, "ok")
	if err != nil {
		b.Fatal(err)
	}
	img, err := media.ToolGenerated(media.Raw{Kind: media.KindImage, MIMEType: "image/png", Filename: "x.png",
		Reader: media.NewMemoryReader([]byte("\x89PNG"))})
	if err != nil {
		b.Fatal(err)
	}
	outputs := []struct {
		name string
		out  forge.Output
	}{
		{"text", forge.TextOutput("ok")},
		{"artifact", forge.ArtifactOutput(art)},
		{"media", forge.MediaOutput(img)},
	}
	for _, o := range outputs {
		b.Run(o.name, func(b *testing.B) { benchToolCalls(b, o.out) })
	}
}

func benchToolCalls(b *testing.B, out forge.Output) {
	const perTurn = 64
	noop, err := forge.NewTool("noop", "does nothing", objectSchema,
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			return out, nil
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
	c0, cpuOK := cputime.Process()
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
	if c1, ok := cputime.Process(); cpuOK && ok {
		b.ReportMetric(float64(c1-c0)/float64(b.N*perTurn), "cpu-ns/call")
	}
}

// BenchmarkEventThroughput streams 10,000 text deltas per turn from the
// scripted model through the channel to a consumer; events/s is the metric
// (wall time), cpu-ns/event the process CPU time per event.
func BenchmarkEventThroughput(b *testing.B) {
	const parts = 10000
	chunks := make([]string, parts)
	for i := range chunks {
		chunks[i] = "tok "
	}
	step := scripted.Say(chunks...)
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		return func(yield func(llm.Part, error) bool) { scripted.Play(ctx, step, yield) }
	})
	r := newRunner(b, model, &turnrunner.Options{EventBuffer: 1024})
	ctx := context.Background()
	var events int
	b.ReportAllocs()
	c0, cpuOK := cputime.Process()
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
	if c1, ok := cputime.Process(); cpuOK && ok && events > 0 {
		b.ReportMetric(float64(c1-c0)/float64(events), "cpu-ns/event")
	}
}

// BenchmarkToolCallPerIteration measures the common shape: one call of a
// trivial typed tool per response, ten responses, then an answer. Every
// iteration adds one artifact, served by the artifact_* tools forged with
// the first.
func BenchmarkToolCallPerIteration(b *testing.B) {
	const iterations = 10
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	add, err := forge.NewTypedTool("add", "adds two numbers",
		func(ctx context.Context, a addArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput(fmt.Sprint(a.A + a.B)), nil
		}, nil)
	if err != nil {
		b.Fatal(err)
	}
	steps := make([]scripted.Step, 0, iterations+1)
	for i := range iterations {
		steps = append(steps, scripted.Use(scripted.Call{ID: fmt.Sprintf("c%d", i), Name: "add", Args: fmt.Sprintf(`{"a":%d,"b":2}`, i)}))
	}
	steps = append(steps, scripted.Say("done"))
	m := scripted.New(steps...)
	r := newRunner(b, m, &turnrunner.Options{Tools: []*forge.Tool{add}})
	ctx := context.Background()
	b.ReportAllocs()
	c0, cpuOK := cputime.Process()
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
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*iterations), "ns/call")
	if c1, ok := cputime.Process(); cpuOK && ok {
		b.ReportMetric(float64(c1-c0)/float64(b.N*iterations), "cpu-ns/call")
	}
}
