package llm

import (
	"context"
	"iter"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of a zero [RetryPolicy].
const (
	DefaultMaxAttempts = 3
	DefaultBaseDelay   = 500 * time.Millisecond
	DefaultMaxDelay    = 30 * time.Second
)

// RetryPolicy decides whether and when a failed model call is tried again:
// exponential backoff with jitter, honouring the server's Retry-After, for
// [Retryable] errors only. The zero value is the default policy; set
// MaxAttempts to 1 to turn retries off.
type RetryPolicy struct {
	// MaxAttempts bounds the attempts of one call, the first included;
	// 0 means DefaultMaxAttempts, 1 means no retry.
	MaxAttempts int
	// BaseDelay is the backoff before the second attempt, doubled for each
	// one after; 0 means DefaultBaseDelay.
	BaseDelay time.Duration
	// MaxDelay caps a wait; 0 means DefaultMaxDelay. A server asking for a
	// longer wait than MaxDelay ends the retries: an earlier attempt would
	// only be refused again.
	MaxDelay time.Duration
	// OnRetry, when set, is called before each wait with the attempt that
	// failed (1-based), the wait and the error.
	OnRetry func(attempt int, delay time.Duration, err error)
}

func (p RetryPolicy) attempts() int {
	if p.MaxAttempts <= 0 {
		return DefaultMaxAttempts
	}
	return p.MaxAttempts
}

// Delay is the wait before the next attempt after attempt (1-based) failed
// with err, and false when there is to be none: err is not [Retryable], the
// attempts are used up, or the server's Retry-After exceeds MaxDelay.
//
// The wait is the backoff min(BaseDelay·2^(attempt-1), MaxDelay) with
// "equal jitter" (a uniformly random point in its upper half, so that
// clients refused together do not return together), and never less than
// the server's Retry-After.
func (p RetryPolicy) Delay(attempt int, err error) (time.Duration, bool) {
	if !Retryable(err) || attempt >= p.attempts() {
		return 0, false
	}
	base, maxDelay := p.BaseDelay, p.MaxDelay
	if base <= 0 {
		base = DefaultBaseDelay
	}
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	after := RetryAfter(err)
	if after > maxDelay {
		return 0, false
	}
	d := maxDelay
	if shift := attempt - 1; shift < 32 && base<<shift > 0 && base<<shift < maxDelay {
		d = base << shift
	}
	d = d/2 + rand.N(d/2+1)
	return max(d, after), true
}

// WithRetry returns a Model that retries m's failed responses under p, as
// long as the failure came before the response's first part was yielded:
// once a part reached the consumer, an error passes through unchanged, so
// nothing already shown is repeated. Waits end early with ctx's cause when
// ctx ends.
func WithRetry(m Model, p RetryPolicy) Model {
	return ModelFunc(func(ctx context.Context, req *Request) iter.Seq2[Part, error] {
		return func(yield func(Part, error) bool) {
			err := p.Retry(ctx, func() (bool, error) {
				started := false
				for part, err := range m.Stream(ctx, req) {
					if err != nil {
						return started, err
					}
					started = true
					if !yield(part, nil) {
						return true, nil // stopped: Retry returns nil
					}
				}
				return started, nil
			})
			if err != nil {
				yield(Part{}, err)
			}
		}
	})
}

// Retry runs attempt, and again after p's delay while it fails with a
// retryable error before it started: started reports whether anything of
// the attempt reached its consumer, after which a failure is final. It
// returns the last attempt's error (nil when one succeeded), or ctx's cause
// when ctx ends during a wait. OnRetry is called before each wait.
func (p RetryPolicy) Retry(ctx context.Context, attempt func() (started bool, err error)) error {
	for n := 1; ; n++ {
		started, err := attempt()
		if err == nil || started {
			return err
		}
		d, ok := p.Delay(n, err)
		if !ok || ctx.Err() != nil {
			return err
		}
		if p.OnRetry != nil {
			p.OnRetry(n, d, err)
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
}

// sleep waits d or until ctx ends (returning its cause).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// maxHint caps a parsed hint; any wait that long ends the retries anyway.
const maxHint = 24 * time.Hour

func capHint(ns float64) time.Duration {
	if ns >= float64(maxHint) {
		return maxHint
	}
	return time.Duration(ns)
}

// ParseRetryAfter reads a server's retry hint from h: retry-after-ms
// (milliseconds, as OpenAI sends), else Retry-After in seconds or as an
// HTTP date relative to now, capped at a day. Anything missing, invalid or
// in the past is 0.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return capHint(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return capHint(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxHint)
	}
	return 0
}
