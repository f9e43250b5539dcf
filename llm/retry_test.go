package llm_test

import (
	"context"
	"errors"
	"iter"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/llm"
)

func TestRetryPolicyDelay(t *testing.T) {
	rate := func(after time.Duration) error {
		return llm.ErrRateLimited.With(&llm.APIError{StatusCode: 429, RetryAfter: after}, "x")
	}
	p := llm.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 10 * time.Second}
	tests := []struct {
		name     string
		attempt  int
		err      error
		ok       bool
		min, max time.Duration
	}{
		{"first retry", 1, rate(0), true, 500 * time.Millisecond, time.Second},
		{"doubles", 2, rate(0), true, time.Second, 2 * time.Second},
		{"third", 3, rate(0), true, 2 * time.Second, 4 * time.Second},
		{"capped by MaxDelay", 4, llm.ErrServer.With(nil, "x"), true, 4 * time.Second, 8 * time.Second},
		{"attempts used up", 5, rate(0), false, 0, 0},
		{"retry-after wins over backoff", 1, rate(7 * time.Second), true, 7 * time.Second, 7 * time.Second},
		{"retry-after above MaxDelay gives up", 1, rate(11 * time.Second), false, 0, 0},
		{"not retryable", 1, llm.ErrAuth.With(nil, "x"), false, 0, 0},
		{"cancellation", 1, context.Canceled, false, 0, 0},
	}
	for _, tt := range tests {
		for range 50 {
			d, ok := p.Delay(tt.attempt, tt.err)
			if ok != tt.ok || d < tt.min || d > tt.max {
				t.Fatalf("%s: Delay = %v, %v; want %v in [%v, %v]", tt.name, d, ok, tt.ok, tt.min, tt.max)
			}
		}
	}
	// The zero policy: three attempts, 500ms base.
	var zero llm.RetryPolicy
	if _, ok := zero.Delay(2, rate(0)); !ok {
		t.Error("zero policy: no second retry")
	}
	if _, ok := zero.Delay(3, rate(0)); ok {
		t.Error("zero policy: a fourth attempt")
	}
	if d, _ := zero.Delay(40, rate(0)); d != 0 {
		t.Error("zero policy: attempt 40 retried")
	}
	if d, ok := (llm.RetryPolicy{MaxAttempts: 100}).Delay(80, rate(0)); !ok || d > llm.DefaultMaxDelay {
		t.Errorf("a large attempt overflowed the backoff: %v %v", d, ok)
	}
}

// script is a model whose n-th call yields parts then err.
type script []struct {
	parts []llm.Part
	err   error
}

func (s *script) model(calls *int) llm.Model {
	return llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		return func(yield func(llm.Part, error) bool) {
			step := (*s)[*calls]
			*calls++
			for _, p := range step.parts {
				if !yield(p, nil) {
					return
				}
			}
			if step.err != nil {
				yield(llm.Part{}, step.err)
			}
		}
	})
}

func collect(ctx context.Context, m llm.Model) (parts []llm.Part, err error) {
	for p, e := range m.Stream(ctx, &llm.Request{}) {
		if e != nil {
			return parts, e
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func TestWithRetry(t *testing.T) {
	limited := llm.ErrRateLimited.With(&llm.APIError{StatusCode: 429, RetryAfter: 3 * time.Second}, "x")
	overloaded := llm.ErrOverloaded.With(nil, "overloaded mid-stream")
	ok := []llm.Part{llm.TextPart("hi"), llm.StopPart(llm.StopEnd)}
	tests := []struct {
		name      string
		s         script
		calls     int
		parts     []llm.Part
		err       error
		minWaited time.Duration
		retries   []int
	}{
		{"429 then success honours Retry-After", script{{nil, limited}, {ok, nil}}, 2, ok, nil, 3 * time.Second, []int{1}},
		{"two failures then success", script{{nil, limited}, {nil, llm.ErrServer.With(nil, "500")}, {ok, nil}}, 3, ok, nil, 3*time.Second + 500*time.Millisecond, []int{1, 2}},
		{"attempts used up", script{{nil, limited}, {nil, limited}, {nil, limited}}, 3, nil, llm.ErrRateLimited, 6 * time.Second, []int{1, 2}},
		{"not retryable", script{{nil, llm.ErrAuth.With(nil, "bad key")}}, 1, nil, llm.ErrAuth, 0, nil},
		{"a failure after the first part passes through", script{{ok[:1], overloaded}}, 1, ok[:1], llm.ErrOverloaded, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var calls int
				var retries []int
				m := llm.WithRetry(tt.s.model(&calls), llm.RetryPolicy{OnRetry: func(attempt int, d time.Duration, err error) {
					retries = append(retries, attempt)
				}})
				start := time.Now()
				parts, err := collect(t.Context(), m)
				waited := time.Since(start)
				if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				if diff := cmp.Diff(tt.parts, parts); diff != "" {
					t.Errorf("parts (-want +got):\n%s", diff)
				}
				if calls != tt.calls {
					t.Errorf("calls = %d, want %d", calls, tt.calls)
				}
				if waited < tt.minWaited || waited > tt.minWaited+2*time.Second {
					t.Errorf("waited %v, want about %v", waited, tt.minWaited)
				}
				if diff := cmp.Diff(tt.retries, retries); diff != "" {
					t.Errorf("OnRetry attempts (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestWithRetryCancelledWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		var calls int
		s := script{{nil, llm.ErrRateLimited.With(&llm.APIError{StatusCode: 429, RetryAfter: 20 * time.Second}, "x")}, {nil, nil}}
		m := llm.WithRetry(s.model(&calls), llm.RetryPolicy{})
		go func() {
			time.Sleep(time.Second)
			cancel()
		}()
		start := time.Now()
		_, err := collect(ctx, m)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if time.Since(start) != time.Second || calls != 1 {
			t.Errorf("returned after %v with %d calls; want at the cancellation, 1 call", time.Since(start), calls)
		}
	})
}

func TestWithRetryConsumerStops(t *testing.T) {
	var calls int
	s := script{{[]llm.Part{llm.TextPart("a"), llm.TextPart("b")}, nil}}
	for range llm.WithRetry(s.model(&calls), llm.RetryPolicy{}).Stream(t.Context(), &llm.Request{}) {
		break
	}
	if calls != 1 {
		t.Errorf("calls = %d", calls)
	}
}

// RetryPolicy.Retry runs an attempt again while it fails retryably before it
// started, and returns the last attempt's error.
func TestRetryPolicyRetry(t *testing.T) {
	server := llm.ErrServer.With(nil, "500")
	tests := []struct {
		name     string
		attempts []error // each attempt's error
		started  int     // the attempt (1-based) that started before failing; 0: none
		calls    int
		err      error
	}{
		{"first attempt succeeds", []error{nil}, 0, 1, nil},
		{"a failure before starting is retried", []error{server, nil}, 0, 2, nil},
		{"attempts used up", []error{server, server, server}, 0, 3, llm.ErrServer},
		{"not retryable", []error{llm.ErrAuth.With(nil, "bad key")}, 0, 1, llm.ErrAuth},
		{"a failure after starting is final", []error{server, server}, 1, 1, llm.ErrServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				err := llm.RetryPolicy{}.Retry(t.Context(), func() (bool, error) {
					calls++
					return calls == tt.started, tt.attempts[calls-1]
				})
				if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) || calls != tt.calls {
					t.Errorf("err %v after %d calls, want %v after %d", err, calls, tt.err, tt.calls)
				}
			})
		})
	}
}

// RetryPolicy.Retry names each failed attempt to OnRetry, and returns ctx's
// cause when ctx ends during a wait.
func TestRetryPolicyRetryWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server := llm.ErrServer.With(nil, "500")
		var retried []int
		p := llm.RetryPolicy{MaxAttempts: 3, OnRetry: func(attempt int, _ time.Duration, _ error) { retried = append(retried, attempt) }}
		calls := 0
		err := p.Retry(t.Context(), func() (bool, error) { calls++; return false, server })
		if !errors.Is(err, llm.ErrServer) || calls != 3 || !cmp.Equal(retried, []int{1, 2}) {
			t.Errorf("err %v after %d calls, OnRetry %v; want ErrServer after 3, OnRetry [1 2]", err, calls, retried)
		}
		stop := errors.New("stopped")
		ctx, cancel := context.WithCancelCause(t.Context())
		p.OnRetry = func(int, time.Duration, error) { cancel(stop) }
		if err := p.Retry(ctx, func() (bool, error) { return false, server }); !errors.Is(err, stop) {
			t.Errorf("ctx ended during the wait: err %v, want its cause", err)
		}
	})
}
