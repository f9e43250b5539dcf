package turnrunner_test

// Tests of the runner's documented contract: each names the requirement it
// proves.

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// "thought deltas (with opaque payloads for replay)": deltas accumulate in
// Full; the completing event carries the payload and its replay tag; the
// stored thought keeps them, and the next request replays it.
func TestThoughtDeltasCarryOpaquePayloads(t *testing.T) {
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) { return "x", nil }, nil)
	m := scripted.New(
		scripted.Step{Thoughts: []string{"let me ", "think"}, ThoughtPayload: json.RawMessage(`{"signature":"sig-1"}`),
			ReplayCompatibility: "anthropic", Calls: []scripted.Call{{ID: "c", Name: "echo", Args: `{}`}}},
		scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	evs := run(t, r, turnrunner.Input{TurnID: "th", Prompt: "go"})
	completed(t, evs)
	type delta struct {
		Delta, Full, Payload, Compat string
		Complete                     bool
	}
	var got []delta
	ds := ofType[turnrunner.ThoughtDelta](evs)
	for _, d := range ds {
		if d.ID != ds[0].ID {
			t.Errorf("thought ids differ: %s vs %s", d.ID, ds[0].ID)
		}
		got = append(got, delta{d.Delta, d.Full, string(d.Payload), d.ReplayCompatibility, d.IsComplete})
	}
	want := []delta{
		{"let me ", "let me ", "", "", false},
		{"think", "let me think", "", "", false},
		{"", "let me think", `{"signature":"sig-1"}`, "anthropic", true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("thought deltas (-want +got):\n%s", d)
	}
	if ds[2].CompletedAt.IsZero() {
		t.Error("completing thought delta has no CompletedAt")
	}
	replayed := m.Requests()[1].Timeline[1].Thought
	if replayed == nil || string(replayed.Payload()) != `{"signature":"sig-1"}` || replayed.Content().String() != "let me think" ||
		!replayed.Replayable("anthropic") || replayed.Replayable("openai") {
		t.Errorf("replayed thought %+v", replayed)
	}
}

// "usage and a stop reason" reach the caller: one GenerationStats per model
// call; ModelOptions reach the model.
func TestGenerationStatsCarryUsageAndStopReason(t *testing.T) {
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) { return "x", nil }, nil)
	u := llm.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15, CachedTokens: 2, ReasoningTokens: 1}
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{Name: "echo", Args: `{}`}}, Usage: &u},
		scripted.Step{Text: []string{"done"}, Stop: llm.StopContentFilter})
	temp := 0.2
	opts := llm.ModelOptions{MaxTokens: 99, Temperature: &temp, Extra: json.RawMessage(`{"k":1}`)}
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, ModelOptions: opts})
	evs := run(t, r, turnrunner.Input{Prompt: "go"})
	completed(t, evs)
	stats := ofType[turnrunner.GenerationStats](evs)
	if len(stats) != 2 {
		t.Fatalf("%d GenerationStats, want 2", len(stats))
	}
	if !stats[0].HasUsage || stats[0].Usage != u || stats[0].StopReason != llm.StopToolUse || stats[0].Iteration != 0 {
		t.Errorf("stats[0] = %+v", stats[0])
	}
	if stats[1].HasUsage || stats[1].StopReason != llm.StopContentFilter || stats[1].Iteration != 1 {
		t.Errorf("stats[1] = %+v", stats[1])
	}
	for i, req := range m.Requests() {
		if d := cmp.Diff(opts, req.Options); d != "" {
			t.Errorf("request %d options (-want +got):\n%s", i, d)
		}
	}
}

// "announce (same id, tool, args, checksum over the raw args,
// IsComplete=false) then complete (results, IsError, IsComplete=true,
// CompletedAt)", and "tool execution start/end (joined to tool-call events
// by checksum)".
func TestToolCallEventsShareTheChecksum(t *testing.T) {
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) { return "out", nil }, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "c", Name: "echo", Args: `{ "q" : "v" }`}), scripted.Say("ok"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	evs := run(t, r, turnrunner.Input{TurnID: "cs", Prompt: "go"})
	completed(t, evs)
	want, err := canonical.Checksum("echo", json.RawMessage(`{"q":"v"}`))
	if err != nil {
		t.Fatal(err)
	}
	tc := ofType[turnrunner.ToolCallContent](evs)
	if len(tc) != 2 {
		t.Fatalf("%d ToolCallContent events", len(tc))
	}
	ann, done := tc[0], tc[1]
	if ann.ID != "c" || ann.Tool != "echo" || string(ann.Args) != `{ "q" : "v" }` || ann.Checksum != want ||
		ann.IsComplete || ann.Results.Text() != nil || len(ann.Results.Artifacts()) > 0 || len(ann.Results.Media()) > 0 || !ann.CompletedAt.IsZero() || ann.Call != nil {
		t.Errorf("announce = %+v", ann)
	}
	if done.ID != "c" || done.Checksum != want || !done.IsComplete || done.IsError || done.CompletedAt.IsZero() ||
		len(done.Results.Artifacts()) == 0 || done.Call == nil || done.Call.Checksum() != want {
		t.Errorf("complete = %+v", done)
	}
	starts, ends := ofType[turnrunner.ToolExecutionStart](evs), ofType[turnrunner.ToolExecutionEnd](evs)
	if len(starts) != 1 || len(ends) != 1 || starts[0].Checksum != want || ends[0].Checksum != want || ends[0].IsError {
		t.Errorf("execution events: %+v %+v", starts, ends)
	}
	if s := storedCalls(t, r, "cs"); s[0].Checksum() != want {
		t.Errorf("stored checksum %s", s[0].Checksum())
	}
}

// An empty argument string is {}; with no tools at all the unknown
// tool text says so; bytes are spooled; artifact tools answer inline text.
func TestArgumentsToolsAndResultKinds(t *testing.T) {
	t.Run("empty args and no tools", func(t *testing.T) {
		m := scripted.New(scripted.Use(scripted.Call{ID: "c", Name: "ghost", Args: ""}), scripted.Say("ok"))
		r := newRunner(t, m, nil)
		completed(t, run(t, r, turnrunner.Input{TurnID: "nt", Prompt: "go"}))
		c := storedCalls(t, r, "nt")[0]
		if got := resultText(t, c); !c.IsError() || got != "E_TOOL_NOT_FOUND: Tool not found: ghost. No tools are available this turn." ||
			string(c.Args()) != "{}" {
			t.Errorf("%q args %s", got, c.Args())
		}
	})
	t.Run("bytes spooled, artifact tool inline", func(t *testing.T) {
		bin, err := forge.NewTool("bin", "bytes", objectSchema,
			func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
				return forge.BytesOutput([]byte("a\nb\n")), nil
			}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := scripted.New(
			scripted.Use(scripted.Call{ID: "b", Name: "bin", Args: ""}),
			scripted.Use(scripted.Call{ID: "h", Name: "artifact_line_count", Args: `{"callId":"b"}`}),
			scripted.Say("ok"))
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{bin}})
		completed(t, run(t, r, turnrunner.Input{TurnID: "bk", Prompt: "go"}))
		calls := storedCalls(t, r, "bk")
		if len(calls[0].Results().Artifacts()) == 0 || resultText(t, calls[0]) != "a\nb\n" {
			t.Errorf("bytes result %+v %q", calls[0].Results(), resultText(t, calls[0]))
		}
		if c := calls[1]; c.IsError() || c.Results().Text() == nil || !c.FromArtifactTool() ||
			resultText(t, c) != "2" { // "a\nb\n" is two lines
			t.Errorf("artifact tool result: error %v text %v fromArt %v %q", c.IsError(), c.Results().Text() != nil, c.FromArtifactTool(), resultText(t, c))
		}
	})
}

// "dispatch end (ack/nack/aborted)": an explicit Nack ends the dispatch
// with status nack and its error.
func TestDispatchEndNack(t *testing.T) {
	refused := errors.New("refused")
	nack := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		_ = dc.Nack(refused)
		return next(ctx)
	}
	r := newRunner(t, scripted.New(scripted.Say("hi")), &turnrunner.Options{DispatchOutput: []turnrunner.DispatchMiddleware{nack}})
	evs := run(t, r, turnrunner.Input{Prompt: "go"})
	de := ofType[turnrunner.DispatchEnd](evs)
	if len(de) != 1 || de[0].Status != turnrunner.TurnFailed || !errors.Is(de[0].Err, refused) || de[0].Iterations != 1 {
		t.Errorf("DispatchEnd = %+v", de)
	}
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnFailed || !errors.Is(end.Err, refused) {
		t.Errorf("TurnEnd = %+v", end)
	}
}

// "Backpressure: a slow consumer slows the runner; events are never
// dropped." With a one-slot buffer the model cannot run ahead of a consumer
// that stopped reading, and every delta arrives, in order.
func TestBackpressureSlowsTheRunnerAndDropsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const parts = 200
		var yielded atomic.Int32
		model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
			return func(yield func(llm.Part, error) bool) {
				for range parts {
					yielded.Add(1)
					if !yield(llm.TextPart("x"), nil) {
						return
					}
				}
			}
		})
		r := newRunner(t, model, &turnrunner.Options{EventBuffer: 1})
		ch, err := r.Run(context.Background(), turnrunner.Input{Prompt: "go"})
		if err != nil {
			t.Fatal(err)
		}
		<-ch // TurnStart
		synctest.Wait()
		// Blocked on the full channel: one event buffered, one being sent.
		if n := yielded.Load(); n > 3 {
			t.Errorf("model ran %d parts ahead of a stalled consumer", n)
		}
		var full []string
		for ev := range ch {
			if d, ok := ev.(turnrunner.MessageDelta); ok && !d.IsComplete {
				full = append(full, d.Full)
				if d.Delta != "x" {
					t.Fatalf("delta %q", d.Delta)
				}
			}
		}
		if len(full) != parts || full[parts-1] != strings.Repeat("x", parts) {
			t.Errorf("received %d deltas, want %d", len(full), parts)
		}
		for i, f := range full {
			if len(f) != i+1 {
				t.Fatalf("delta %d out of order: Full has %d bytes", i, len(f))
			}
		}
	})
}
