package turnrunner

import (
	"context"
	"fmt"
	"sync"

	"github.com/ebbforge/adk/forge"
)

// runOnion runs mws around core (nil: a no-op) and reports whether the core
// was reached. The core runs with the ctx the innermost middleware passed to
// next, and its error is what that next returns. When ctx is done, a
// middleware's body is skipped but the chain continues, so an aborted run
// never looks short-circuited. A panicking middleware is an error.
//
// A next may be called from another goroutine. One called after the
// middleware it was handed to returned (from a goroutine that middleware
// left behind) does nothing and returns ErrNextCalledLate: the turn's work
// never outlives runOnion. One that started before its middleware returned
// is waited for, and runs the rest of the chain (inner middlewares, the
// core) as usual: whatever it does is over when runOnion returns, and its
// outcome counts.
func runOnion[T any, M ~func(context.Context, T, Next) error](ctx context.Context, v T, mws []M, core Next) (reached bool, err error) {
	if len(mws) == 0 {
		// Nothing can call next late or twice: no bookkeeping (the
		// common case, several times per iteration).
		if core == nil {
			return true, nil
		}
		return true, core(ctx)
	}
	var (
		mu       sync.Mutex // guards entered, returned and coreRun
		entered  = make([]bool, len(mws)+1)
		returned = make([]bool, len(mws)+1) // frame i is over: its next is late
		coreRun  bool
		inFlight sync.WaitGroup // frames running; a late next is refused, so none starts after Wait
	)
	var call func(ctx context.Context, i int) error
	call = func(ctx context.Context, i int) (err error) {
		mu.Lock()
		switch {
		case i > 0 && returned[i-1]:
			mu.Unlock()
			return ErrNextCalledLate.With(nil, "turnrunner: middleware %d called next after it returned", i-1)
		case entered[i]:
			mu.Unlock()
			return ErrNextCalledTwice.With(nil, "turnrunner: middleware %d called next twice", i-1)
		}
		entered[i] = true
		if i == len(mws) {
			coreRun = true
		}
		inFlight.Add(1) // the caller's frame is still counted: never concurrent with a zero count
		mu.Unlock()
		defer func() {
			mu.Lock()
			returned[i] = true
			mu.Unlock()
			inFlight.Done()
		}()
		if i == len(mws) {
			if core == nil {
				return nil
			}
			return core(ctx)
		}
		if ctx.Err() != nil {
			return call(ctx, i+1)
		}
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("turnrunner: middleware %d panicked: %v", i, p)
			}
		}()
		return mws[i](ctx, v, func(ctx context.Context) error { return call(ctx, i+1) })
	}
	err = call(ctx, 0)
	inFlight.Wait()
	mu.Lock()
	defer mu.Unlock()
	return coreRun, err
}

// runOutput runs an output pipeline (mws around no core); a failure is
// wrapped in code as "turnrunner: <which> output pipeline failed".
func runOutput[T any, M ~func(context.Context, T, Next) error](ctx context.Context, v T, mws []M, code *forge.Error, which string) (reached bool, err error) {
	reached, err = runOnion(ctx, v, mws, nil)
	if err != nil {
		return reached, code.With(err, "turnrunner: %s output pipeline failed", which)
	}
	return reached, nil
}

// shortCircuited is the error for a pipeline whose core was not reached
// because a middleware did not call next.
func shortCircuited(pipeline string) error {
	return ErrShortCircuited.With(nil, "turnrunner: pipeline %q short-circuited: a middleware did not call next", pipeline)
}
