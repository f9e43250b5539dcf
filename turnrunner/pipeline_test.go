package turnrunner_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

type ctxKey string

// The ctx a middleware hands to next is the one the work inside it runs
// with, and code after next runs after that work.
func TestMiddlewareCtxReachesTheModel(t *testing.T) {
	var sawTurn, sawDispatch any
	var answered bool
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) partSeq {
		sawTurn, sawDispatch = ctx.Value(ctxKey("turn")), ctx.Value(ctxKey("dispatch"))
		return func(yield func(llm.Part, error) bool) {
			answered = true
			yield(llm.TextPart("ok"), nil)
		}
	})
	var afterTurn, afterDispatch bool
	turnIn := func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error {
		err := next(context.WithValue(ctx, ctxKey("turn"), "t"))
		afterTurn = answered && tc.Answer() == "ok"
		return err
	}
	dispIn := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		err := next(context.WithValue(ctx, ctxKey("dispatch"), "d"))
		afterDispatch = answered
		return err
	}
	r := newRunner(t, m, &turnrunner.Options{TurnInput: []turnrunner.TurnMiddleware{turnIn},
		DispatchInput: []turnrunner.DispatchMiddleware{dispIn}})
	evs := run(t, r, turnrunner.Input{Prompt: "hi"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	if sawTurn != "t" || sawDispatch != "d" {
		t.Errorf("model saw turn=%v dispatch=%v, want t and d", sawTurn, sawDispatch)
	}
	if !afterTurn || !afterDispatch {
		t.Errorf("after-next code ran before the work: turn %v, dispatch %v", afterTurn, afterDispatch)
	}
}

func TestMiddlewareCancellingItsCtxAbortsTheTurn(t *testing.T) {
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) partSeq {
		return func(yield func(llm.Part, error) bool) { yield(llm.TextPart("never"), nil) }
	})
	cause := errors.New("budget exhausted")
	dispIn := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		ctx, cancel := context.WithCancelCause(ctx)
		cancel(cause)
		return next(ctx)
	}
	r := newRunner(t, m, &turnrunner.Options{DispatchInput: []turnrunner.DispatchMiddleware{dispIn}})
	evs := run(t, r, turnrunner.Input{Prompt: "hi"})
	end := turnEnd(t, evs)
	if end.Status != turnrunner.TurnAborted || !errors.Is(end.Err, cause) {
		t.Fatalf("TurnEnd %s %v, want aborted with the cause", end.Status, end.Err)
	}
}

func TestNextCalledTwiceIsAnError(t *testing.T) {
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) partSeq {
		return func(yield func(llm.Part, error) bool) { yield(llm.TextPart("ok"), nil) }
	})
	calls := 0
	countModel := llm.ModelFunc(func(ctx context.Context, req *llm.Request) partSeq {
		calls++
		return m.Stream(ctx, req)
	})
	var second error
	twice := func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error {
		if err := next(ctx); err != nil {
			return err
		}
		second = next(ctx)
		return nil
	}
	r := newRunner(t, countModel, &turnrunner.Options{TurnInput: []turnrunner.TurnMiddleware{twice}})
	evs := run(t, r, turnrunner.Input{Prompt: "hi"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	if !errors.Is(second, turnrunner.ErrNextCalledTwice) || calls != 1 {
		t.Errorf("second next: %v, model calls %d; want ErrNextCalledTwice and 1", second, calls)
	}
}

// Writes through the TurnContext after the dispatch started land in the
// timeline the turn exposes.
func TestTurnContextWritesAfterTheDispatchAreVisible(t *testing.T) {
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) partSeq {
		return func(yield func(llm.Part, error) bool) { yield(llm.TextPart("answer"), nil) }
	})
	var before, after int
	var answer string
	out := func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error {
		before = len(tc.Timeline())
		msg, err := dispatch.NewMessage(dispatch.RawMessage{ID: "m-out", Role: dispatch.RoleAssistant,
			Content: forge.NewTokenizable("appended"), CreatedAt: time.Unix(1, 0)})
		if err != nil {
			return err
		}
		if err := tc.StoreMessage(ctx, msg); err != nil {
			return err
		}
		note, err := dispatch.NewMessage(dispatch.RawMessage{ID: "m-note", Role: dispatch.RoleUser, Content: forge.NewTokenizable("hydrated")})
		if err != nil {
			return err
		}
		if err := tc.Hydrate(dispatch.Entry{Message: note}); err != nil {
			return err
		}
		after, answer = len(tc.Timeline()), tc.Answer()
		return next(ctx)
	}
	r := newRunner(t, m, &turnrunner.Options{TurnOutput: []turnrunner.TurnMiddleware{out}})
	evs := run(t, r, turnrunner.Input{TurnID: "w", Prompt: "hi"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	if after != before+2 || answer != "appended" {
		t.Errorf("timeline %d -> %d, answer %q; want +2 and the appended message", before, after, answer)
	}
	stored, err := r.Store().Load(context.Background(), "w")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(stored); n != 3 { // prompt, answer, appended (the hydrated note is not stored)
		t.Errorf("store holds %d entries, want 3", n)
	}
}

// A middleware that calls next from a goroutine it leaves running: a next
// called after the chain returned does nothing and returns
// ErrNextCalledLate (it never runs the dispatch after the channel is
// closed); a next that started before the chain
// returned is waited for, so its work ends before the turn does.
func TestNextFromAGoroutineNeverOutlivesTheChain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dispatch bool // a DispatchInput middleware, else a TurnInput one
		late     bool // next is called after the middleware returned
	}{
		{"turn/late", false, true},
		{"dispatch/late", true, true},
		{"turn/still-running", false, false},
		{"dispatch/still-running", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var wg sync.WaitGroup
				defer wg.Wait()
				m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) partSeq {
					return func(yield func(llm.Part, error) bool) {
						time.Sleep(20 * time.Millisecond) // still running when the middleware returns
						yield(llm.TextPart("ok"), nil)
					}
				})
				nextErr := make(chan error, 1)
				var calls sync.Mutex
				called := false
				body := func(ctx context.Context, next turnrunner.Next) error {
					calls.Lock()
					first := !called
					called = true
					calls.Unlock()
					if !first { // later iterations (dispatch) pass through
						return next(ctx)
					}
					started := make(chan struct{})
					wg.Add(1)
					go func() {
						defer wg.Done()
						if tc.late {
							<-started
							time.Sleep(20 * time.Millisecond)
						} else {
							close(started)
						}
						nextErr <- next(ctx)
					}()
					if tc.late {
						close(started)
					} else {
						<-started
						time.Sleep(5 * time.Millisecond) // let next enter the chain
					}
					return nil
				}
				o := &turnrunner.Options{}
				if tc.dispatch {
					o.DispatchInput = []turnrunner.DispatchMiddleware{func(ctx context.Context, _ *dispatch.Context, next turnrunner.Next) error {
						return body(ctx, next)
					}}
				} else {
					o.TurnInput = []turnrunner.TurnMiddleware{func(ctx context.Context, _ *turnrunner.TurnContext, next turnrunner.Next) error {
						return body(ctx, next)
					}}
				}
				r := newRunner(t, m, o)
				evs := run(t, r, turnrunner.Input{Prompt: "go"})
				end := turnEnd(t, evs)
				wg.Wait()
				err := <-nextErr
				if tc.late {
					if !errors.Is(err, turnrunner.ErrNextCalledLate) {
						t.Fatalf("late next returned %v, want ErrNextCalledLate", err)
					}
					if end.Status != turnrunner.TurnFailed || !errors.Is(end.Err, turnrunner.ErrShortCircuited) {
						t.Errorf("TurnEnd %s %v, want failed, short-circuited", end.Status, end.Err)
					}
					if n := len(ofType[turnrunner.MessageDelta](evs)); n != 0 {
						t.Errorf("%d message deltas: the late next reached the model", n)
					}
					return
				}
				if err != nil || end.Status != turnrunner.TurnCompleted {
					t.Fatalf("next %v, TurnEnd %s %v; want the dispatch waited for and completed", err, end.Status, end.Err)
				}
				if n := len(ofType[turnrunner.DispatchEnd](evs)); n != 1 {
					t.Errorf("%d DispatchEnd events, want 1", n)
				}
			})
		})
	}
}

// TestInFlightNextRunsTheInnerMiddlewares checks that a next still running
// when its middleware returned is not only waited for but also reaches the
// core through the middlewares inside it: only a next whose own middleware
// has returned is late.
func TestInFlightNextRunsTheInnerMiddlewares(t *testing.T) {
	for _, dispatchLevel := range []bool{false, true} {
		name := "turn"
		if dispatchLevel {
			name = "dispatch"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var wg sync.WaitGroup
				defer wg.Wait()
				var outerOnce, innerOnce sync.Once
				entered := make(chan struct{})
				innerErr := make(chan error, 1)
				outer := func(ctx context.Context, next turnrunner.Next) error {
					first := false
					outerOnce.Do(func() { first = true })
					if !first { // later iterations (dispatch) pass through
						return next(ctx)
					}
					wg.Add(1)
					go func() { defer wg.Done(); _ = next(ctx) }()
					<-entered // next is in flight when this middleware returns
					return nil
				}
				inner := func(ctx context.Context, next turnrunner.Next) error {
					first := false
					innerOnce.Do(func() { first = true })
					if !first {
						return next(ctx)
					}
					close(entered)
					time.Sleep(20 * time.Millisecond) // the outer middleware has returned by now
					err := next(ctx)
					innerErr <- err
					return err
				}
				o := &turnrunner.Options{}
				if dispatchLevel {
					o.DispatchInput = []turnrunner.DispatchMiddleware{
						func(ctx context.Context, _ *dispatch.Context, next turnrunner.Next) error { return outer(ctx, next) },
						func(ctx context.Context, _ *dispatch.Context, next turnrunner.Next) error { return inner(ctx, next) },
					}
				} else {
					o.TurnInput = []turnrunner.TurnMiddleware{
						func(ctx context.Context, _ *turnrunner.TurnContext, next turnrunner.Next) error {
							return outer(ctx, next)
						},
						func(ctx context.Context, _ *turnrunner.TurnContext, next turnrunner.Next) error {
							return inner(ctx, next)
						},
					}
				}
				r := newRunner(t, scripted.New(scripted.Say("ok")), o)
				end := turnEnd(t, run(t, r, turnrunner.Input{Prompt: "go"}))
				if err := <-innerErr; err != nil {
					t.Errorf("the inner middleware's next returned %v", err)
				}
				if end.Status != turnrunner.TurnCompleted {
					t.Errorf("TurnEnd %s %v, want completed", end.Status, end.Err)
				}
			})
		})
	}
}
