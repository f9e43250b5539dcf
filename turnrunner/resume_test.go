package turnrunner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// loopRun is what a turn did, as the loop guard shaped it.
type loopRun struct {
	Requests []string // "<iteration>:tools" or "<iteration>:final", per model call
	Lookups  int64    // executed lookup calls
	Paid     int64
	Status   turnrunner.TurnStatus
}

// loopModel answers each request offering tools with the next script step
// (the last one repeating) and a request without tools with text.
func loopModel(script []scripted.Step) (*scripted.Model, func() []string) {
	var mu sync.Mutex
	var seen []string
	n := 0
	m := scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(req.Tools) == 0 {
			seen = append(seen, fmt.Sprintf("%d:final", req.Iteration))
			return scripted.Say("done"), nil
		}
		seen = append(seen, fmt.Sprintf("%d:tools", req.Iteration))
		s := script[min(n, len(script)-1)]
		n++
		return s, nil
	})
	return m, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// runLoop runs one turn of script under loop: answering every approval in
// the process, or (suspend) suspending on it and resuming with the answer,
// as often as it takes.
func runLoop(t *testing.T, script []scripted.Step, loop dispatch.LoopPolicy, suspend bool) loopRun {
	t.Helper()
	var lookups, paid atomic.Int64
	lookup, err := forge.NewTool("lookup", "look up", json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			lookups.Add(1)
			return forge.TextOutput("found"), nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, requests := loopModel(script)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{lookup, payTool(t, &paid)}, Approval: over100,
		SuspendOnApproval: suspend, Loop: loop})
	ctx := context.Background()
	ch, err := r.Run(ctx, turnrunner.Input{TurnID: "t", ConversationID: "c", Prompt: "go"})
	for range 10 {
		if err != nil {
			t.Fatal(err)
		}
		var end turnrunner.TurnEnd
		for _, ev := range collectApproving(t, ch) {
			if e, ok := ev.(turnrunner.TurnEnd); ok {
				end = e
			}
		}
		if end.Status != turnrunner.TurnSuspended {
			return loopRun{Requests: requests(), Lookups: lookups.Load(), Paid: paid.Load(), Status: end.Status}
		}
		info, _, _ := r.Store().(dispatch.ConversationStore).Turn(ctx, "t")
		answers := map[string]bool{}
		for _, g := range info.Gates {
			answers[g.ID] = true
		}
		ch, err = r.Resume(ctx, turnrunner.ResumeInput{TurnID: "t", Approvals: answers})
	}
	t.Fatal("the turn did not end")
	return loopRun{}
}

// collectApproving is collect, approving every gate as it opens.
func collectApproving(t *testing.T, ch <-chan turnrunner.Event) []turnrunner.Event {
	t.Helper()
	out := make(chan turnrunner.Event)
	go func() {
		defer close(out)
		for ev := range ch {
			if o, ok := ev.(turnrunner.GateOpen); ok {
				_ = o.Gate.Resolve(true)
			}
			out <- ev
		}
	}()
	return collect(t, out)
}

// A turn suspended on an approval and resumed keeps its iteration count
// and its loop guard: the limits apply across the suspension exactly as in
// a turn that waited in its process.
func TestLoopGuardAcrossSuspension(t *testing.T) {
	lookup := func(arg string) scripted.Call {
		return scripted.Call{Name: "lookup", Args: `{"q":"` + arg + `"}`}
	}
	pay := scripted.Call{Name: "pay", Args: `{"amount":500}`}
	for _, tt := range []struct {
		name   string
		loop   dispatch.LoopPolicy
		script []scripted.Step
		want   loopRun
	}{{
		name:   "iteration limit",
		loop:   dispatch.LoopPolicy{MaxIterations: 4},
		script: []scripted.Step{scripted.Use(lookup("a")), scripted.Use(pay), scripted.Use(lookup("b")), scripted.Use(lookup("c"))},
		want:   loopRun{Requests: []string{"0:tools", "1:tools", "2:tools", "3:final"}, Lookups: 2, Paid: 500, Status: turnrunner.TurnCompleted},
	}, {
		name:   "identical calls",
		loop:   dispatch.LoopPolicy{MaxIdenticalCalls: 2},
		script: []scripted.Step{scripted.Use(lookup("x")), scripted.Use(pay, lookup("x")), scripted.Use(lookup("x"))},
		// x runs twice, is blocked at 2, repeated at 3: 4 is final.
		want: loopRun{Requests: []string{"0:tools", "1:tools", "2:tools", "3:tools", "4:final"}, Lookups: 2, Paid: 500, Status: turnrunner.TurnCompleted},
	}, {
		name:   "repeat of a blocked call in the suspended response",
		loop:   dispatch.LoopPolicy{MaxIdenticalCalls: 1},
		script: []scripted.Step{scripted.Use(lookup("x")), scripted.Use(lookup("x")), scripted.Use(lookup("x"), pay)},
		want:   loopRun{Requests: []string{"0:tools", "1:tools", "2:tools", "3:final"}, Lookups: 1, Paid: 500, Status: turnrunner.TurnCompleted},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			for _, suspend := range []bool{false, true} {
				got := runLoop(t, tt.script, tt.loop, suspend)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("suspend=%v (-want +got):\n%s", suspend, diff)
				}
			}
		})
	}
}
