package turnrunner_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
)

// storedCalls loads the turn's tool calls from the runner's store.
func storedCalls(t *testing.T, r *turnrunner.Runner, turnID string) []*forge.ToolCall {
	t.Helper()
	tl, err := r.Store().Load(context.Background(), turnID)
	if err != nil {
		t.Fatal(err)
	}
	var out []*forge.ToolCall
	for _, e := range tl {
		if e.ToolCall != nil {
			out = append(out, e.ToolCall)
		}
	}
	return out
}

func resultText(t *testing.T, c *forge.ToolCall) string {
	t.Helper()
	s, err := llm.RenderResult(context.Background(), c)
	if err != nil {
		t.Fatalf("RenderResult(%s): %v", c.ID(), err)
	}
	return s
}

func TestParallelBoundAndCallOrder(t *testing.T) {
	for _, limit := range []int{1, 3} {
		t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var cur, peak atomic.Int32
				slow := textTool(t, "slow", func(ctx context.Context, args map[string]any) (string, error) {
					n := cur.Add(1)
					defer cur.Add(-1)
					for {
						p := peak.Load()
						if n <= p || peak.CompareAndSwap(p, n) {
							break
						}
					}
					// Later calls finish first, so completion order is not call order.
					q := args["q"].(string)
					d := time.Duration(8-int(q[0]-'0')) * 3 * time.Millisecond
					time.Sleep(d)
					return "done " + q, nil
				}, nil)
				var calls []scripted.Call
				for i := range 8 {
					calls = append(calls, scripted.Call{ID: fmt.Sprintf("c%d", i), Name: "slow", Args: fmt.Sprintf(`{"q":"%d"}`, i)})
				}
				m := scripted.New(scripted.Use(calls...), scripted.Say("ok"))
				r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{slow}, MaxParallelTools: limit})
				evs := run(t, r, turnrunner.Input{TurnID: "p", Prompt: "go"})
				if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
					t.Fatalf("TurnEnd %+v", end)
				}
				if got := peak.Load(); got != int32(limit) {
					t.Errorf("peak concurrency = %d, want %d", got, limit)
				}
				var ids, texts []string
				for _, c := range storedCalls(t, r, "p") {
					ids = append(ids, c.ID())
					texts = append(texts, resultText(t, c))
				}
				if d := cmp.Diff([]string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"}, ids); d != "" {
					t.Errorf("stored order (-want +got):\n%s", d)
				}
				if texts[0] != "done 0" || texts[7] != "done 7" {
					t.Errorf("texts = %q", texts)
				}
				// Every call is announced before it completes.
				seen := map[string]bool{}
				for _, e := range ofType[turnrunner.ToolCallContent](evs) {
					if e.IsComplete && !seen[e.ID] {
						t.Errorf("%s completed before it was announced", e.ID)
					}
					seen[e.ID] = true
				}
			})
		})
	}
}

func TestToolFailuresBecomeErrorResults(t *testing.T) {
	ok := textTool(t, "ok", func(ctx context.Context, args map[string]any) (string, error) { return "fine", nil }, nil)
	panics := textTool(t, "panics", func(ctx context.Context, args map[string]any) (string, error) { panic("kaboom") }, nil)
	fails := textTool(t, "fails", func(ctx context.Context, args map[string]any) (string, error) {
		return "", errors.New("disk on fire")
	}, nil)
	hangs := textTool(t, "hangs", func(ctx context.Context, args map[string]any) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}, nil)
	hangsOwn := textTool(t, "hangsOwn", func(ctx context.Context, args map[string]any) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}, &forge.ToolOptions{Timeout: 10 * time.Millisecond})
	// A handler failing at once because its upstream call timed out: its
	// error wraps context.DeadlineExceeded, but no limit of the runner's
	// expired, so it is not the tool's timeout.
	upstream := func(ctx context.Context, args map[string]any) (string, error) {
		return "", fmt.Errorf("upstream said: %w", context.DeadlineExceeded)
	}
	upstreamOwn := textTool(t, "upstreamOwn", upstream, &forge.ToolOptions{Timeout: time.Hour})
	upstreamShared := textTool(t, "upstreamShared", upstream, nil)
	strict, err := forge.NewTool("strict", "needs n", []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("n ok"), nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, args string
		want, notWant    []string
	}{
		{"panic", "panics", `{}`, []string{"kaboom"}, nil},
		{"error", "fails", `{}`, []string{"disk on fire", "E_TOOL_DOWNSTREAM_ERROR"}, nil},
		{"timeout", "hangs", `{}`, []string{"timed out after 30ms"}, nil},
		{"tool's own timeout", "hangsOwn", `{}`, []string{"timed out after 10ms"}, nil},
		{"upstream deadline under the tool's own timeout", "upstreamOwn", `{}`,
			[]string{"Tool failed", "upstream said: context deadline exceeded"}, []string{"timed out after"}},
		{"upstream deadline under ToolTimeout", "upstreamShared", `{}`,
			[]string{"Tool failed", "upstream said: context deadline exceeded"}, []string{"timed out after"}},
		{"unknown tool", "nope", `{}`, []string{"Tool not found: nope. Available tools: ok, panics, fails, hangs, hangsOwn, upstreamOwn, upstreamShared, strict."}, nil},
		{"invalid json", "ok", `{"q":`, []string{"Tool arguments are not valid JSON. Raw value: {\"q\":"}, nil},
		{"not an object", "ok", `[1,2]`, []string{"Tool arguments must be a JSON object; received array"}, nil},
		{"schema violation", "strict", `{"n":"5"}`, []string{"E_INVALID_TOOL_ARGS", "n"}, nil},
	}
	for _, tt := range tests {
		// In a synctest bubble the 30 ms and 10 ms timeouts run on the
		// bubble's clock, so a slow machine (or -race) cannot make a panic
		// or an error lose the race against the timeout.
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := scripted.New(
					scripted.Use(scripted.Call{ID: "a", Name: tt.tool, Args: tt.args}, scripted.Call{ID: "b", Name: "ok", Args: `{}`}),
					scripted.Say("noted"))
				r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{ok, panics, fails, hangs, hangsOwn, upstreamOwn, upstreamShared, strict},
					ToolTimeout: 30 * time.Millisecond})
				evs := run(t, r, turnrunner.Input{TurnID: "f", Prompt: "go"})
				if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
					t.Fatalf("TurnEnd %+v", end)
				}
				calls := storedCalls(t, r, "f")
				if len(calls) != 2 {
					t.Fatalf("%d stored calls", len(calls))
				}
				if !calls[0].IsError() || !calls[0].IsComplete() {
					t.Errorf("call a: isError %v isComplete %v", calls[0].IsError(), calls[0].IsComplete())
				}
				text := resultText(t, calls[0])
				for _, w := range tt.want {
					if !strings.Contains(text, w) {
						t.Errorf("error text %q lacks %q", text, w)
					}
				}
				for _, w := range tt.notWant {
					if strings.Contains(text, w) {
						t.Errorf("error text %q holds %q", text, w)
					}
				}
				if calls[1].IsError() || resultText(t, calls[1]) != "fine" {
					t.Errorf("sibling call b failed: %q", resultText(t, calls[1]))
				}
				// The model saw the error text.
				reqs := m.Requests()
				found := false
				for _, e := range reqs[1].Timeline {
					if e.ToolCall != nil && e.ToolCall.ID() == "a" && strings.Contains(resultText(t, e.ToolCall), tt.want[0]) {
						found = true
					}
				}
				if !found {
					t.Error("second request does not show the error result")
				}
			})
		})
	}
}

func TestTruncatedResponseDoesNotRunTools(t *testing.T) {
	var ran atomic.Bool
	ok := textTool(t, "ok", func(ctx context.Context, args map[string]any) (string, error) { ran.Store(true); return "x", nil }, nil)
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "a", Name: "ok", Args: `{"q":"unfin`}}, Stop: llm.StopMaxTokens},
		scripted.Say("sorry"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{ok}})
	evs := run(t, r, turnrunner.Input{TurnID: "tr", Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	if ran.Load() {
		t.Error("tool of a truncated response ran")
	}
	calls := storedCalls(t, r, "tr")
	if len(calls) != 1 || !calls[0].IsError() || !strings.Contains(resultText(t, calls[0]), "max_tokens") {
		t.Errorf("stored = %v", calls)
	}
	if len(ofType[turnrunner.Warning](evs)) == 0 {
		t.Error("no truncation warning")
	}
}

func TestCancelMidTool(t *testing.T) {
	started, quickDone := make(chan struct{}), make(chan struct{})
	hang := textTool(t, "hang", func(ctx context.Context, args map[string]any) (string, error) {
		<-quickDone
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	}, nil)
	quick := textTool(t, "quick", func(ctx context.Context, args map[string]any) (string, error) {
		defer close(quickDone)
		return "quick done", nil
	}, nil)
	m := scripted.New(scripted.Use(
		scripted.Call{ID: "q", Name: "quick", Args: `{}`},
		scripted.Call{ID: "h", Name: "hang", Args: `{}`}))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{hang, quick}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Run(ctx, turnrunner.Input{TurnID: "cx", Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	// Cancel once quick has settled and hang is running.
	var evs []turnrunner.Event
	for ev := range ch {
		evs = append(evs, ev)
		if e, ok := ev.(turnrunner.ToolCallContent); ok && e.ID == "q" && e.IsComplete {
			<-started
			cancel()
		}
	}
	end := turnEnd(t, evs)
	if end.Status != turnrunner.TurnAborted || !errors.Is(end.Err, context.Canceled) {
		t.Fatalf("TurnEnd %+v", end)
	}
	if de := ofType[turnrunner.DispatchEnd](evs); len(de) != 1 || de[0].Status != turnrunner.TurnAborted {
		t.Errorf("DispatchEnd = %+v", de)
	}
	calls := storedCalls(t, r, "cx")
	if len(calls) != 2 {
		t.Fatalf("stored %d calls, want 2", len(calls))
	}
	if calls[0].ID() != "q" || !calls[0].IsComplete() || calls[0].IsError() || resultText(t, calls[0]) != "quick done" {
		t.Errorf("completed call not stored intact: %+v", calls[0])
	}
	if calls[1].ID() != "h" || calls[1].IsComplete() || !calls[1].IsError() || !strings.Contains(resultText(t, calls[1]), "cancelled") {
		t.Errorf("interrupted call not marked: complete=%v error=%v %q", calls[1].IsComplete(), calls[1].IsError(), resultText(t, calls[1]))
	}
}

// blockingModel streams one text part, then waits for ctx.
func blockingModel(sent chan<- struct{}) llm.ModelFunc {
	return func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		return func(yield func(llm.Part, error) bool) {
			if !yield(llm.TextPart("partial answer"), nil) {
				return
			}
			close(sent)
			<-ctx.Done()
			yield(llm.Part{}, ctx.Err())
		}
	}
}

func TestCancelMidStream(t *testing.T) {
	sent := make(chan struct{})
	r := newRunner(t, blockingModel(sent), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Run(ctx, turnrunner.Input{TurnID: "ms", Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-sent; cancel() }()
	evs := collect(t, ch)
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnAborted {
		t.Fatalf("TurnEnd %+v", end)
	}
	tl, _ := r.Store().Load(context.Background(), "ms")
	if len(tl) != 2 || tl[1].Message == nil || tl[1].Message.Text() != "partial answer" {
		t.Errorf("partial answer not stored: %+v", tl)
	}
}

func TestAbandonedConsumerLeavesNoGoroutines(t *testing.T) {
	// An endless model: every response calls a tool.
	var n atomic.Int64
	m := scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		return scripted.Step{Text: []string{"a", "b", "c"},
			Calls: []scripted.Call{{Name: "ok", Args: fmt.Sprintf(`{"q":"%d"}`, n.Add(1))}}}, nil
	})
	ok := textTool(t, "ok", func(ctx context.Context, args map[string]any) (string, error) { return "x", nil }, nil)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{ok}, EventBuffer: 1,
		Loop: dispatch.LoopPolicy{Disabled: true}})
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := r.Run(ctx, turnrunner.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		<-ch
	}
	// Walk away without draining: the runner is blocked on the full
	// channel until ctx ends, then every goroutine must exit.
	cancel()
	goleak.VerifyNone(t)
}

// A tool that fails at once is reported with its own error even when the
// tool timeout passes while its end event waits on a slow consumer, and
// even when its error wraps context.DeadlineExceeded (its upstream call
// timed out): what counts is whether the limit had expired when it failed.
func TestFastFailureUnderBackpressureIsNotATimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		ownTime bool // the tool's own Timeout, else Options.ToolTimeout
	}{
		{"own error", errors.New("disk on fire"), false},
		{"own error under the tool's timeout", errors.New("disk on fire"), true},
		{"upstream deadline", fmt.Errorf("disk on fire: %w", context.DeadlineExceeded), false},
		{"upstream deadline under the tool's timeout", fmt.Errorf("disk on fire: %w", context.DeadlineExceeded), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var topts *forge.ToolOptions
				opts := &turnrunner.Options{EventBuffer: 1}
				if tc.ownTime {
					topts = &forge.ToolOptions{Timeout: 20 * time.Millisecond}
				} else {
					opts.ToolTimeout = 20 * time.Millisecond
				}
				fails, err := forge.NewTool("fails", "fails", objectSchema,
					func(_ context.Context, _ map[string]any, inv forge.Invocation) (forge.Output, error) {
						// The log fills the one-event buffer, so the end event waits.
						dc, _ := dispatch.FromScope(inv.Scope)
						dc.Log(zerolog.InfoLevel, "trying", "about to fail", nil)
						return forge.Output{}, tc.err
					}, topts)
				if err != nil {
					t.Fatal(err)
				}
				opts.Tools = []*forge.Tool{fails}
				m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "fails", Args: `{}`}), scripted.Say("noted"))
				r := newRunner(t, m, opts)
				ch, err := r.Run(context.Background(), turnrunner.Input{Prompt: "go"})
				if err != nil {
					t.Fatal(err)
				}
				var evs []turnrunner.Event
				for ev := range ch {
					evs = append(evs, ev)
					if _, ok := ev.(turnrunner.ToolExecutionStart); ok {
						time.Sleep(100 * time.Millisecond) // past the timeout, with the end event waiting
					}
				}
				done := settled(evs)
				if len(done) != 1 {
					t.Fatalf("%d settled calls, want 1", len(done))
				}
				if text := resultText(t, done[0].Call); !strings.Contains(text, "disk on fire") || strings.Contains(text, "timed out") {
					t.Errorf("result %q, want the handler's own error", text)
				}
			})
		})
	}
}

// slowEndless is a reader that never ends, a byte at a time.
type slowEndless struct{}

func (slowEndless) Read(p []byte) (int, error) {
	time.Sleep(5 * time.Millisecond)
	p[0] = 'x'
	return 1, nil
}

// A tool's timeout covers reading the reader it returns, whether the limit
// is Options.ToolTimeout or the tool's own Timeout: the call times out and
// the turn goes on.
func TestReaderOutputUnderToolTimeout(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(fmt.Sprintf("own timeout %v", own), func(t *testing.T) {
			opts := &turnrunner.Options{}
			var topts *forge.ToolOptions
			if own {
				topts = &forge.ToolOptions{Timeout: 50 * time.Millisecond}
			} else {
				opts.ToolTimeout = 50 * time.Millisecond
			}
			stream, err := forge.NewTool("stream", "stream", objectSchema,
				func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
					return forge.ReaderOutput(slowEndless{}), nil
				}, topts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Tools = []*forge.Tool{stream}
			r := newRunner(t, scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "stream", Args: `{}`}), scripted.Say("ok")), opts)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ch, err := r.Run(ctx, turnrunner.Input{TurnID: "rt", Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			var evs []turnrunner.Event
			for ev := range ch {
				evs = append(evs, ev)
			}
			if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
				t.Fatalf("TurnEnd %s %v, want completed", end.Status, end.Err)
			}
			done := settled(evs)
			if len(done) != 1 || !strings.Contains(resultText(t, done[0].Call), "timed out after 50ms") {
				t.Errorf("settled %d calls; want one that timed out", len(done))
			}
		})
	}
}

// A call that completed is kept when the turn is cancelled as it settles,
// result hooks included: HandleAbove measured the artifact with the turn's
// cancelled ctx, failed, and its error replaced the tool's output in the
// stored call and the event.
func TestResultHooksKeepACompletedCallAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tool := textTool(t, "fetch", func(context.Context, map[string]any) (string, error) { return "payload", nil }, nil)
	// The user stops the turn as the tool's result is settling: after the
	// handler returned, before the hooks that follow have run.
	stop := func(ctx context.Context, call *forge.ToolCall) (*forge.ToolCall, error) {
		cancel()
		return nil, nil
	}
	m := scripted.New(scripted.Use(scripted.Call{ID: "a", Name: "fetch", Args: `{"q":"x"}`}), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{tool},
		ResultHooks: []turnrunner.ResultHook{stop, spooledartifact.HandleAbove(4096)}})
	ch, err := r.Run(ctx, turnrunner.Input{TurnID: "hk", Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, ch)
	calls := storedCalls(t, r, "hk")
	if len(calls) != 1 {
		t.Fatalf("%d stored calls, want 1", len(calls))
	}
	if c := calls[0]; !c.IsComplete() || c.IsError() || resultText(t, c) != "payload" {
		t.Errorf("stored call complete=%v error=%v text %q, want the tool's output", c.IsComplete(), c.IsError(), resultText(t, c))
	}
}

// ToolExecutionStart and ToolExecutionEnd are stamped with Options.Now like
// every other event, so they fall within the turn; they carried forge's
// wall-clock times.
func TestToolExecutionEventsUseOptionsNow(t *testing.T) {
	for _, step := range []time.Duration{time.Second, -time.Second} { // a clock stepping back too
		t.Run(step.String(), func(t *testing.T) {
			now := tickingClock(step)
			echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
			m := scripted.New(scripted.Use(scripted.Call{ID: "a", Name: "echo", Args: `{"q":"x"}`}), scripted.Say("done"))
			r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, Now: now})
			evs := run(t, r, turnrunner.Input{Prompt: "go"})
			end := turnEnd(t, evs)
			lo, hi := end.StartedAt, end.EndedAt
			if step < 0 {
				lo, hi = hi, lo
			}
			inTurn := func(ts time.Time) bool { return !ts.Before(lo) && !ts.After(hi) }
			starts, ends := ofType[turnrunner.ToolExecutionStart](evs), ofType[turnrunner.ToolExecutionEnd](evs)
			if len(starts) != 1 || len(ends) != 1 {
				t.Fatalf("%d start and %d end events, want 1 each", len(starts), len(ends))
			}
			if s := starts[0]; !inTurn(s.StartedAt) {
				t.Errorf("ToolExecutionStart.StartedAt = %v, outside the turn [%v, %v]", s.StartedAt, lo, hi)
			}
			e := ends[0]
			if !inTurn(e.StartedAt) || !inTurn(e.EndedAt) || e.StartedAt != starts[0].StartedAt || e.Duration != max(e.EndedAt.Sub(e.StartedAt), 0) {
				t.Errorf("ToolExecutionEnd [%v, %v] %v, want within the turn [%v, %v] from the start event's time",
					e.StartedAt, e.EndedAt, e.Duration, lo, hi)
			}
		})
	}
}

// A call completes when its handler returns: its CompletedAt is its
// execution's end, on the wall clock as on Options.Now. Output streamed
// from a reader completes once the reader is read, after that.
func TestCallCompletesWhenItsExecutionEnds(t *testing.T) {
	ticking := tickingClock(time.Second)
	for _, clock := range []struct {
		name string
		now  func() time.Time // nil: the wall clock
	}{{"wall clock", nil}, {"Options.Now", ticking}} {
		read := time.Now
		if clock.now != nil {
			read = clock.now
		}
		for _, reader := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/reader=%t", clock.name, reader), func(t *testing.T) {
				var readAt time.Time // when a reader output was read to its end
				tool, err := forge.NewTool("t", "test tool", objectSchema,
					func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
						if !reader {
							return forge.TextOutput("ok"), nil
						}
						return forge.ReaderOutput(&clockedReader{Reader: strings.NewReader("ok"), now: read, at: &readAt}), nil
					}, nil)
				if err != nil {
					t.Fatal(err)
				}
				m := scripted.New(scripted.Use(scripted.Call{ID: "a", Name: "t", Args: `{}`}), scripted.Say("done"))
				evs := run(t, newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{tool}, Now: clock.now}), turnrunner.Input{Prompt: "go"})
				ends := ofType[turnrunner.ToolExecutionEnd](evs)
				var done []turnrunner.ToolCallContent
				for _, c := range ofType[turnrunner.ToolCallContent](evs) {
					if c.IsComplete {
						done = append(done, c)
					}
				}
				if len(ends) != 1 || len(done) != 1 {
					t.Fatalf("%d execution ends and %d completed calls, want 1 each", len(ends), len(done))
				}
				ended, completed := ends[0].EndedAt, done[0].CompletedAt
				switch {
				case !reader && !completed.Equal(ended):
					t.Errorf("CompletedAt %v, want the execution's end %v", completed, ended)
				case reader && (readAt.IsZero() || completed.Before(readAt)):
					t.Errorf("CompletedAt %v, want at or after the reader's end %v (execution ended %v)", completed, readAt, ended)
				}
				if got := done[0].Call.CompletedAt(); !got.Equal(completed) {
					t.Errorf("stored call's CompletedAt %v, event's %v", got, completed)
				}
			})
		}
	}
}

// clockedReader notes, in at, the time now gives when r is read to its end.
type clockedReader struct {
	io.Reader
	now func() time.Time
	at  *time.Time
}

func (c *clockedReader) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	if err == io.EOF && c.at.IsZero() {
		*c.at = c.now()
	}
	return n, err
}

// TestEphemeralToolsLastOneIteration checks that an ephemeral tool a
// middleware registers is offered in its iteration only, while the artifact
// tools, registered once, stay offered in every later one.
func TestEphemeralToolsLastOneIteration(t *testing.T) {
	temp, err := forge.NewTool("temp", "for one iteration", objectSchema,
		func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("t"), nil
		},
		&forge.ToolOptions{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	echo, err := forge.NewTool("echo", "echoes", objectSchema,
		func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("e"), nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var offered [][]string
	steps := [][]llm.Part{
		callStep([3]string{"c1", "echo", `{"q":"1"}`}),
		callStep([3]string{"c2", "echo", `{"q":"2"}`}),
		callStep([3]string{"c3", "echo", `{"q":"3"}`}),
		answerStep,
	}
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		mu.Lock()
		n := len(offered)
		var names []string
		for _, d := range req.Tools {
			names = append(names, d.Name)
		}
		offered = append(offered, names)
		mu.Unlock()
		return func(yield func(llm.Part, error) bool) {
			for _, p := range steps[n] {
				if !yield(p, nil) {
					return
				}
			}
		}
	})
	mw := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		if dc.Iteration() == 1 {
			if err := dc.Tools().Register(temp, false); err != nil {
				return err
			}
		}
		return next(ctx)
	}
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, DispatchInput: []turnrunner.DispatchMiddleware{mw}})
	if end := turnEnd(t, run(t, r, turnrunner.Input{Prompt: "go"})); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("turn %s: %v", end.Status, end.Err)
	}
	has := func(names []string, name string) bool { return slices.Contains(names, name) }
	for i, names := range offered {
		if got, want := has(names, "temp"), i == 1; got != want {
			t.Errorf("request %d offers temp: %v, want %v (%v)", i, got, want, names)
		}
		if got, want := has(names, "artifact_head"), i > 0; got != want {
			t.Errorf("request %d offers artifact_head: %v, want %v (%v)", i, got, want, names)
		}
	}
	if len(offered) != len(steps) {
		t.Errorf("%d requests, want %d", len(offered), len(steps))
	}
}

// An iteration after the first starts when the one before it ended.
func TestIterationsFollowEachOther(t *testing.T) {
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "a", Name: "echo", Args: `{"q":"x"}`}),
		scripted.Use(scripted.Call{ID: "b", Name: "echo", Args: `{"q":"y"}`}), scripted.Say("done"))
	// Every read of this clock is a new time, so two separate reads could
	// not pass for one.
	opts := &turnrunner.Options{Tools: []*forge.Tool{echo}, Now: tickingClock(time.Millisecond)}
	evs := run(t, newRunner(t, m, opts), turnrunner.Input{Prompt: "go"})
	starts, ends := ofType[turnrunner.IterationStart](evs), ofType[turnrunner.IterationEnd](evs)
	if len(starts) != 3 || len(ends) != 3 {
		t.Fatalf("%d iteration starts and %d ends, want 3 each", len(starts), len(ends))
	}
	for i, e := range ends {
		if !e.StartedAt.Equal(starts[i].StartedAt) || e.Duration != e.EndedAt.Sub(e.StartedAt) {
			t.Errorf("iteration %d: end %+v does not match its start %v", i, e, starts[i].StartedAt)
		}
		if i+1 < len(starts) && !starts[i+1].StartedAt.Equal(e.EndedAt) {
			t.Errorf("iteration %d starts at %v, want the end of the one before, %v", i+1, starts[i+1].StartedAt, e.EndedAt)
		}
	}
}

// The calls of one response are created together, when the response ended:
// after its message completed, before any of them ran.
func TestCallsOfAResponseAreCreatedWhenItEnds(t *testing.T) {
	now := tickingClock(time.Second)
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(scripted.Step{Text: []string{"Checking."}, Calls: []scripted.Call{
		{ID: "a", Name: "echo", Args: `{"q":"x"}`}, {ID: "b", Name: "echo", Args: `{"q":"y"}`}}}, scripted.Say("done"))
	evs := run(t, newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, Now: now}), turnrunner.Input{Prompt: "go"})
	var msgDone time.Time
	for _, d := range ofType[turnrunner.MessageDelta](evs) {
		if d.IsComplete && msgDone.IsZero() {
			msgDone = d.CompletedAt
		}
	}
	created := map[string]time.Time{}
	for _, c := range ofType[turnrunner.ToolCallContent](evs) {
		created[c.ID] = c.CreatedAt
	}
	starts := ofType[turnrunner.ToolExecutionStart](evs)
	if len(created) != 2 || len(starts) != 2 || msgDone.IsZero() {
		t.Fatalf("%d calls, %d executions, message completed at %v", len(created), len(starts), msgDone)
	}
	if !created["a"].Equal(created["b"]) || !created["a"].After(msgDone) {
		t.Errorf("calls created at %v and %v, want one time after the message completed at %v", created["a"], created["b"], msgDone)
	}
	for _, s := range starts {
		if !s.StartedAt.After(created["a"]) {
			t.Errorf("call %s ran at %v, not after it was created at %v", s.ToolCallID, s.StartedAt, created["a"])
		}
	}
}
