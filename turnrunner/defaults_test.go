package turnrunner_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// TestDefaultParallelismRunsSixteenCallsAtOnce checks that on the default
// settings the sixteen calls of one response all run at the same time:
// each waits until every one has started, so a smaller bound would leave
// the first ones waiting for calls that never start and time them out.
func TestDefaultParallelismRunsSixteenCallsAtOnce(t *testing.T) {
	const n = turnrunner.DefaultMaxParallelTools
	if n != 16 {
		t.Fatalf("DefaultMaxParallelTools = %d, want 16", n)
	}
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	wait := textTool(t, "wait", func(ctx context.Context, args map[string]any) (string, error) {
		started.Done()
		select {
		case <-all:
			return "together", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}, &forge.ToolOptions{Timeout: 5 * time.Second})
	calls := make([]scripted.Call, n)
	for i := range calls {
		calls[i] = scripted.Call{ID: fmt.Sprintf("c%d", i), Name: "wait", Args: fmt.Sprintf(`{"q":"%d"}`, i)}
	}
	m := scripted.New(scripted.Use(calls...), scripted.Say("ok"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{wait}})
	evs := run(t, r, turnrunner.Input{TurnID: "par", Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	for _, c := range storedCalls(t, r, "par") {
		if got := resultText(t, c); got != "together" {
			t.Errorf("%s: %q, want every call to have run alongside the others", c.ID(), got)
		}
	}
}
