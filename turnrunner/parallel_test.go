package turnrunner_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// Calls waiting for a slot when the turn is cancelled never run: they are
// stored incomplete and marked cancelled, in call order, next to the one
// that was running.
func TestCancelWhileCallsWaitForASlot(t *testing.T) {
	started := make(chan struct{})
	var runs atomic.Int32
	block := textTool(t, "block", func(ctx context.Context, args map[string]any) (string, error) {
		if runs.Add(1) == 1 {
			close(started)
		}
		<-ctx.Done()
		return "", ctx.Err()
	}, nil)
	m := scripted.New(scripted.Use(
		scripted.Call{ID: "a", Name: "block", Args: `{"q":"1"}`},
		scripted.Call{ID: "b", Name: "block", Args: `{"q":"2"}`},
		scripted.Call{ID: "c", Name: "block", Args: `{"q":"3"}`}))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{block}, MaxParallelTools: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Run(ctx, turnrunner.Input{TurnID: "q", Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-started; cancel() }()
	evs := collect(t, ch)
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnAborted {
		t.Fatalf("TurnEnd %+v", end)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("%d handlers ran, want 1 (the others were waiting for the slot)", n)
	}
	calls := storedCalls(t, r, "q")
	if len(calls) != 3 {
		t.Fatalf("stored %d calls, want 3", len(calls))
	}
	for i, c := range calls {
		if want := string(rune('a' + i)); c.ID() != want {
			t.Errorf("calls[%d] = %s, want %s", i, c.ID(), want)
		}
		if c.IsComplete() || !c.IsError() || !strings.Contains(resultText(t, c), "cancelled") {
			t.Errorf("%s: complete=%v error=%v %q", c.ID(), c.IsComplete(), c.IsError(), resultText(t, c))
		}
	}
}
