package ctxtest

import (
	"context"
	"sync/atomic"
)

// Countdown is a context that ends after its Err has answered nil n
// times: the code's context checks, counted, stand in for a deadline.
type Countdown struct {
	context.Context
	left  atomic.Int64
	after atomic.Int64 // Err calls once ended
	done  chan struct{}
}

// NewCountdown returns a Countdown whose Err answers nil n times, then
// context.Canceled.
func NewCountdown(n int64) *Countdown {
	c := &Countdown{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(n)
	return c
}

// Done is closed by the first Err call that ends the context.
func (c *Countdown) Done() <-chan struct{} { return c.done }

// Err is nil while the count lasts, then context.Canceled.
func (c *Countdown) Err() error {
	if c.left.Add(-1) >= 0 {
		return nil
	}
	if c.after.Add(1) == 1 {
		close(c.done)
	}
	return context.Canceled
}

// ErrsAfterEnd is how many times Err has answered context.Canceled: a
// caller that stops at its first check after the end makes it 1.
func (c *Countdown) ErrsAfterEnd() int64 { return c.after.Load() }
