package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/ebbforge/adk/canonical"
)

// ExecutionStart is reported before a handler runs.
type ExecutionStart struct {
	ToolName string
	CallID   string
	// Args is a deep copy of the validated arguments (defaults applied),
	// the observer's own: the handler is free to change its map meanwhile,
	// and the event may cross goroutines.
	Args      map[string]any
	StartedAt time.Time
}

// ExecutionEnd is reported after a handler settles.
type ExecutionEnd struct {
	ToolName  string
	CallID    string
	StartedAt time.Time
	EndedAt   time.Time
	Duration  time.Duration
	IsError   bool
	Err       error
}

// ExecutionObserver receives execution events; calls are synchronous.
type ExecutionObserver interface {
	ToolExecutionStart(ExecutionStart)
	ToolExecutionEnd(ExecutionEnd)
}

// PanicError is the cause of the ErrToolDownstreamError returned when a
// handler panics: the recovered value and the handler goroutine's stack.
type PanicError struct {
	Value any
	Stack []byte
}

// Error renders the panic value; the stack is in Stack.
func (e *PanicError) Error() string { return fmt.Sprintf("forge: handler panicked: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// Execute runs the tool once: checksum over the raw args (unless inv.CallID
// is set), validation (ErrInvalidToolArgs, no events, handler not called),
// start event, handler under the tool's timeout with panic recovery, end event.
// A handler error, panic or timeout is ErrToolDownstreamError with the cause
// kept, except a handler error matching ErrInvalidToolArgs, which stays an
// argument error; cancellation of ctx is returned as ctx's error, not a tool
// failure.
// ArtifactTools return an OutputText. obs may be nil.
//
// Details:
//   - inv.Tool is set to the tool's name, inv.Meta to a copy of its Meta
//     (deep through map[string]any and []any, as Tool.Options) and inv.CallID,
//     when empty, to canonical.Checksum(name, raw) over the raw
//     (pre-validation) arguments; empty raw arguments hash as {}.
//   - Arguments that canonical cannot hash are ErrInvalidToolArgs.
//   - A LazySchema tool whose schema does not resolve returns
//     ErrInvalidInitialToolValue, like invalid arguments before any event.
//   - A per-tool timeout is ErrToolDownstreamError whose chain holds
//     context.DeadlineExceeded. Cancellation of ctx (or ctx's own deadline)
//     is returned as an error matching ctx.Err() (context.Canceled or
//     context.DeadlineExceeded) and never matches ErrToolDownstreamError.
//   - When ctx can be cancelled or the tool has a timeout, the handler runs
//     on its own goroutine and Execute returns as soon as the deadline passes
//     or ctx is cancelled, even if the handler ignores its context: that
//     goroutine is then abandoned (its context is cancelled) and its late
//     result discarded: a late ReaderOutput whose stream is an io.Closer is
//     closed on that goroutine as soon as the handler returns it. A handler
//     that honours ctx leaves nothing behind. Otherwise the handler runs on
//     the calling goroutine.
//   - A ReaderOutput returned together with an error is closed likewise
//     (when an io.Closer) before Execute returns the error: only a
//     delivered stream becomes the caller's to close.
//   - A successful handler must return a non-empty Output (TextOutput("") is
//     fine); the zero Output, nil media, nil readers and nil artifacts are
//     ErrToolDownstreamError.
//   - The end event carries IsError and the returned error.
//   - A panic is ErrToolDownstreamError even when its value is an argument
//     error. A handler that calls runtime.Goexit on its own goroutine is
//     ErrToolDownstreamError; on the calling goroutine it ends that
//     goroutine, as any function calling Goexit does.
func (t *Tool) Execute(ctx context.Context, raw json.RawMessage, inv Invocation, obs ExecutionObserver) (Output, error) {
	args, typedArgs, err := t.prepare(raw)
	if err != nil {
		return Output{}, err
	}
	if inv.CallID == "" {
		src := []byte(raw)
		if len(bytes.TrimSpace(raw)) == 0 {
			src = emptyObject
		}
		// ChecksumJSON rather than Checksum: no boxing of raw into an any.
		id, err := canonical.ChecksumJSON(t.name, src)
		if err != nil {
			return Output{}, argsError(t.name, []string{"arguments cannot be canonicalised: " + err.Error()})
		}
		inv.CallID = id
	}
	if err := ctx.Err(); err != nil {
		return Output{}, cancelled(ctx, t.name)
	}
	inv.Tool = t.name
	if t.opts.Meta != nil {
		inv.Meta = cloneArgs(t.opts.Meta)
	} else {
		inv.Meta = nil
	}
	var start time.Time // read only for the observer's events
	if obs != nil {
		start = time.Now()
		evArgs := args
		if t.typed == nil {
			// The handler gets args and may change them; a typed
			// handler gets its struct, and args are the observer's.
			evArgs = cloneArgs(args)
		}
		obs.ToolExecutionStart(ExecutionStart{ToolName: t.name, CallID: inv.CallID, Args: evArgs, StartedAt: start})
	}
	out, err := t.run(ctx, args, typedArgs, inv)
	if obs != nil {
		end := time.Now()
		obs.ToolExecutionEnd(ExecutionEnd{ToolName: t.name, CallID: inv.CallID, StartedAt: start, EndedAt: end,
			Duration: end.Sub(start), IsError: err != nil, Err: err})
	}
	return out, err
}

var emptyObject = json.RawMessage("{}")

// cloneArgs deep-copies JSON-like values: nested map[string]any and []any
// are copied, any other value is shared (decoded JSON's are immutable; a
// tool's Meta may hold structs or pointers, which stay the caller's).
func cloneArgs(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = cloneJSON(v)
	}
	return c
}

func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return cloneArgs(v)
	case []any:
		if v == nil {
			return v
		}
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = cloneJSON(e)
		}
		return c
	}
	return v
}

type result struct {
	out Output
	err error
}

// errHandlerExited is the cause when a handler running on its own goroutine
// ends it with runtime.Goexit instead of returning.
var errHandlerExited = errors.New("forge: handler exited its goroutine (runtime.Goexit) without returning")

// run calls the handler under the timeout and classifies the outcome.
func (t *Tool) run(ctx context.Context, args map[string]any, typedArgs any, inv Invocation) (Output, error) {
	if t.opts.Timeout <= 0 && ctx.Done() == nil {
		// Nothing can interrupt the call: no goroutine needed.
		out, err := t.call(ctx, args, typedArgs, inv)
		return t.settle(ctx, ctx, out, err)
	}
	// Without a timeout the handler can share ctx: only ctx's cancellation
	// can make Execute abandon it, and that already reaches the handler.
	hctx := ctx
	if t.opts.Timeout > 0 {
		var cancel context.CancelFunc
		hctx, cancel = context.WithTimeout(ctx, t.opts.Timeout)
		defer cancel()
	}
	// Unbuffered, with abandoned closed when Execute gives up: the handler's
	// goroutine then knows its result will never be received and releases
	// it itself (no other goroutine outlives the handler's). A handler that
	// returns as the caller cancels (a user stopping the turn as the tool
	// finishes) reaches the send before Execute, woken on its goroutine's
	// processor, runs: its result is kept. A hand-over without the select
	// (an atomic flag, done closed) saves the goroutine's stack growth but
	// loses that race far more often.
	ch := make(chan result)
	abandoned := make(chan struct{})
	go func() {
		// Sent from a defer so that a handler ending its goroutine with
		// runtime.Goexit still settles the call instead of leaving Execute
		// waiting (or reporting a timeout).
		r := result{err: errHandlerExited}
		defer func() {
			select {
			case ch <- r:
			case <-abandoned:
				discard(r.out)
			}
		}()
		r.out, r.err = t.call(hctx, args, typedArgs, inv)
	}()
	select {
	case r := <-ch:
		return t.settle(ctx, hctx, r.out, r.err)
	case <-hctx.Done():
		select {
		case r := <-ch: // settled at the same instant: keep the real answer
			return t.settle(ctx, hctx, r.out, r.err)
		default:
		}
		close(abandoned)
		return t.settle(ctx, hctx, Output{}, hctx.Err())
	}
}

// discard releases an output that will never be delivered: a ReaderOutput's
// stream is closed when it is an io.Closer, as the spooler would have. Its
// error, or panic, has nobody to go to and is dropped.
func discard(out Output) {
	if out.kind != OutputReader {
		return
	}
	c, ok := out.reader.(io.Closer)
	if !ok || isNil(c) {
		return
	}
	defer func() { _ = recover() }()
	_ = c.Close()
}

// settle turns a handler outcome into Execute's result.
func (t *Tool) settle(ctx, hctx context.Context, out Output, err error) (Output, error) {
	if err != nil {
		discard(out) // a stream returned with an error is never spooled
	}
	if err == nil {
		if msg := out.check(); msg != "" {
			return Output{}, ErrToolDownstreamError.With(errors.New(msg), "forge: tool %q failed", t.name)
		}
		return out, nil
	}
	if ctx.Err() != nil {
		return Output{}, cancelled(ctx, t.name)
	}
	if hctx.Err() != nil && errors.Is(context.Cause(hctx), context.DeadlineExceeded) {
		// The tool is named once, in the message; the cause is the
		// deadline, plus the handler's own error when it had another.
		cause := error(context.DeadlineExceeded)
		if !errors.Is(err, context.DeadlineExceeded) {
			cause = errors.Join(cause, err)
		}
		return Output{}, ErrToolDownstreamError.With(cause, "forge: tool %q timed out after %s", t.name, t.opts.Timeout)
	}
	var panicked *PanicError
	if errors.Is(err, ErrInvalidToolArgs) && !errors.As(err, &panicked) {
		// The handler found an argument the schema could not express
		// (a bad regex, say): the model should fix its call, as for a
		// schema failure, so the argument code stays outermost.
		return Output{}, ErrInvalidToolArgs.With(err, "forge: tool %q rejected its arguments", t.name)
	}
	return Output{}, ErrToolDownstreamError.With(err, "forge: tool %q failed", t.name)
}

// cancelled reports the caller's cancellation; it matches ctx.Err() and
// keeps a custom cause.
func cancelled(ctx context.Context, tool string) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause != nil && cause != err {
		return fmt.Errorf("forge: tool %q: %w: %w", tool, err, cause)
	}
	return fmt.Errorf("forge: tool %q: %w", tool, err)
}

// call invokes the handler, turning a panic into a PanicError.
func (t *Tool) call(ctx context.Context, args map[string]any, typedArgs any, inv Invocation) (out Output, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = Output{}, &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	switch {
	case t.typed != nil:
		return t.typed(ctx, typedArgs, inv)
	case t.artifactHandler != nil:
		s, err := t.artifactHandler(ctx, args, inv)
		if err != nil {
			return Output{}, err
		}
		return TextOutput(s), nil
	default:
		return t.handler(ctx, args, inv)
	}
}
