package turnrunner_test

import (
	"context"
	"errors"
	"io"
	"iter"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/turnrunner"
)

// sighting is closed once the consumer has received an event it matches.
type sighting struct {
	match func(turnrunner.Event) bool
	seen  chan struct{}
	once  sync.Once
}

func (s *sighting) observe(ev turnrunner.Event) {
	if s.match(ev) {
		s.once.Do(func() { close(s.seen) })
	}
}

// await is what the user's code does while the runner waits on it: it holds
// on until the consumer has the event, which must take at most a
// millisecond (of the bubble's fake clock) however long the wait.
func (s *sighting) await(t *testing.T, what string) {
	start := time.Now()
	select {
	case <-s.seen:
		if d := time.Since(start); d > time.Millisecond {
			t.Errorf("%s waited %s for the consumer to have the event", what, d)
		}
	case <-time.After(time.Hour):
		t.Errorf("%s waited an hour without the consumer having the event it waits for", what)
	}
}

// modelOf answers request n (from 0) with steps[n], after before(n).
func modelOf(before func(n int), steps ...[]llm.Part) llm.Model {
	var mu sync.Mutex
	calls := 0
	return llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		return func(yield func(llm.Part, error) bool) {
			mu.Lock()
			n := calls
			calls++
			mu.Unlock()
			if before != nil {
				before(n)
			}
			for _, p := range steps[min(n, len(steps)-1)] {
				if !yield(p, nil) {
					return
				}
			}
		}
	})
}

func callStep(calls ...[3]string) []llm.Part {
	var parts []llm.Part
	for i, c := range calls {
		parts = append(parts, llm.ToolCallPart(i, c[0], c[1], c[2]))
	}
	return append(parts, llm.StopPart(llm.StopToolUse))
}

var answerStep = []llm.Part{llm.TextPart("done"), llm.StopPart(llm.StopEnd)}

// TestEventsReachTheConsumerWhileTheRunnerWaits checks when queued events
// are delivered: every event the runner sent is on the channel within a
// millisecond while it waits on the model, a tool's handler or reader, a
// sibling call, middleware, a result hook, the approval policy or a retry's
// backoff.
func TestEventsReachTheConsumerWhileTheRunnerWaits(t *testing.T) {
	completed := func(id string) func(turnrunner.Event) bool {
		return func(ev turnrunner.Event) bool {
			c, ok := ev.(turnrunner.ToolCallContent)
			return ok && c.ID == id && c.IsComplete
		}
	}
	isType := func(want turnrunner.Event) func(turnrunner.Event) bool {
		return func(ev turnrunner.Event) bool { return reflect.TypeOf(ev) == reflect.TypeOf(want) }
	}
	textTool := func(name string, h func(ctx context.Context) (forge.Output, error)) *forge.Tool {
		tool, err := forge.NewTool(name, "test tool", objectSchema,
			func(ctx context.Context, _ map[string]any, _ forge.Invocation) (forge.Output, error) { return h(ctx) }, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
	ok := func(context.Context) (forge.Output, error) { return forge.TextOutput("ok"), nil }

	tests := []struct {
		name  string
		match func(turnrunner.Event) bool
		setup func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options)
	}{
		{
			name: "the next model call", match: completed("c1"),
			setup: func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options) {
				m := modelOf(func(n int) {
					if n == 1 {
						s.await(t, "the model's second call")
					}
				}, callStep([3]string{"c1", "t", `{}`}), answerStep)
				return m, &turnrunner.Options{Tools: []*forge.Tool{textTool("t", ok)}}
			},
		},
		{
			name: "a tool's handler", match: isType(turnrunner.ToolExecutionStart{}),
			setup: func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options) {
				slow := textTool("t", func(context.Context) (forge.Output, error) {
					s.await(t, "the handler")
					return forge.TextOutput("ok"), nil
				})
				return modelOf(nil, callStep([3]string{"c1", "t", `{}`}), answerStep), &turnrunner.Options{Tools: []*forge.Tool{slow}}
			},
		},
		{
			name: "a reader the handler returned", match: isType(turnrunner.ToolExecutionEnd{}),
			setup: func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options) {
				tool := textTool("t", func(context.Context) (forge.Output, error) {
					return forge.ReaderOutput(&awaitingReader{await: func() { s.await(t, "the reader") }}), nil
				})
				return modelOf(nil, callStep([3]string{"c1", "t", `{}`}), answerStep), &turnrunner.Options{Tools: []*forge.Tool{tool}}
			},
		},
		{
			name: "a sibling call still running", match: completed("fast"),
			setup: func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options) {
				// The fast call ends after the slow one started, so only a
				// flush of its own delivers its end.
				slowStarted := make(chan struct{})
				slow := textTool("slow", func(context.Context) (forge.Output, error) {
					close(slowStarted)
					s.await(t, "the slow sibling")
					return forge.TextOutput("ok"), nil
				})
				fast := textTool("fast", func(context.Context) (forge.Output, error) {
					<-slowStarted
					return forge.TextOutput("ok"), nil
				})
				m := modelOf(nil, callStep([3]string{"slow", "slow", `{}`}, [3]string{"fast", "fast", `{}`}), answerStep)
				return m, &turnrunner.Options{Tools: []*forge.Tool{slow, fast}}
			},
		},
		{
			name: "dispatch middleware", match: isType(turnrunner.IterationStart{}),
			setup: func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options) {
				mw := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
					s.await(t, "the middleware")
					return next(ctx)
				}
				return modelOf(nil, answerStep), &turnrunner.Options{DispatchInput: []turnrunner.DispatchMiddleware{mw}}
			},
		},
		{
			name: "turn middleware", match: isType(turnrunner.TurnStart{}),
			setup: func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options) {
				mw := func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error {
					s.await(t, "the turn middleware")
					return next(ctx)
				}
				return modelOf(nil, answerStep), &turnrunner.Options{TurnInput: []turnrunner.TurnMiddleware{mw}}
			},
		},
		{
			name: "a result hook", match: isType(turnrunner.ToolExecutionEnd{}),
			setup: func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options) {
				hook := func(ctx context.Context, call *forge.ToolCall) (*forge.ToolCall, error) {
					s.await(t, "the result hook")
					return nil, nil
				}
				return modelOf(nil, callStep([3]string{"c1", "t", `{}`}), answerStep),
					&turnrunner.Options{Tools: []*forge.Tool{textTool("t", ok)}, ResultHooks: []turnrunner.ResultHook{hook}}
			},
		},
		{
			name: "the approval policy", match: isType(turnrunner.GenerationStats{}),
			setup: func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options) {
				policy := func(ctx context.Context, a turnrunner.ToolApproval) bool {
					s.await(t, "the approval policy")
					return false
				}
				return modelOf(nil, callStep([3]string{"c1", "t", `{}`}), answerStep),
					&turnrunner.Options{Tools: []*forge.Tool{textTool("t", ok)}, Approval: policy}
			},
		},
		{
			name: "a retry's backoff", match: func(ev turnrunner.Event) bool {
				w, ok := ev.(turnrunner.Warning)
				return ok && w.Kind == "model-retry"
			},
			setup: func(t *testing.T, s *sighting) (llm.Model, *turnrunner.Options) {
				var mu sync.Mutex
				calls := 0
				m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
					return func(yield func(llm.Part, error) bool) {
						mu.Lock()
						calls++
						n := calls
						mu.Unlock()
						if n == 1 {
							yield(llm.Part{}, llm.ErrOverloaded.With(errors.New("busy"), "overloaded"))
							return
						}
						s.await(t, "the retried call")
						for _, p := range answerStep {
							if !yield(p, nil) {
								return
							}
						}
					}
				})
				return m, &turnrunner.Options{Retry: llm.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &sighting{match: tt.match, seen: make(chan struct{})}
				m, opts := tt.setup(t, s)
				r := newRunner(t, m, opts)
				ch, err := r.Run(context.Background(), turnrunner.Input{Prompt: "go"})
				if err != nil {
					t.Fatal(err)
				}
				var last turnrunner.Event
				for ev := range ch {
					s.observe(ev)
					last = ev
				}
				select {
				case <-s.seen:
				default:
					t.Fatal("the awaited event never came")
				}
				if end, ok := last.(turnrunner.TurnEnd); !ok || end.Status != turnrunner.TurnCompleted {
					t.Fatalf("last event %#v, want a completed TurnEnd", last)
				}
			})
		})
	}
}

// awaitingReader awaits once, at its first Read, then gives one line.
type awaitingReader struct {
	await func()
	done  bool
}

func (r *awaitingReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	r.await()
	r.done = true
	return copy(p, "line\n"), nil
}

// TestStreamedTextGoesAtOnce checks that a text delta does not wait in the
// queue: the consumer has it, and the events before it, before the model
// streams the next part, without the clock moving.
func TestStreamedTextGoesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sighting{match: func(ev turnrunner.Event) bool {
			d, ok := ev.(turnrunner.MessageDelta)
			return ok && d.Delta == "a"
		}, seen: make(chan struct{})}
		m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
			return func(yield func(llm.Part, error) bool) {
				if !yield(llm.TextPart("a"), nil) {
					return
				}
				start := time.Now()
				select {
				case <-s.seen:
					if d := time.Since(start); d != 0 {
						t.Errorf("the delta reached the consumer %s after it was streamed", d)
					}
				case <-time.After(time.Hour):
					t.Error("the delta never reached the consumer while the model waited")
				}
				for _, p := range []llm.Part{llm.TextPart("b"), llm.StopPart(llm.StopEnd)} {
					if !yield(p, nil) {
						return
					}
				}
			}
		})
		r := newRunner(t, m, nil)
		ch, err := r.Run(context.Background(), turnrunner.Input{Prompt: "go"})
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for ev := range ch {
			s.observe(ev)
			if d, ok := ev.(turnrunner.MessageDelta); ok && !d.IsComplete {
				kinds = append(kinds, d.Delta)
			}
			if _, ok := ev.(turnrunner.TurnStart); ok && len(kinds) > 0 {
				t.Error("TurnStart came after a delta")
			}
		}
		if got := strings.Join(kinds, ""); got != "ab" {
			t.Errorf("deltas %q, want a then b", got)
		}
	})
}
