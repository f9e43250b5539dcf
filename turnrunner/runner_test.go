package turnrunner_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

func TestRunEndToEnd(t *testing.T) {
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) {
		return "echo:" + args["q"].(string), nil
	}, nil)
	m := scripted.New(
		scripted.Step{Thoughts: []string{"let me ", "check"}, Text: []string{"Checking."},
			Calls: []scripted.Call{{ID: "c1", Name: "echo", Args: `{"q":"hi"}`, Pieces: 3}}},
		scripted.Say("The tool ", "said hi."),
	)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	evs := run(t, r, turnrunner.Input{TurnID: "t1", System: "be brief", Prompt: "say hi"})

	end := turnEnd(t, evs)
	if end.Status != turnrunner.TurnCompleted || end.Err != nil {
		t.Fatalf("TurnEnd = %+v", end)
	}
	if _, ok := evs[0].(turnrunner.TurnStart); !ok {
		t.Fatalf("first event %T", evs[0])
	}

	calls := ofType[turnrunner.ToolCallContent](evs)
	if len(calls) != 2 {
		t.Fatalf("got %d tool call events, want 2", len(calls))
	}
	if calls[0].IsComplete || calls[0].ID != "c1" || string(calls[0].Args) != `{"q":"hi"}` {
		t.Errorf("announce = %+v", calls[0])
	}
	if !calls[1].IsComplete || calls[1].IsError || calls[1].ID != "c1" || calls[1].Checksum != calls[0].Checksum {
		t.Errorf("complete = %+v", calls[1])
	}
	starts := ofType[turnrunner.ToolExecutionStart](evs)
	if len(starts) != 1 || starts[0].Checksum != calls[0].Checksum || starts[0].ToolCallID != calls[0].ID {
		t.Errorf("ToolExecutionStart = %+v, want call %s with checksum %s", starts, calls[0].ID, calls[0].Checksum)
	}

	// The second request shows the model its tool call and the result.
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model called %d times", len(reqs))
	}
	if reqs[0].System != "be brief" || len(reqs[0].Tools) != 1 {
		t.Errorf("first request: system %q, %d tools", reqs[0].System, len(reqs[0].Tools))
	}
	var kinds []string
	var result string
	for _, e := range reqs[1].Timeline {
		kinds = append(kinds, string(e.Kind()))
		if e.ToolCall != nil {
			s, err := llm.RenderResult(context.Background(), e.ToolCall)
			if err != nil {
				t.Fatal(err)
			}
			result = s
		}
	}
	if d := cmp.Diff([]string{"message", "thought", "message", "toolCall"}, kinds); d != "" {
		t.Errorf("timeline kinds (-want +got):\n%s", d)
	}
	if result != "echo:hi" {
		t.Errorf("result = %q", result)
	}
	// Artifact tools were forged over the spooled result.
	var names []string
	for _, d := range reqs[1].Tools {
		names = append(names, d.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "artifact_grep") {
		t.Errorf("second request tools = %v, want artifact_* tools", names)
	}

	// Messages stream with accumulated Full text.
	deltas := ofType[turnrunner.MessageDelta](evs)
	last := deltas[len(deltas)-1]
	if !last.IsComplete || last.Full != "The tool said hi." {
		t.Errorf("last MessageDelta = %+v", last)
	}

	// The store holds the whole turn.
	tl, err := r.Store().Load(context.Background(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	kinds = kinds[:0]
	for _, e := range tl {
		kinds = append(kinds, string(e.Kind()))
	}
	if d := cmp.Diff([]string{"message", "thought", "message", "toolCall", "message"}, kinds); d != "" {
		t.Errorf("stored kinds (-want +got):\n%s", d)
	}
	if tl[4].Message.Role() != dispatch.RoleAssistant {
		t.Errorf("last stored message role %s", tl[4].Message.Role())
	}
}

func TestRunModelError(t *testing.T) {
	boom := errors.New("boom")
	m := scripted.New(scripted.Step{Text: []string{"partial"}, Err: boom})
	r := newRunner(t, m, nil)
	evs := run(t, r, turnrunner.Input{Prompt: "x"})
	end := turnEnd(t, evs)
	if end.Status != turnrunner.TurnFailed || !errors.Is(end.Err, turnrunner.ErrModel) || !errors.Is(end.Err, boom) {
		t.Fatalf("TurnEnd = %+v", end)
	}
	if len(ofType[turnrunner.Error](evs)) != 1 {
		t.Errorf("want one Error event mid-stream")
	}
}

// Two identical calls of one response are two executions: their events
// share the checksum and tell the calls apart by the tool call's id.
func TestExecutionEventsCarryTheToolCallID(t *testing.T) {
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(scripted.Use(
		scripted.Call{ID: "a1", Name: "echo", Args: `{"q":"same"}`},
		scripted.Call{ID: "a2", Name: "echo", Args: `{"q":"same"}`},
	), scripted.Say("done"))
	evs := run(t, newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}}), turnrunner.Input{Prompt: "go"})
	var starts, ends []string
	sums := map[string]bool{}
	for _, e := range ofType[turnrunner.ToolExecutionStart](evs) {
		starts, sums[e.Checksum] = append(starts, e.ToolCallID), true
	}
	for _, e := range ofType[turnrunner.ToolExecutionEnd](evs) {
		ends, sums[e.Checksum] = append(ends, e.ToolCallID), true
	}
	slices.Sort(starts)
	slices.Sort(ends)
	if want := []string{"a1", "a2"}; !slices.Equal(starts, want) || !slices.Equal(ends, want) {
		t.Errorf("execution events for calls %v (start) and %v (end), want %v for both", starts, ends, want)
	}
	if len(sums) != 1 {
		t.Errorf("%d checksums for two identical calls, want 1", len(sums))
	}
}

// One runner serves turns on many goroutines at once: each turn streams
// its own answer to its own channel, and nothing they share races (the
// suite runs under -race).
func TestConcurrentTurnsOfOneRunner(t *testing.T) {
	r := newRunner(t, llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		prompt := req.Timeline[len(req.Timeline)-1].Message.Text()
		return func(yield func(llm.Part, error) bool) {
			_ = yield(llm.TextPart("re: "+prompt), nil) && yield(llm.StopPart(llm.StopEnd), nil)
		}
	}), nil)
	const turns = 8
	answers := make([]string, turns)
	var wg sync.WaitGroup
	for i := range turns {
		wg.Go(func() {
			ch, err := r.Run(context.Background(), turnrunner.Input{Prompt: fmt.Sprint("q", i)})
			if err != nil {
				t.Error(err)
				return
			}
			for ev := range ch {
				switch e := ev.(type) {
				case turnrunner.MessageDelta:
					if e.IsComplete {
						answers[i] = e.Full
					}
				case turnrunner.TurnEnd:
					if e.Status != turnrunner.TurnCompleted {
						t.Errorf("turn %d: %s (%v)", i, e.Status, e.Err)
					}
				}
			}
		})
	}
	wg.Wait()
	for i, a := range answers {
		if want := fmt.Sprint("re: q", i); a != want {
			t.Errorf("turn %d answered %q, want %q", i, a, want)
		}
	}
}
