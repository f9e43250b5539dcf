package turnrunner_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

func TestLoopGuardRepeatThenFinalize(t *testing.T) {
	echo, execs := countingEcho(t, "the weather is sunny")
	// A stubborn model: repeats the same call until tools are withdrawn.
	m := scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		if req.Final {
			return scripted.Say("It is sunny."), nil
		}
		return scripted.Use(scripted.Call{Name: "echo", Args: `{"q":"weather"}`}), nil
	})
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 2}})
	evs := loopTurn(t, r, turnrunner.Input{TurnID: "lg", Prompt: "weather?"}, execs, 2,
		[]turnrunner.LoopDecision{turnrunner.LoopBlockedRepeat, turnrunner.LoopFinalize})
	calls := storedCalls(t, r, "lg")
	if len(calls) != 4 {
		t.Fatalf("%d stored calls, want 4", len(calls))
	}
	blocked := resultText(t, calls[2])
	for _, w := range []string{"already called echo", "2 time(s)", "the weather is sunny", "E_LOOP_GUARD_REPEATED_TOOL_CALL"} {
		if !strings.Contains(blocked, w) {
			t.Errorf("blocked text %q lacks %q", blocked, w)
		}
	}
	reqs := m.Requests()
	final := reqs[len(reqs)-1]
	if !final.Final || len(final.Tools) != 0 {
		t.Errorf("final request: Final %v, %d tools", final.Final, len(final.Tools))
	}
	note := final.Timeline[len(final.Timeline)-1].Message
	if note == nil || !strings.Contains(note.Text(), "Do not call any tools") {
		t.Errorf("final request lacks the note: %+v", note)
	}
	if de := ofType[turnrunner.DispatchEnd](evs); de[0].Status != turnrunner.TurnCompleted || de[0].Iterations != 5 {
		t.Errorf("DispatchEnd %+v", de[0])
	}
}

func TestLoopGuardIterationLimitAndPerTool(t *testing.T) {
	var n atomic.Int32
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) { return "x", nil }, nil)
	m := scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		if req.Final {
			return scripted.Say("giving up"), nil
		}
		n.Add(1)
		return scripted.Use(scripted.Call{Name: "echo", Args: `{"q":"same"}`}), nil // identical, but exempt
	})
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, Loop: dispatch.LoopPolicy{
		MaxIterations: 4, MaxIdenticalCalls: 1, PerTool: map[string]int{"echo": -1}}})
	evs := run(t, r, turnrunner.Input{Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	g := ofType[turnrunner.LoopGuard](evs)
	if len(g) != 1 || g[0].Decision != turnrunner.LoopIterationLimit || g[0].Iteration != 3 {
		t.Errorf("LoopGuard events %+v", g)
	}
	if n.Load() != 3 || m.Calls() != 4 {
		t.Errorf("tool iterations %d, model calls %d", n.Load(), m.Calls())
	}
}

func TestPipelines(t *testing.T) {
	var log []string
	rec := func(s string) { log = append(log, s) }
	turnMW := func(name string) turnrunner.TurnMiddleware {
		return func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error {
			rec(name + ">")
			err := next(ctx)
			rec("<" + name)
			return err
		}
	}
	dispMW := func(name string) turnrunner.DispatchMiddleware {
		return func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
			rec(fmt.Sprintf("%s%d>", name, dc.Iteration()))
			err := next(ctx)
			rec(fmt.Sprintf("<%s%d", name, dc.Iteration()))
			return err
		}
	}
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) { return "x", nil }, nil)
	m := scripted.New(scripted.Use(scripted.Call{Name: "echo", Args: `{}`}), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo},
		TurnInput: []turnrunner.TurnMiddleware{turnMW("A"), turnMW("B")}, TurnOutput: []turnrunner.TurnMiddleware{turnMW("Z")},
		DispatchInput: []turnrunner.DispatchMiddleware{dispMW("i")}, DispatchOutput: []turnrunner.DispatchMiddleware{dispMW("o")}})
	evs := run(t, r, turnrunner.Input{Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	// Turn input wraps the dispatch and turn output; dispatch input wraps the
	// model call, the tools and dispatch output.
	want := []string{"A>", "B>", "i0>", "o0>", "<o0", "<i0", "i1>", "o1>", "<o1", "<i1", "Z>", "<Z", "<B", "<A"}
	if d := cmp.Diff(want, log); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}

func TestPipelineFailures(t *testing.T) {
	stop := func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error { return nil }
	fail := func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error {
		return errors.New("nope")
	}
	dstop := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error { return nil }
	dfail := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error { panic("bad middleware") }
	nack := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		_ = dc.Nack(errors.New("refused"))
		return next(ctx)
	}
	tests := []struct {
		name string
		opts turnrunner.Options
		want error
		text string
	}{
		{"turn input short-circuit", turnrunner.Options{TurnInput: []turnrunner.TurnMiddleware{stop}}, turnrunner.ErrShortCircuited, "turn-input"},
		{"turn input error", turnrunner.Options{TurnInput: []turnrunner.TurnMiddleware{fail}}, turnrunner.ErrInputPipeline, "nope"},
		{"turn output short-circuit", turnrunner.Options{TurnOutput: []turnrunner.TurnMiddleware{stop}}, turnrunner.ErrShortCircuited, "turn-output"},
		{"turn output error", turnrunner.Options{TurnOutput: []turnrunner.TurnMiddleware{fail}}, turnrunner.ErrOutputPipeline, "nope"},
		{"dispatch input short-circuit", turnrunner.Options{DispatchInput: []turnrunner.DispatchMiddleware{dstop}}, turnrunner.ErrShortCircuited, "dispatch-input"},
		{"dispatch output short-circuit", turnrunner.Options{DispatchOutput: []turnrunner.DispatchMiddleware{dstop}}, turnrunner.ErrShortCircuited, "dispatch-output"},
		{"dispatch output panic", turnrunner.Options{DispatchOutput: []turnrunner.DispatchMiddleware{dfail}}, turnrunner.ErrDispatchPipeline, "bad middleware"},
		{"dispatch input nack", turnrunner.Options{DispatchInput: []turnrunner.DispatchMiddleware{nack}}, nil, "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := scripted.New(scripted.Say("hi"))
			r := newRunner(t, m, &tt.opts)
			evs := run(t, r, turnrunner.Input{Prompt: "go"})
			end := turnEnd(t, evs)
			if end.Status != turnrunner.TurnFailed || end.Err == nil || !strings.Contains(end.Err.Error(), tt.text) {
				t.Fatalf("TurnEnd %+v", end)
			}
			if tt.want != nil && !errors.Is(end.Err, tt.want) {
				t.Errorf("err %v, want %v", end.Err, tt.want)
			}
			if len(ofType[turnrunner.Error](evs)) == 0 {
				t.Error("no Error event")
			}
		})
	}
}

func TestApprovalGates(t *testing.T) {
	type outcome struct {
		ran     bool
		result  turnrunner.GateResult
		errText string
	}
	tests := []struct {
		name    string
		decide  func(g *turnrunner.Gate)
		timeout time.Duration
		want    outcome
	}{
		{"approve", func(g *turnrunner.Gate) {
			if err := g.Resolve("yes"); !errors.Is(err, turnrunner.ErrInvalidGateResolution) {
				panic("non-bool resolution accepted")
			}
			_ = g.Resolve(true)
		}, 0, outcome{true, turnrunner.GateResolved, ""}},
		{"deny", func(g *turnrunner.Gate) { _ = g.Resolve(false) }, 0, outcome{false, turnrunner.GateDenied, "denied"}},
		{"reject", func(g *turnrunner.Gate) { g.Reject(errors.New("not today")) }, 0, outcome{false, turnrunner.GateRejected, "not today"}},
		{"timeout", func(g *turnrunner.Gate) {}, 20 * time.Millisecond, outcome{false, turnrunner.GateTimeout, "timed out"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran atomic.Bool
			rm := textTool(t, "rm", func(ctx context.Context, args map[string]any) (string, error) { ran.Store(true); return "removed", nil }, nil)
			m := scripted.New(scripted.Use(scripted.Call{ID: "c", Name: "rm", Args: `{"q":"/tmp/x"}`}), scripted.Say("done"))
			r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{rm}, RequireApproval: []string{"rm"}, ApprovalTimeout: tt.timeout})
			ch, err := r.Run(context.Background(), turnrunner.Input{TurnID: "g", Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			var evs []turnrunner.Event
			for ev := range ch {
				evs = append(evs, ev)
				if o, ok := ev.(turnrunner.GateOpen); ok {
					if p, ok := o.Gate.Payload().(turnrunner.ToolApproval); !ok || p.Tool != "rm" || p.ToolCallID != "c" {
						t.Errorf("payload %+v", o.Gate.Payload())
					}
					tt.decide(o.Gate)
				}
			}
			if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
				t.Fatalf("TurnEnd %+v", end)
			}
			closed := ofType[turnrunner.GateClosed](evs)
			if len(closed) != 1 || closed[0].Result != tt.want.result {
				t.Errorf("GateClosed %+v, want %s", closed, tt.want.result)
			}
			if ran.Load() != tt.want.ran {
				t.Errorf("ran = %v", ran.Load())
			}
			c := storedCalls(t, r, "g")[0]
			if got := resultText(t, c); tt.want.errText != "" && (!c.IsError() || !strings.Contains(got, tt.want.errText)) {
				t.Errorf("result %q, want error with %q", got, tt.want.errText)
			}
		})
	}
}

// Resolve on a settled gate does nothing and returns nil, as its doc says,
// whatever the value: a second answer of the wrong type returned
// ErrInvalidGateResolution, as if the gate were still open.
func TestResolveOnASettledGateIsANoOp(t *testing.T) {
	rm := textTool(t, "rm", func(context.Context, map[string]any) (string, error) { return "removed", nil }, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "c", Name: "rm", Args: `{"q":"x"}`}), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{rm}, RequireApproval: []string{"rm"}})
	ch, err := r.Run(context.Background(), turnrunner.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	opened := 0
	for ev := range ch {
		if o, ok := ev.(turnrunner.GateOpen); ok {
			opened++
			if err := o.Gate.Resolve(true); err != nil {
				t.Fatal(err)
			}
			for _, again := range []any{"yes", false, true} {
				if err := o.Gate.Resolve(again); err != nil {
					t.Errorf("Resolve(%v) on a settled gate = %v, want nil", again, err)
				}
			}
		}
	}
	if opened != 1 {
		t.Fatalf("%d gates opened, want 1", opened)
	}
}

func TestGateAbortedByCancel(t *testing.T) {
	waited := make(chan error, 1)
	mw := func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error {
		_, err := tc.WaitFor(ctx, dispatch.GateRequest{Reason: "confirm", Payload: "ok?"})
		waited <- err
		return next(ctx)
	}
	r := newRunner(t, scripted.New(scripted.Say("hi")), &turnrunner.Options{TurnInput: []turnrunner.TurnMiddleware{mw}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Run(ctx, turnrunner.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	var evs []turnrunner.Event
	for ev := range ch {
		evs = append(evs, ev)
		if _, ok := ev.(turnrunner.GateOpen); ok {
			cancel()
		}
	}
	if err := <-waited; !errors.Is(err, turnrunner.ErrGateAborted) {
		t.Errorf("WaitFor err = %v", err)
	}
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnAborted {
		t.Errorf("TurnEnd %+v", end)
	}
}

// A gate watches its turn whatever ctx the waiting code passes: cancelling
// the turn aborts it, and the waiting handler does not outlive the turn.
func TestGateAbortedByTurnCancelWhateverCtx(t *testing.T) {
	waited := make(chan error, 1)
	ask, err := forge.NewTool("ask", "ask", objectSchema,
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			dc, _ := dispatch.FromScope(inv.Scope)
			_, err := dc.WaitFor(context.WithoutCancel(ctx), dispatch.GateRequest{Payload: "question"})
			waited <- err
			return forge.TextOutput("answered"), err
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "ask", Args: `{}`}), scripted.Say("done")),
		&turnrunner.Options{Tools: []*forge.Tool{ask}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Run(ctx, turnrunner.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	for ev := range ch {
		if _, ok := ev.(turnrunner.GateOpen); ok {
			cancel()
		}
	}
	select {
	case err := <-waited:
		if !errors.Is(err, turnrunner.ErrGateAborted) || !errors.Is(err, context.Canceled) {
			t.Errorf("WaitFor err = %v, want ErrGateAborted caused by the turn's cancellation", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the gate is still open after the turn was cancelled and its channel closed")
	}
}

// A dispatch context kept past its turn can still call WaitFor: the gate
// is aborted at once (no panic on the closed channel, no wait for a
// resolution nobody can send).
func TestWaitForAfterTurnAborts(t *testing.T) {
	kept := dispatchAfterTurn(t)
	if _, err := kept.WaitFor(context.Background(), dispatch.GateRequest{Payload: "x"}); !errors.Is(err, turnrunner.ErrGateAborted) {
		t.Errorf("WaitFor after the turn: err = %v, want ErrGateAborted", err)
	}
}

// Calls the runner refused to run (here, cut off at max_tokens) do not
// count against MaxIdenticalCalls: the retry the runner asks for runs.
func TestUnexecutedCallsDoNotCountAgainstTheLoopGuard(t *testing.T) {
	echo, execs := countingEcho(t, "ok")
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "echo", Args: `{"q":"a"}`}}, Stop: llm.StopMaxTokens},
		scripted.Use(scripted.Call{ID: "c2", Name: "echo", Args: `{"q":"a"}`}),
		scripted.Say("done"),
	)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 1}})
	loopTurn(t, r, turnrunner.Input{TurnID: "cut", Prompt: "go"}, execs, 1, nil)
}

// A call whose approval was denied does not count against
// MaxIdenticalCalls either: asked again and approved, it runs.
func TestDeniedCallsDoNotCountAgainstTheLoopGuard(t *testing.T) {
	echo, execs := countingEcho(t, "ok")
	c := scripted.Call{Name: "echo", Args: `{"q":"a"}`}
	m := scripted.New(scripted.Use(c), scripted.Use(c), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, RequireApproval: []string{"echo"},
		Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 1}})
	ch, err := r.Run(context.Background(), turnrunner.Input{TurnID: "denied", Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	var evs []turnrunner.Event
	gates := 0
	for ev := range ch {
		evs = append(evs, ev)
		if o, ok := ev.(turnrunner.GateOpen); ok {
			gates++
			_ = o.Gate.Resolve(gates > 1) // deny the first, approve the second
		}
	}
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	if gates != 2 || execs.Load() != 1 {
		t.Errorf("%d gates and %d executions, want 2 and 1", gates, execs.Load())
	}
	if ds := loopDecisions(evs); len(ds) != 0 {
		t.Errorf("loop decisions %v, want none", ds)
	}
}

func TestNewValidation(t *testing.T) {
	if _, err := turnrunner.New(nil, &turnrunner.Options{MaxParallelTools: -1, TurnInput: []turnrunner.TurnMiddleware{nil}}); !errors.Is(err, turnrunner.ErrInvalidConfig) ||
		!strings.Contains(err.Error(), "model") || !strings.Contains(err.Error(), "maxParallelTools") || !strings.Contains(err.Error(), "turnInput[0]") {
		t.Errorf("err = %v", err)
	}
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) { return "", nil }, nil)
	if _, err := turnrunner.New(scripted.New(), &turnrunner.Options{Tools: []*forge.Tool{echo, echo}}); !errors.Is(err, turnrunner.ErrInvalidConfig) {
		t.Errorf("duplicate tool: err = %v", err)
	}
	r := newRunner(t, scripted.New(), nil)
	if _, err := r.Run(context.Background(), turnrunner.Input{Messages: []*dispatch.Message{nil}}); !errors.Is(err, turnrunner.ErrInvalidTurnContext) {
		t.Errorf("Run err = %v", err)
	}
}

// Five identical calls in ONE response with limit 3: the first three run,
// the other two are blocked with a within-response text, and nothing
// finalizes, since the model has not seen a block yet.
func TestLoopGuardIdenticalCallsInOneResponse(t *testing.T) {
	echo, execs := countingEcho(t, "ok")
	c := scripted.Call{Name: "echo", Args: `{"q":"x"}`}
	m := scripted.New(scripted.Use(c, c, c, c, c), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 3}})
	loopTurn(t, r, turnrunner.Input{TurnID: "one", Prompt: "go"}, execs, 3,
		[]turnrunner.LoopDecision{turnrunner.LoopBlockedRepeat, turnrunner.LoopBlockedRepeat})
	calls := storedCalls(t, r, "one")
	if len(calls) != 5 {
		t.Fatalf("%d stored calls, want 5", len(calls))
	}
	for _, i := range []int{3, 4} {
		txt := resultText(t, calls[i])
		for _, w := range []string{"this response repeats the same call to echo", "5 times", "only the first 3 were executed"} {
			if !strings.Contains(txt, w) {
				t.Errorf("call %d text %q lacks %q", i, txt, w)
			}
		}
	}
	reqs := m.Requests()
	if len(reqs) != 2 || reqs[1].Final || len(reqs[1].Tools) == 0 {
		t.Errorf("second request: %d requests, Final %v, %d tools; want a normal iteration", len(reqs), reqs[len(reqs)-1].Final, len(reqs[len(reqs)-1].Tools))
	}
}

// Inspecting the guard (CheckRepeat) records nothing; calls replayed from
// history do not count against this turn's limit.
func TestLoopGuardInspectionAndHistory(t *testing.T) {
	echo, execs := countingEcho(t, "ok")
	c := scripted.Call{Name: "echo", Args: `{"q":"x"}`}
	first := scripted.New(scripted.Use(c), scripted.Say("done"))
	r1 := newRunner(t, first, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	run(t, r1, turnrunner.Input{TurnID: "h1", Prompt: "go"})
	history, err := r1.Store().Load(context.Background(), "h1")
	if err != nil {
		t.Fatal(err)
	}
	sum := storedCalls(t, r1, "h1")[0].Checksum()

	peek := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		if dc.Iteration() > 0 {
			return next(ctx)
		}
		if dc.ToolCallCount(sum) != 1 {
			return fmt.Errorf("ToolCallCount %d, want 1 (seeded from history)", dc.ToolCallCount(sum))
		}
		return next(ctx)
	}
	m := scripted.New(scripted.Use(c), scripted.Use(c), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 2},
		DispatchInput: []turnrunner.DispatchMiddleware{peek}})
	execs.Store(0)
	// History does not count: two executions this turn, and no guard.
	loopTurn(t, r, turnrunner.Input{TurnID: "h2", Prompt: "again", History: history}, execs, 2, nil)
}

// countingEcho is a text tool named echo that answers answer and counts
// its executions.
func countingEcho(t *testing.T, answer string) (*forge.Tool, *atomic.Int32) {
	t.Helper()
	execs := new(atomic.Int32)
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) {
		execs.Add(1)
		return answer, nil
	}, nil)
	return echo, execs
}

// loopTurn runs in on r, which must complete, with execs counting wantExecs
// executions this turn and the loop guard deciding want, in order (nil:
// never firing); it returns the turn's events.
func loopTurn(t *testing.T, r *turnrunner.Runner, in turnrunner.Input, execs *atomic.Int32, wantExecs int32, want []turnrunner.LoopDecision) []turnrunner.Event {
	t.Helper()
	evs := run(t, r, in)
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	if got := execs.Load(); got != wantExecs {
		t.Errorf("tool executed %d times this turn, want %d", got, wantExecs)
	}
	if d := cmp.Diff(want, loopDecisions(evs)); d != "" {
		t.Errorf("loop decisions (-want +got):\n%s", d)
	}
	return evs
}

// loopDecisions lists the LoopGuard decisions of a turn, in order.
func loopDecisions(evs []turnrunner.Event) []turnrunner.LoopDecision {
	var ds []turnrunner.LoopDecision
	for _, g := range ofType[turnrunner.LoopGuard](evs) {
		ds = append(ds, g.Decision)
	}
	return ds
}
