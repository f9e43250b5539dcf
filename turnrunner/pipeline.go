package turnrunner

import (
	"context"
	"fmt"
)

// runOnion runs mws around a no-op core and reports whether the core was
// reached. When ctx is done, a middleware's body is skipped but the chain
// continues, so an aborted run never looks short-circuited. A panicking
// middleware is an error.
func runOnion[T any, M ~func(context.Context, T, Next) error](ctx context.Context, v T, mws []M) (reached bool, err error) {
	var call func(ctx context.Context, i int) error
	call = func(ctx context.Context, i int) (err error) {
		if i == len(mws) {
			reached = true
			return nil
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
	return reached, err
}
