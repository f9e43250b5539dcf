package wire

import (
	"context"
	"io"
	"sync/atomic"
	"time"
)

// Watchdog cancels a call when its current timer fires. Its methods must
// not be called concurrently, except that the timer may fire at any time.
type Watchdog struct {
	cancel context.CancelCauseFunc
	t      *time.Timer
	d      time.Duration
	cause  atomic.Pointer[error]
}

// New arms a watchdog that calls cancel with cause after d (never when
// d <= 0).
func New(cancel context.CancelCauseFunc, d time.Duration, cause error) *Watchdog {
	w := &Watchdog{cancel: cancel}
	w.Reset(d, cause)
	return w
}

// Reset re-arms the watchdog for d with cause (disarms it when d <= 0).
func (w *Watchdog) Reset(d time.Duration, cause error) {
	w.Stop()
	w.t, w.d = nil, d
	w.cause.Store(&cause)
	if d > 0 {
		w.t = time.AfterFunc(d, func() { w.cancel(*w.cause.Load()) })
	}
}

// Kick restarts the current timer: the call made progress.
func (w *Watchdog) Kick() {
	if w.t != nil {
		w.t.Reset(w.d)
	}
}

// Stop disarms the watchdog.
func (w *Watchdog) Stop() {
	if w.t != nil {
		w.t.Stop()
	}
}

// Reader returns r, kicking w on every read that returns data.
func (w *Watchdog) Reader(r io.Reader) io.Reader { return &reader{r: r, w: w} }

type reader struct {
	r io.Reader
	w *Watchdog
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.w.Kick()
	}
	return n, err
}

// Timeout is d, or def when d is zero; negative means none.
func Timeout(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
