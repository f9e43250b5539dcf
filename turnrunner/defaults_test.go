package turnrunner_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/spooledartifact"
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

// TestArtifactToolsForgedOncePerTurn records, at every iteration, the
// artifact_head tool offered: none before the first artifact, then the
// same tool for the rest of the turn, which answers for the artifacts that
// came after it was forged.
func TestArtifactToolsForgedOncePerTurn(t *testing.T) {
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) {
		return "line one\nline " + args["q"].(string), nil
	}, nil)
	m := scripted.New(
		scripted.Use(scripted.Call{ID: "c0", Name: "echo", Args: `{"q":"a"}`}),
		scripted.Use(scripted.Call{ID: "h1", Name: spooledartifact.ToolHead, Args: `{"callId":"c0"}`}),
		scripted.Use(scripted.Call{ID: "h2", Name: spooledartifact.ToolTail, Args: `{"callId":"c0"}`}),
		scripted.Use(scripted.Call{ID: "c1", Name: "echo", Args: `{"q":"b"}`}),
		scripted.Use(scripted.Call{ID: "h3", Name: spooledartifact.ToolTail, Args: `{"callId":"c1","n":1}`}),
		scripted.Say("done"),
	)
	var offered []*forge.Tool
	record := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		tl, _ := dc.Tools().Get(spooledartifact.ToolHead)
		offered = append(offered, tl)
		return next(ctx)
	}
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, DispatchInput: []turnrunner.DispatchMiddleware{record}})
	if end := turnEnd(t, run(t, r, turnrunner.Input{TurnID: "once", Prompt: "go"})); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	if len(offered) != 6 {
		t.Fatalf("%d iterations recorded, want 6", len(offered))
	}
	if offered[0] != nil || offered[1] == nil {
		t.Fatalf("artifact_head offered %v, want none before the first artifact and one after", offered[:2])
	}
	for i := 2; i < len(offered); i++ {
		if offered[i] != offered[1] {
			t.Errorf("iteration %d: artifact_head forged again", i)
		}
	}
	for _, c := range storedCalls(t, r, "once") {
		if c.ID() == "h3" {
			if got := resultText(t, c); got != "line b" {
				t.Errorf("artifact_tail of the later artifact: %q, want %q", got, "line b")
			}
			return
		}
	}
	t.Error("h3 not stored")
}

// TestDefaultEventBufferHoldsATenCallTurn checks that a turn of ten tool
// calls, one per response, fits in the default event buffer: the runner
// reaches the turn's end without the consumer having read anything, so a
// fast turn wakes its consumer once instead of stopping halfway for it.
func TestDefaultEventBufferHoldsATenCallTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		add := textTool(t, "add", func(ctx context.Context, args map[string]any) (string, error) {
			return "3", nil
		}, nil)
		var steps []scripted.Step
		for i := range 10 {
			steps = append(steps, scripted.Use(scripted.Call{ID: fmt.Sprint("c", i), Name: "add", Args: fmt.Sprintf(`{"q":"%d"}`, i)}))
		}
		m := scripted.New(append(steps, scripted.Say("done"))...)
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{add}})
		ch, err := r.Run(context.Background(), turnrunner.Input{Prompt: "go"})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the turn has ended, or waits for room on the channel
		queued := len(ch)
		var evs []turnrunner.Event
		for ev := range ch {
			evs = append(evs, ev)
		}
		if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
			t.Fatalf("TurnEnd %+v", end)
		}
		if queued != len(evs) {
			t.Errorf("%d of the turn's %d events were on the channel before the consumer read, want all", queued, len(evs))
		}
	})
}
