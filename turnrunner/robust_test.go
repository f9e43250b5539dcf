package turnrunner_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
	"github.com/rs/zerolog"
)

type partSeq = iter.Seq2[llm.Part, error]

// settled returns the completing ToolCallContent events.
func settled(evs []turnrunner.Event) []turnrunner.ToolCallContent {
	var out []turnrunner.ToolCallContent
	for _, e := range ofType[turnrunner.ToolCallContent](evs) {
		if e.Call != nil {
			out = append(out, e)
		}
	}
	return out
}

func TestModelPanicIsAModelError(t *testing.T) {
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) partSeq {
		return func(yield func(llm.Part, error) bool) {
			if !yield(llm.ToolCallPart(0, "c1", "echo", `{}`), nil) {
				return
			}
			panic("boom in model")
		}
	})
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	evs := run(t, r, turnrunner.Input{TurnID: "p", Prompt: "hi"})
	end := turnEnd(t, evs)
	if end.Status != turnrunner.TurnFailed || !errors.Is(end.Err, turnrunner.ErrModel) {
		t.Fatalf("TurnEnd = %s %v, want failed with ErrModel", end.Status, end.Err)
	}
	if !strings.Contains(end.Err.Error(), "boom in model") {
		t.Errorf("error %q does not name the panic", end.Err)
	}
	// The failed response's call is neither announced nor stored.
	if calls := ofType[turnrunner.ToolCallContent](evs); len(calls) != 0 {
		t.Fatalf("a call of the failed response was announced: %+v", calls)
	}
	if n := len(ofType[turnrunner.ToolExecutionStart](evs)); n != 0 {
		t.Errorf("%d tool executions, want 0", n)
	}
}

// endlessArgs streams tool-call pieces forever and ignores ctx; it stops only
// when yield returns false.
func endlessArgs(ctx context.Context, req *llm.Request) partSeq {
	return func(yield func(llm.Part, error) bool) {
		if !yield(llm.ToolCallPart(0, "c1", "echo", `{"a":"`), nil) {
			return
		}
		for yield(llm.Part{Kind: llm.PartToolCall, Index: 0, Text: "xxxxxxxx"}, nil) {
		}
	}
}

func TestModelIgnoringCtxIsStoppedOnCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	// A cap far above what 50ms can stream, so only the cancel can stop it.
	r := newRunner(t, llm.ModelFunc(endlessArgs), &turnrunner.Options{Tools: []*forge.Tool{echo}, MaxToolCallArgBytes: 1 << 40})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Run(ctx, turnrunner.Input{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	evs := collect(t, ch) // fails the test after 10s
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnAborted {
		t.Fatalf("status %s, want aborted", end.Status)
	}
}

func TestToolCallArgsOverTheCapAreNotExecuted(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ran := false
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { ran = true; return "ok", nil }, nil)
	calls := 0
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) partSeq {
		calls++
		if calls == 1 {
			return endlessArgs(ctx, req)
		}
		return func(yield func(llm.Part, error) bool) { yield(llm.TextPart("sorry"), nil) }
	})
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, MaxToolCallArgBytes: 1 << 16})
	evs := run(t, r, turnrunner.Input{Prompt: "hi"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("status %s (%v), want completed", end.Status, end.Err)
	}
	done := settled(evs)
	if len(done) != 1 || !done[0].IsError || ran {
		t.Fatalf("over-cap call: completions %+v, ran %v", done, ran)
	}
	if txt := resultText(t, done[0].Call); !strings.Contains(txt, string(turnrunner.ErrToolCallArgsTooLarge.Code)) {
		t.Errorf("result text %q lacks the code", txt)
	}
	ws := ofType[turnrunner.Warning](evs)
	if len(ws) != 1 || ws[0].Kind != "tool-call-args-too-large" {
		t.Errorf("warnings %+v", ws)
	}
	if calls != 2 {
		t.Errorf("model called %d times, want 2 (the model sees the error)", calls)
	}
}

func TestPanickingResultHookIsAHookError(t *testing.T) {
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "a", Name: "echo", Args: `{}`}, scripted.Call{ID: "b", Name: "echo", Args: `{"q":"2"}`},
		scripted.Call{ID: "c", Name: "nope", Args: `{}`}),
		scripted.Say("done"))
	boom := func(ctx context.Context, c *forge.ToolCall) (*forge.ToolCall, error) { panic("boom in hook") }
	// Two runnable calls run on worker goroutines; the unknown tool settles
	// on the dispatch goroutine.
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, ResultHooks: []turnrunner.ResultHook{boom}, MaxParallelTools: 2})
	evs := run(t, r, turnrunner.Input{TurnID: "h", Prompt: "hi"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("status %s (%v), want completed", end.Status, end.Err)
	}
	done := settled(evs)
	if len(done) != 3 {
		t.Fatalf("%d settled calls, want 3", len(done))
	}
	for _, c := range done {
		txt := resultText(t, c.Call)
		if !c.IsError || !strings.Contains(txt, "could not be processed") || !strings.Contains(txt, "boom in hook") {
			t.Errorf("call %s: isError %v, text %q", c.ID, c.IsError, txt)
		}
	}
	stored, err := r.Store().Load(context.Background(), "h")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range stored {
		if e.ToolCall != nil {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d stored calls, want 3", n)
	}
}

// A goroutine outliving its tool keeps logging; TurnEnd must still be the
// last event, and a consumer that stops at TurnEnd must not pin anything.
func TestTurnEndIsLastDespiteStrayLogs(t *testing.T) {
	trials := 40
	if testing.Short() {
		trials = 10
	}
	for i := range trials {
		var wg sync.WaitGroup
		spawn, err := forge.NewTool("spawn", "spawns a logger", objectSchema,
			func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
				dc, ok := dispatch.FromScope(inv.Scope)
				if !ok {
					return forge.Output{}, errors.New("no dispatch context")
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 2000 {
						dc.Log(zerolog.InfoLevel, "bg", "tick", nil)
					}
				}()
				return forge.TextOutput("ok"), nil
			}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := scripted.New(scripted.Use(scripted.Call{Name: "spawn", Args: `{}`}), scripted.Say("done"))
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{spawn}, EventBuffer: 1 + i%3})
		ch, err := r.Run(context.Background(), turnrunner.Input{Prompt: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			evs := collect(t, ch)
			if _, ok := evs[len(evs)-1].(turnrunner.TurnEnd); !ok {
				t.Fatalf("trial %d: last event is %T, want TurnEnd", i, evs[len(evs)-1])
			}
		} else {
			// Stop reading at TurnEnd: the stray logger must not block forever.
			for ev := range ch {
				if _, ok := ev.(turnrunner.TurnEnd); ok {
					break
				}
			}
		}
		wg.Wait() // hangs (test timeout) if a late Log blocks
	}
}

// Model-facing texts carry stable codes, and both kinds of tool timeout
// read the same.
func TestResultTextsCarryCodes(t *testing.T) {
	slowHandler := func(ctx context.Context, args map[string]any) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	own := textTool(t, "own", slowHandler, &forge.ToolOptions{Timeout: 20 * time.Millisecond})
	global := textTool(t, "global", slowHandler, nil)
	m := scripted.New(scripted.Use(
		scripted.Call{ID: "a", Name: "own", Args: `{}`},
		scripted.Call{ID: "b", Name: "global", Args: `{}`},
		scripted.Call{ID: "c", Name: "ghost", Args: `{}`},
	), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{own, global}, ToolTimeout: 20 * time.Millisecond})
	evs := run(t, r, turnrunner.Input{TurnID: "x", Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	calls := storedCalls(t, r, "x")
	want := []string{
		"Tool own timed out after 20ms and was cancelled.",
		"Tool global timed out after 20ms and was cancelled.",
		"E_TOOL_NOT_FOUND: Tool not found: ghost.",
	}
	for i, w := range want {
		if got := resultText(t, calls[i]); !strings.HasPrefix(got, w) {
			t.Errorf("call %d: %q, want prefix %q", i, got, w)
		}
	}
}

func TestCancelledCallEvent(t *testing.T) {
	started := make(chan struct{})
	block := textTool(t, "block", func(ctx context.Context, args map[string]any) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	}, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "a", Name: "block", Args: `{}`}))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{block}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Run(ctx, turnrunner.Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-started; cancel() }()
	done := settled(collect(t, ch))
	if len(done) != 1 {
		t.Fatalf("%d settled calls", len(done))
	}
	c := done[0]
	if c.IsComplete || !c.IsError || !c.Cancelled {
		t.Errorf("cancelled call event: complete %v, error %v, cancelled %v", c.IsComplete, c.IsError, c.Cancelled)
	}
	if txt := resultText(t, c.Call); !strings.HasPrefix(txt, string(turnrunner.ErrToolCallCancelled.Code)) {
		t.Errorf("text %q lacks the code", txt)
	}
}

func TestDuplicateCallIDsAreRenamedWithUnderscore(t *testing.T) {
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(scripted.Use(
		scripted.Call{ID: "d", Name: "echo", Args: `{"q":"1"}`},
		scripted.Call{ID: "d", Name: "echo", Args: `{"q":"2"}`},
	), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	run(t, r, turnrunner.Input{TurnID: "dup", Prompt: "go"})
	var ids []string
	for _, c := range storedCalls(t, r, "dup") {
		ids = append(ids, c.ID())
	}
	if strings.Join(ids, ",") != "d,d_2" {
		t.Errorf("ids %q, want d and d_2", ids)
	}
}

func TestCallIDOfAnEarlierIterationIsRenamed(t *testing.T) {
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(
		scripted.Use(scripted.Call{ID: "d", Name: "echo", Args: `{"q":"1"}`}),
		scripted.Use(scripted.Call{ID: "d", Name: "echo", Args: `{"q":"2"}`}, scripted.Call{ID: "d_2", Name: "echo", Args: `{"q":"3"}`}),
		scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	run(t, r, turnrunner.Input{TurnID: "dup", Prompt: "go"})
	var ids []string
	for _, c := range storedCalls(t, r, "dup") {
		ids = append(ids, c.ID())
	}
	if got, want := strings.Join(ids, ","), "d,d_2,d_2_2"; got != want {
		t.Errorf("ids %q, want %q", got, want)
	}
}

// callSaveFailingStore fails every save of a tool call.
type callSaveFailingStore struct{ *dispatch.MemoryStore }

func (s callSaveFailingStore) Save(ctx context.Context, turnID string, e dispatch.Entry) error {
	if e.ToolCall != nil {
		return errors.New("db down")
	}
	return s.MemoryStore.Save(ctx, turnID, e)
}

// An error that ends the dispatch decides its outcome even when a tool
// acked first: the dispatch nacks with it and the turn fails.
func TestErrorAfterAckFailsTheTurn(t *testing.T) {
	finish, err := forge.NewTool("finish", "finish", objectSchema,
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			dc, _ := dispatch.FromScope(inv.Scope)
			if err := dc.Ack(); err != nil {
				return forge.Output{}, err
			}
			return forge.TextOutput("finished"), nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "finish", Args: `{}`})),
		&turnrunner.Options{Tools: []*forge.Tool{finish}, Store: callSaveFailingStore{dispatch.NewMemoryStore()}})
	evs := run(t, r, turnrunner.Input{TurnID: "ack", Prompt: "go"})
	if errs := ofType[turnrunner.Error](evs); len(errs) != 1 || !errors.Is(errs[0].Err, dispatch.ErrStore) {
		t.Fatalf("Error events %v, want one ErrStore", errs)
	}
	de := ofType[turnrunner.DispatchEnd](evs)
	if len(de) != 1 || de[0].Status != turnrunner.TurnFailed || !errors.Is(de[0].Err, dispatch.ErrStore) {
		t.Errorf("DispatchEnd %+v, want nack with ErrStore", de)
	}
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnFailed || !errors.Is(end.Err, dispatch.ErrStore) {
		t.Errorf("TurnEnd %s %v, want failed with ErrStore", end.Status, end.Err)
	}
}

// A consumer that cancels, falls behind and then drains still gets TurnEnd
// as the last event, even though the channel was full when the turn ended.
func TestTurnEndSurvivesAFullChannelAfterCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
		c := scripted.Call{Name: "echo", Args: `{"q":"a"}`}
		m := scripted.New(scripted.Use(c), scripted.Use(c), scripted.Say("done"))
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, EventBuffer: 1})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch, err := r.Run(ctx, turnrunner.Input{Prompt: "go"})
		if err != nil {
			t.Fatal(err)
		}
		<-ch // TurnStart
		cancel()
		synctest.Wait() // the turn ends while nobody reads
		var last turnrunner.Event
		for ev := range ch {
			last = ev
		}
		if end, ok := last.(turnrunner.TurnEnd); !ok || end.Status != turnrunner.TurnAborted {
			t.Fatalf("last event %T %+v, want TurnEnd aborted", last, last)
		}
	})
}

// A turn id the spool store could not prefix its artifacts with is refused
// before the turn starts; one at the limit works end to end.
func TestTurnIDValidation(t *testing.T) {
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "hello", nil }, nil)
	newEcho := func() *turnrunner.Runner {
		m := scripted.New(scripted.Use(scripted.Call{ID: "call_" + strings.Repeat("9", 60), Name: "echo", Args: `{}`}), scripted.Say("ok"))
		return newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	}
	for _, id := range []string{"a\tb", "a\x7fb", "bad\xff", strings.Repeat("x", turnrunner.MaxTurnIDLength+1), strings.Repeat("/", 27)} {
		if _, err := newEcho().Run(context.Background(), turnrunner.Input{TurnID: id, Prompt: "go"}); !errors.Is(err, turnrunner.ErrInvalidTurnContext) {
			t.Errorf("TurnID %q: err = %v, want ErrInvalidTurnContext", id, err)
		}
	}
	for _, id := range []string{strings.Repeat("x", turnrunner.MaxTurnIDLength), strings.Repeat("%", turnrunner.MaxTurnIDLength/3), "team/42 ünïcode"} {
		r := newEcho()
		evs := run(t, r, turnrunner.Input{TurnID: id, Prompt: "go"})
		if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
			t.Fatalf("TurnID %q: TurnEnd %+v", id, end)
		}
		if c := storedCalls(t, r, id); len(c) != 1 || c[0].IsError() {
			t.Errorf("TurnID %q: stored calls %v, want one that succeeded", id, c)
		}
	}
}

// panicStore panics with v when a tool call is saved.
type panicStore struct {
	dispatch.MemoryStore
	v   any
	all bool // panic on every save, the prompt's included
}

func (s *panicStore) Save(ctx context.Context, turnID string, e dispatch.Entry) error {
	if e.ToolCall != nil || s.all {
		panic(s.v)
	}
	return s.MemoryStore.Save(ctx, turnID, e)
}

// A panic on the turn's goroutine (a user Store's Save, Options.Now) is the
// dispatch failing: DispatchEnd nacked, TurnEnd failed with an error that
// keeps the panic, with or without middleware (never a crash, never a
// short-circuited pipeline without DispatchEnd).
func TestPanicOnTheTurnGoroutineFailsTheTurn(t *testing.T) {
	errDown := errors.New("store down")
	pass := func(ctx context.Context, _ *turnrunner.TurnContext, next turnrunner.Next) error { return next(ctx) }
	passDispatch := func(ctx context.Context, _ *dispatch.Context, next turnrunner.Next) error { return next(ctx) }
	for _, tc := range []struct {
		name    string
		opts    func(o *turnrunner.Options, ran *atomic.Bool)
		wantErr error // errors.Is the TurnEnd error; nil: only the text
		before  bool  // the panic comes before the dispatch starts
	}{
		{"store panics", func(o *turnrunner.Options, _ *atomic.Bool) { o.Store = &panicStore{v: "store down"} }, nil, false},
		{"store panics with an error", func(o *turnrunner.Options, _ *atomic.Bool) { o.Store = &panicStore{v: errDown} }, errDown, false},
		{"store panics under a turn middleware", func(o *turnrunner.Options, _ *atomic.Bool) {
			o.Store = &panicStore{v: errDown}
			o.TurnInput = []turnrunner.TurnMiddleware{pass}
		}, errDown, false},
		{"store panics under a dispatch middleware", func(o *turnrunner.Options, _ *atomic.Bool) {
			o.Store = &panicStore{v: errDown}
			o.DispatchInput = []turnrunner.DispatchMiddleware{passDispatch}
		}, errDown, false},
		{"Now panics", func(o *turnrunner.Options, ran *atomic.Bool) {
			o.Now = func() time.Time {
				if ran.Load() {
					panic(errDown)
				}
				return time.Now()
			}
			o.TurnInput = []turnrunner.TurnMiddleware{pass}
		}, errDown, false},
		{"store panics on the prompt", func(o *turnrunner.Options, _ *atomic.Bool) { o.Store = &panicStore{v: errDown, all: true} }, errDown, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Bool
			tool := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { ran.Store(true); return "x", nil }, nil)
			m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "echo", Args: `{}`}), scripted.Say("ok"))
			o := &turnrunner.Options{Tools: []*forge.Tool{tool}}
			tc.opts(o, &ran)
			r := newRunner(t, m, o)
			evs := run(t, r, turnrunner.Input{Prompt: "go"})
			end := turnEnd(t, evs)
			if end.Status != turnrunner.TurnFailed || end.Err == nil || errors.Is(end.Err, turnrunner.ErrShortCircuited) {
				t.Fatalf("TurnEnd %s %v, want failed with the panic", end.Status, end.Err)
			}
			if !strings.Contains(end.Err.Error(), "store down") || strings.Contains(end.Err.Error(), "middleware") {
				t.Errorf("TurnEnd error %q does not name the panic (or blames a middleware)", end.Err)
			}
			if tc.wantErr != nil && !errors.Is(end.Err, tc.wantErr) {
				t.Errorf("TurnEnd error %v does not wrap the panic value", end.Err)
			}
			des := ofType[turnrunner.DispatchEnd](evs)
			if tc.before {
				if len(des) != 0 || ran.Load() {
					t.Errorf("%d DispatchEnd events, tool ran %v; want none", len(des), ran.Load())
				}
				return
			}
			if len(des) != 1 || des[0].Status != turnrunner.TurnFailed || des[0].Err == nil {
				t.Fatalf("DispatchEnd events %+v, want one nack with the error", des)
			}
		})
	}
}

// listPanicStore panics when its entries are listed: a SpoolStore whose
// cleanup at turn end panics.
type listPanicStore struct{ *spooledartifact.MemoryStore }

func (listPanicStore) List(context.Context, string) ([]string, error) { panic("list broke") }

// A panic in the end-of-turn cleanup of the spool store fails the turn like
// any panic on the turn's goroutine. The recovery cleaned up again, so the
// second panic escaped it and crashed the process with no TurnEnd.
func TestPanicInArtifactCleanupFailsTheTurn(t *testing.T) {
	r := newRunner(t, scripted.New(scripted.Say("ok")), &turnrunner.Options{
		SpoolStore:       listPanicStore{spooledartifact.NewMemoryStore()},
		CleanupArtifacts: true,
	})
	end := turnEnd(t, run(t, r, turnrunner.Input{Prompt: "go"}))
	if end.Status != turnrunner.TurnFailed || end.Err == nil || !strings.Contains(end.Err.Error(), "list broke") {
		t.Fatalf("TurnEnd %s %v, want failed with the cleanup's panic", end.Status, end.Err)
	}
}

// With a spooledartifact.Scope as SpoolStore, a call's output is stored in
// the scope's base store under "<scope>/<turn id>/<key>": the key is
// derived when that whole id would be too long (not only "<turn id>/<id>"),
// and the artifact's ID is that id, so it resolves against the base store.
// An id that fits "<turn id>/<id>" but not under the scope's prefix still
// stores after the tool ran.
func TestSpoolStoreScopeQualifiesCallIDs(t *testing.T) {
	const turnID, session = "t", "session"
	prefix := session + "/" + turnID + "/"
	derived := func(id string) string {
		sum := sha256.Sum256([]byte(id))
		return "call-" + hex.EncodeToString(sum[:8])
	}
	fits := strings.Repeat("a", spooledartifact.MaxIDLength-len(prefix))
	fitsTurnOnly := strings.Repeat("b", spooledartifact.MaxIDLength-len(turnID+"/"))
	for _, tc := range []struct {
		name, id, wantID string
	}{
		{"plain id", "c1", prefix + "c1"},
		{"id at the length limit with the scope", fits, prefix + fits},
		{"id over the limit only with the scope", fitsTurnOnly, prefix + derived(fitsTurnOnly)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			base := spooledartifact.NewMemoryStore()
			echo, err := forge.NewTool("echo", "echo", objectSchema,
				func(_ context.Context, _ map[string]any, inv forge.Invocation) (forge.Output, error) {
					return forge.TextOutput("out of " + inv.ID), nil
				}, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := scripted.New(scripted.Use(scripted.Call{ID: tc.id, Name: "echo", Args: `{"q":"x"}`}), scripted.Say("ok"))
			r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo},
				SpoolStore: spooledartifact.NewScope(base, session, nil)})
			evs := run(t, r, turnrunner.Input{TurnID: turnID, Prompt: "go"})
			if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
				t.Fatalf("TurnEnd %s %v", end.Status, end.Err)
			}
			stored := storedCalls(t, r, turnID)
			if len(stored) != 1 {
				t.Fatalf("%d stored calls, want 1", len(stored))
			}
			c := stored[0]
			want := "out of " + tc.id
			if text := resultText(t, c); c.IsError() || text != want {
				t.Fatalf("call: isError %v, %q; want %q", c.IsError(), text, want)
			}
			arts := c.Results().Artifacts()
			if len(arts) != 1 {
				t.Fatalf("%d artifacts, want 1", len(arts))
			}
			if arts[0].ID() != tc.wantID {
				t.Fatalf("artifact ID %q, want %q", arts[0].ID(), tc.wantID)
			}
			a, err := (spooledartifact.Resolver{Store: base}).ResolveArtifact(ctx, arts[0].Kind(), arts[0].ID())
			if err != nil {
				t.Fatalf("Resolver over the base store: %v", err)
			}
			if got, _ := a.(*spooledartifact.Artifact).ReadAll(ctx); string(got) != want {
				t.Errorf("resolved artifact reads %q, want %q", got, want)
			}
		})
	}
}

// A model-chosen tool-call id the spool store would refuse as part of
// "<turn id>/<id>" (too long, a control character) does not make a
// successful tool's output fail to store after the handler ran: the output
// is spooled under a key the runner derives, unique within the turn, and
// the call keeps the model's id. An id that is not valid UTF-8 cannot be
// stored at all: the call is refused with a clear error result under the
// id with U+FFFD for the bad bytes.
func TestModelCallIDsTheSpoolStoreRefuses(t *testing.T) {
	const turnID = "t"
	long := strings.Repeat("a", 200)
	sum := sha256.Sum256([]byte(long))
	longKey := "call-" + hex.EncodeToString(sum[:8])
	atLimit := strings.Repeat("b", spooledartifact.MaxIDLength-len(turnID+"/"))
	for _, tc := range []struct {
		name    string
		ids     []string // the calls of one response
		wantIDs []string // the stored calls' ids
		keys    []string // their artifacts' ids ("" for an error result)
	}{
		{"plain id", []string{"c1"}, []string{"c1"}, []string{"t/c1"}},
		{"id at the length limit", []string{atLimit}, []string{atLimit}, []string{"t/" + atLimit}},
		{"id over the length limit", []string{atLimit + "b"}, []string{atLimit + "b"}, []string{"t/call-" + func() string {
			s := sha256.Sum256([]byte(atLimit + "b"))
			return hex.EncodeToString(s[:8])
		}()}},
		{"long id", []string{long}, []string{long}, []string{"t/" + longKey}},
		{"control character", []string{"call\x01x"}, []string{"call\x01x"}, nil},
		// The second id is the first's derived key: each gets its own.
		{"derived key taken", []string{long, longKey}, []string{long, longKey}, []string{"t/" + longKey, ""}},
		{"invalid UTF-8", []string{"call\xff\xfex"}, []string{"call\uFFFD\uFFFDx"}, []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int32
			// The tool echoes its call id: each call's output is its own.
			echo, err := forge.NewTool("echo", "echo", objectSchema,
				func(_ context.Context, _ map[string]any, inv forge.Invocation) (forge.Output, error) {
					ran.Add(1)
					return forge.TextOutput("out of " + inv.ID), nil
				}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var calls []scripted.Call
			for i, id := range tc.ids {
				calls = append(calls, scripted.Call{ID: id, Name: "echo", Args: fmt.Sprintf(`{"q":"%d"}`, i)})
			}
			m := scripted.New(scripted.Use(calls...), scripted.Say("ok"))
			r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
			evs := run(t, r, turnrunner.Input{TurnID: turnID, Prompt: "go"})
			if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
				t.Fatalf("TurnEnd %s %v", end.Status, end.Err)
			}
			if n := len(ofType[turnrunner.Error](evs)); n != 0 {
				t.Errorf("%d Error events", n)
			}
			stored := storedCalls(t, r, turnID)
			if len(stored) != len(tc.wantIDs) {
				t.Fatalf("%d stored calls, want %d", len(stored), len(tc.wantIDs))
			}
			ranWant := 0
			for i, c := range stored {
				text := resultText(t, c)
				if c.ID() != tc.wantIDs[i] {
					t.Errorf("call %d: id %q, want %q", i, c.ID(), tc.wantIDs[i])
				}
				if !utf8.ValidString(tc.ids[i]) {
					if !c.IsError() || !strings.Contains(text, "not valid UTF-8") {
						t.Errorf("call %d: isError %v, %q; want the refusal", i, c.IsError(), text)
					}
					continue
				}
				ranWant++
				if c.IsError() || text != safetext.String("out of "+tc.ids[i]) { // rendered safe
					t.Errorf("call %d: isError %v, %q; want its own output", i, c.IsError(), text)
				}
				arts := c.Results().Artifacts()
				if len(arts) != 1 {
					t.Fatalf("call %d: %d artifacts", i, len(arts))
				}
				if i < len(tc.keys) && tc.keys[i] != "" && arts[0].ID() != tc.keys[i] {
					t.Errorf("call %d: artifact id %q, want %q", i, arts[0].ID(), tc.keys[i])
				}
				if err := spooledartifact.ValidateID(arts[0].ID()); err != nil {
					t.Errorf("call %d: artifact id: %v", i, err)
				}
			}
			if int(ran.Load()) != ranWant {
				t.Errorf("the tool ran %d times, want %d", ran.Load(), ranWant)
			}
		})
	}
}

// However far into a turn Options.Now starts panicking, the turn fails with
// its panic, and no time of another clock (the wall clock standing in for
// the panicking one) reaches a stored entry.
func TestNowPanickingAtAnyReadFailsTheTurnOnItsClock(t *testing.T) {
	errClock := errors.New("clock broke")
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	onClock := func(at time.Time) bool { return at.IsZero() || at.Before(epoch.Add(time.Hour)) }
	for k := 1; ; k++ {
		var reads atomic.Int64
		clock := tickingClock(time.Millisecond)
		now := func() time.Time {
			if reads.Add(1) >= int64(k) {
				panic(errClock)
			}
			return clock()
		}
		tools := []*forge.Tool{
			textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "x", nil }, nil),
		}
		m := scripted.New(
			scripted.Use(scripted.Call{ID: "a", Name: "echo", Args: `{"q":"1"}`}, scripted.Call{ID: "b", Name: "echo", Args: `{"q":"2"}`}),
			scripted.Say("ok"))
		r := newRunner(t, m, &turnrunner.Options{Tools: tools, Now: now})
		evs := run(t, r, turnrunner.Input{TurnID: "t", Prompt: "go"})
		end := turnEnd(t, evs)
		if end.Status == turnrunner.TurnCompleted {
			if k < 10 {
				t.Fatalf("the turn completed with the clock panicking from read %d: too few reads to cover a turn", k)
			}
			return // the clock was read fewer than k times: every read is covered
		}
		if end.Status != turnrunner.TurnFailed || !errors.Is(end.Err, errClock) {
			t.Fatalf("read %d: TurnEnd %s %v, want failed with the clock's panic", k, end.Status, end.Err)
		}
		stored, err := r.Store().Load(context.Background(), "t")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range stored {
			var times []time.Time
			switch {
			case e.Message != nil:
				times = []time.Time{e.Message.CreatedAt(), e.Message.UpdatedAt()}
			case e.ToolCall != nil:
				times = []time.Time{e.ToolCall.CreatedAt(), e.ToolCall.UpdatedAt(), e.ToolCall.CompletedAt()}
			}
			for _, at := range times {
				if !onClock(at) {
					t.Errorf("read %d: stored %s %q holds %v, not a time of Options.Now", k, e.Kind(), e.ID(), at)
				}
			}
		}
	}
}
