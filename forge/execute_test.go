package forge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestExecuteEvents(t *testing.T) {
	var calls atomic.Int32
	tool := mustTool(t, objSchema, func(ctx context.Context, args map[string]any, inv Invocation) (Output, error) {
		calls.Add(1)
		return echoHandler(ctx, args, inv)
	}, nil)
	rec := &recorder{}
	out, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{CallID: "cid"}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if out.Text() != `{"a":1}` {
		t.Errorf("output = %q", out.Text())
	}
	if len(rec.starts) != 1 || len(rec.ends) != 1 || calls.Load() != 1 {
		t.Fatalf("starts=%d ends=%d calls=%d", len(rec.starts), len(rec.ends), calls.Load())
	}
	s, e := rec.starts[0], rec.ends[0]
	if s.ToolName != "t" || s.CallID != "cid" || s.Args["a"] != 1.0 || s.StartedAt.IsZero() {
		t.Errorf("start = %+v", s)
	}
	if e.ToolName != "t" || e.CallID != "cid" || e.IsError || e.Err != nil || !e.StartedAt.Equal(s.StartedAt) ||
		e.EndedAt.Before(e.StartedAt) || e.Duration != e.EndedAt.Sub(e.StartedAt) {
		t.Errorf("end = %+v", e)
	}
}

func TestExecuteInvalidArgsNoEvents(t *testing.T) {
	var calls atomic.Int32
	tool := mustTool(t, objSchema, func(context.Context, map[string]any, Invocation) (Output, error) {
		calls.Add(1)
		return TextOutput(""), nil
	}, nil)
	rec := &recorder{}
	for _, raw := range []string{`{}`, `[]`, `{"a":"1"}`, `nope`} {
		_, err := tool.Execute(context.Background(), json.RawMessage(raw), Invocation{}, rec)
		if !errors.Is(err, ErrInvalidToolArgs) {
			t.Errorf("%s: err = %v", raw, err)
		}
	}
	if len(rec.starts)+len(rec.ends) != 0 || calls.Load() != 0 {
		t.Errorf("events=%d/%d calls=%d, want none", len(rec.starts), len(rec.ends), calls.Load())
	}
}

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func TestExecuteCallID(t *testing.T) {
	var seen []string
	tool := mustTool(t, json.RawMessage(`{"type":"object","additionalProperties":true}`), func(_ context.Context, _ map[string]any, inv Invocation) (Output, error) {
		seen = append(seen, inv.CallID)
		return TextOutput(""), nil
	}, nil)
	rec := &recorder{}
	for _, raw := range []string{`{"a":1,"b":2}`, `{"b":2,"a":1}`, ` {"b": 2, "a": 1} `} {
		if _, err := tool.Execute(context.Background(), json.RawMessage(raw), Invocation{}, rec); err != nil {
			t.Fatal(err)
		}
	}
	for i := range rec.starts {
		if !hex64.MatchString(rec.starts[i].CallID) {
			t.Errorf("callId %q is not 64 hex", rec.starts[i].CallID)
		}
		if rec.starts[i].CallID != rec.starts[0].CallID || rec.ends[i].CallID != rec.starts[i].CallID || seen[i] != rec.starts[i].CallID {
			t.Errorf("callIds differ: starts=%v ends=%v handler=%v", rec.starts, rec.ends, seen)
		}
	}
	// Empty args hash like {}.
	_, _ = tool.Execute(context.Background(), nil, Invocation{}, rec)
	_, _ = tool.Execute(context.Background(), json.RawMessage(`{}`), Invocation{}, rec)
	if n := len(rec.starts); rec.starts[n-1].CallID != rec.starts[n-2].CallID {
		t.Errorf("empty args and {} hash differently")
	}
}

// The callId hashes the raw arguments, before defaults are applied.
func TestExecuteCallIDOverRawArgs(t *testing.T) {
	tool := mustTool(t, json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","default":3}}}`), echoHandler, nil)
	rec := &recorder{}
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{}`), Invocation{}, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"n":3}`), Invocation{}, rec); err != nil {
		t.Fatal(err)
	}
	if rec.starts[0].CallID == rec.starts[1].CallID {
		t.Errorf("defaults leaked into the callId")
	}
	if rec.starts[0].Args["n"] != 3.0 {
		t.Errorf("start args = %v, want validated args with defaults", rec.starts[0].Args)
	}
}

func TestExecuteInvocation(t *testing.T) {
	var got Invocation
	tool := mustTool(t, objSchema, func(_ context.Context, _ map[string]any, inv Invocation) (Output, error) {
		got = inv
		inv.Meta["k"] = "mutated"
		return TextOutput(""), nil
	}, &ToolOptions{Meta: map[string]any{"k": "v"}})
	scope := fakeScope{}
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{Tool: "ignored", ID: "call_1", CallID: "c", Scope: scope}, nil); err != nil {
		t.Fatal(err)
	}
	if got.Tool != "t" || got.ID != "call_1" || got.CallID != "c" || got.Scope != scope || got.Meta["k"] == nil {
		t.Errorf("invocation = %+v", got)
	}
	if tool.Options().Meta["k"] != "v" {
		t.Errorf("handler mutated the tool's meta")
	}
}

type fakeScope struct{}

func (fakeScope) DispatchID() string       { return "d1" }
func (fakeScope) Iteration() int           { return 0 }
func (fakeScope) ToolCallCount(string) int { return 0 }

func TestExecuteHandlerError(t *testing.T) {
	boom := errors.New("boom")
	tool := mustTool(t, objSchema, func(context.Context, map[string]any, Invocation) (Output, error) {
		return Output{}, boom
	}, nil)
	rec := &recorder{}
	_, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, rec)
	if !errors.Is(err, ErrToolDownstreamError) || !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	var e *Error
	if errors.As(err, &e); e.Fatal || e.Status != 500 {
		t.Errorf("want non-fatal 500: %+v", e)
	}
	if len(rec.ends) != 1 || !rec.ends[0].IsError || !errors.Is(rec.ends[0].Err, boom) {
		t.Errorf("end events = %+v", rec.ends)
	}
}

func TestExecutePanic(t *testing.T) {
	for _, ctxKind := range []string{"background", "cancellable"} {
		t.Run(ctxKind, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			tool := mustTool(t, objSchema, func(context.Context, map[string]any, Invocation) (Output, error) {
				panic("kaboom")
			}, nil)
			ctx := context.Background()
			if ctxKind == "cancellable" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			rec := &recorder{}
			_, err := tool.Execute(ctx, json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, rec)
			if !errors.Is(err, ErrToolDownstreamError) {
				t.Fatalf("err = %v", err)
			}
			var pe *PanicError
			if !errors.As(err, &pe) || pe.Value != "kaboom" || !strings.Contains(string(pe.Stack), "execute_test.go") {
				t.Errorf("panic cause = %+v", pe)
			}
			if len(rec.ends) != 1 || !rec.ends[0].IsError {
				t.Errorf("end events = %+v", rec.ends)
			}
		})
	}
}

func TestExecutePanicWithError(t *testing.T) {
	sentinel := errors.New("inner")
	tool := mustTool(t, objSchema, func(context.Context, map[string]any, Invocation) (Output, error) {
		panic(sentinel)
	}, nil)
	_, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, nil)
	if !errors.Is(err, sentinel) {
		t.Errorf("err = %v, want the panic value in the chain", err)
	}
}

// A panic is a downstream failure even when its value is an argument
// error: only a returned argument error stays one.
func TestExecutePanicWithArgumentError(t *testing.T) {
	tool := mustTool(t, objSchema, func(context.Context, map[string]any, Invocation) (Output, error) {
		panic(ErrInvalidToolArgs.With(nil, "boom"))
	}, nil)
	_, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, nil)
	var pe *PanicError
	if !errors.Is(err, ErrToolDownstreamError) || !errors.As(err, &pe) {
		t.Errorf("err = %v, want ErrToolDownstreamError holding the PanicError", err)
	}
}

// A handler that ends its own goroutine with runtime.Goexit settles the
// call as a failure, at once, with or without a tool timeout.
func TestExecuteHandlerGoexit(t *testing.T) {
	for _, timeout := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprint(timeout), func(t *testing.T) {
			defer goleak.VerifyNone(t)
			tool := mustTool(t, objSchema, func(context.Context, map[string]any, Invocation) (Output, error) {
				runtime.Goexit()
				return Output{}, nil
			}, &ToolOptions{Timeout: timeout})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := tool.Execute(ctx, json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, nil)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrToolDownstreamError) || errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want ErrToolDownstreamError, not a timeout", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Execute still waits for a handler that called runtime.Goexit")
			}
		})
	}
}

func TestExecuteTimeoutCooperative(t *testing.T) {
	defer goleak.VerifyNone(t)
	tool := mustTool(t, objSchema, func(ctx context.Context, _ map[string]any, _ Invocation) (Output, error) {
		<-ctx.Done()
		return Output{}, ctx.Err()
	}, &ToolOptions{Timeout: 20 * time.Millisecond})
	rec := &recorder{}
	_, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, rec)
	if !errors.Is(err, ErrToolDownstreamError) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want downstream + DeadlineExceeded", err)
	}
	// The tool and the timeout are named once.
	if want := `E_TOOL_DOWNSTREAM_ERROR: forge: tool "t" timed out after 20ms: context deadline exceeded`; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("a tool timeout is not a cancellation: %v", err)
	}
	if len(rec.ends) != 1 || !rec.ends[0].IsError {
		t.Errorf("end events = %+v", rec.ends)
	}
}

// A handler that ignores its context: Execute returns at the deadline and
// the handler's late result is discarded.
func TestExecuteTimeoutUncooperative(t *testing.T) {
	release := make(chan struct{})
	done := make(chan struct{})
	tool := mustTool(t, objSchema, func(context.Context, map[string]any, Invocation) (Output, error) {
		defer close(done)
		<-release
		return TextOutput("late"), nil
	}, &ToolOptions{Timeout: 20 * time.Millisecond})
	out, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, nil)
	if !errors.Is(err, ErrToolDownstreamError) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if out.Kind() != outputNone {
		t.Errorf("output = %v, want none", out.Kind())
	}
	close(release)
	<-done // the abandoned goroutine finishes: it never blocks on its send
	goleak.VerifyNone(t)
}

func TestExecuteCallerCancel(t *testing.T) {
	defer goleak.VerifyNone(t)
	started := make(chan struct{})
	tool := mustTool(t, objSchema, func(ctx context.Context, _ map[string]any, _ Invocation) (Output, error) {
		close(started)
		<-ctx.Done()
		return Output{}, errors.New("handler saw cancellation")
	}, &ToolOptions{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	rec := &recorder{}
	_, err := tool.Execute(ctx, json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, rec)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrToolDownstreamError) {
		t.Fatalf("err = %v, want context.Canceled and not downstream", err)
	}
	if len(rec.ends) != 1 || !rec.ends[0].IsError {
		t.Errorf("end events = %+v", rec.ends)
	}
}

func TestExecuteCallerDeadline(t *testing.T) {
	defer goleak.VerifyNone(t)
	tool := mustTool(t, objSchema, func(ctx context.Context, _ map[string]any, _ Invocation) (Output, error) {
		<-ctx.Done()
		return Output{}, ctx.Err()
	}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := tool.Execute(ctx, json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrToolDownstreamError) {
		t.Fatalf("err = %v, want the caller's deadline, not downstream", err)
	}
}

func TestExecuteCancelCause(t *testing.T) {
	cause := errors.New("user hung up")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	rec := &recorder{}
	tool := mustTool(t, objSchema, echoHandler, nil)
	_, err := tool.Execute(ctx, json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, rec)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) || errors.Is(err, ErrToolDownstreamError) {
		t.Fatalf("err = %v", err)
	}
	if len(rec.starts) != 0 {
		t.Errorf("a call cancelled before it starts emits no events")
	}
}

func TestExecuteOutputChecks(t *testing.T) {
	tests := []struct {
		name string
		out  Output
		ok   bool
	}{
		{"none", Output{}, false},
		{"empty text", TextOutput(""), true},
		{"bytes", BytesOutput(nil), true},
		{"reader", ReaderOutput(strings.NewReader("x")), true},
		{"nil reader", ReaderOutput(nil), false},
		{"typed nil reader", ReaderOutput((*strings.Reader)(nil)), false},
		{"no media", MediaOutput(), false},
		{"nil media", MediaOutput(nil), false},
		{"media", MediaOutput(newMedia(t, "m1")), true},
		{"artifact", ArtifactOutput(fakeArtifact{id: "a", kind: "SpooledArtifact"}), true},
		{"nil artifact", ArtifactOutput(nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := mustTool(t, objSchema, func(context.Context, map[string]any, Invocation) (Output, error) { return tt.out, nil }, nil)
			out, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, nil)
			if tt.ok != (err == nil) {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrToolDownstreamError) {
				t.Errorf("err = %v, want downstream", err)
			}
			if tt.ok && out.Kind() != tt.out.Kind() {
				t.Errorf("kind = %v, want %v", out.Kind(), tt.out.Kind())
			}
		})
	}
}

func TestExecuteArtifactTool(t *testing.T) {
	tool, err := NewArtifactTool("artifact_head", "first lines", json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		func(_ context.Context, args map[string]any, _ Invocation) (string, error) {
			return "head " + string(rune('0'+int(args["n"].(float64)))), nil
		}, &ToolOptions{Ephemeral: true, OnCollision: CollisionReplace})
	if err != nil {
		t.Fatal(err)
	}
	if !tool.IsArtifactTool() {
		t.Fatal("not an artifact tool")
	}
	out, err := tool.Execute(context.Background(), json.RawMessage(`{"n":3}`), Invocation{CallID: "c"}, nil)
	if err != nil || out.Kind() != OutputText || out.Text() != "head 3" {
		t.Fatalf("out = %v %q, err = %v", out.Kind(), out.Text(), err)
	}
	boom := errors.New("boom")
	failing, _ := NewArtifactTool("artifact_x", "d", objSchema, func(context.Context, map[string]any, Invocation) (string, error) { return "", boom }, nil)
	if _, err := failing.Execute(context.Background(), json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, nil); !errors.Is(err, boom) || !errors.Is(err, ErrToolDownstreamError) {
		t.Errorf("err = %v", err)
	}
}

func TestExecuteNilTool(t *testing.T) {
	var tool *Tool
	if _, err := tool.Execute(context.Background(), nil, Invocation{}, nil); err == nil {
		t.Fatal("nil tool executed")
	}
}

// The callId is sha256 of the canonical text of {"tool": name, "args": raw}.
func TestExecuteCallIDExact(t *testing.T) {
	sum := sha256.Sum256([]byte(`{"args":{"a":1,"b":[2,"é"]},"tool":"t"}`))
	want := hex.EncodeToString(sum[:])
	tool := mustTool(t, json.RawMessage(`{"type":"object","additionalProperties":true}`), echoHandler, nil)
	rec := &recorder{}
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"b":[2,"\u00e9"],"a":1}`), Invocation{}, rec); err != nil {
		t.Fatal(err)
	}
	if got := rec.starts[0].CallID; got != want {
		t.Errorf("callId = %s, want %s", got, want)
	}
}

// chanObserver forwards start events over a channel, as the turn runner does.
type chanObserver chan ExecutionStart

func (o chanObserver) ToolExecutionStart(e ExecutionStart) { o <- e }
func (o chanObserver) ToolExecutionEnd(ExecutionEnd)       {}

// The start event's Args belong to the observer: a handler editing its own
// map (nested values too) neither races with an observer reading the event on
// another goroutine nor changes what the observer sees.
func TestExecuteStartArgsIndependent(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","additionalProperties":true}`)
	tool := mustTool(t, schema, func(_ context.Context, args map[string]any, _ Invocation) (Output, error) {
		for i := range 100 {
			args[strconv.Itoa(i)] = i
			args["o"].(map[string]any)["k"] = i
			args["l"].([]any)[0] = i
		}
		return TextOutput(""), nil
	}, nil)
	obs := make(chanObserver, 1)
	seen := make(chan map[string]any)
	go func() {
		s := <-obs
		for range 100 { // read while the handler writes
			_ = fmt.Sprint(s.Args)
		}
		seen <- s.Args
	}()
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"a":1,"o":{"k":"v"},"l":["x"]}`), Invocation{CallID: "c"}, obs); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": 1.0, "o": map[string]any{"k": "v"}, "l": []any{"x"}}
	if diff := cmp.Diff(want, <-seen); diff != "" {
		t.Errorf("start Args changed by the handler (-want +got):\n%s", diff)
	}
}

// A handler that rejects an argument the schema could not express keeps the
// argument code outermost, so the model is told to fix its call.
func TestExecuteHandlerArgumentError(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}}}`)
	tool, err := NewTool("grepish", "Greps.", schema,
		func(ctx context.Context, args map[string]any, inv Invocation) (Output, error) {
			return Output{}, ErrInvalidToolArgs.With(nil, "pattern uses lookahead")
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tool.Execute(context.Background(), json.RawMessage(`{"pattern":"(?=a)"}`), Invocation{}, nil)
	var fe *Error
	if !errors.As(err, &fe) || fe.Code != ErrInvalidToolArgs.Code {
		t.Fatalf("outermost error = %v, want code %s", err, ErrInvalidToolArgs.Code)
	}
	if errors.Is(err, ErrToolDownstreamError) {
		t.Fatalf("argument error reported as downstream: %v", err)
	}
	if !strings.Contains(err.Error(), "lookahead") {
		t.Fatalf("error lost the handler's text: %v", err)
	}
}

// closeRecorder is a ReaderOutput stream that records its Close.
type closeRecorder struct{ closed atomic.Bool }

func (c *closeRecorder) Read([]byte) (int, error) { return 0, io.EOF }
func (c *closeRecorder) Close() error             { c.closed.Store(true); return nil }

// A ReaderOutput belongs to whoever spools it. When Execute returns without
// handing it over (the handler returned it after its timeout or the caller's
// cancellation, or together with an error), Execute closes it: an open file
// or HTTP body must not leak.
func TestExecuteClosesUndeliveredReaderOutput(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		cancel  bool  // cancel the caller's context once the handler runs
		late    bool  // the handler returns only after Execute gave up
		err     error // the handler's error
		want    error
	}{
		{name: "late after timeout", timeout: 10 * time.Millisecond, late: true, want: context.DeadlineExceeded},
		{name: "late after caller cancel", cancel: true, late: true, want: context.Canceled},
		{name: "late with error after timeout", timeout: 10 * time.Millisecond, late: true, err: errors.New("boom"), want: context.DeadlineExceeded},
		{name: "with error, calling goroutine", err: errors.New("boom"), want: ErrToolDownstreamError},
		{name: "with error, own goroutine", timeout: time.Minute, err: errors.New("boom"), want: ErrToolDownstreamError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := &closeRecorder{}
			started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
			tool := mustTool(t, objSchema, func(ctx context.Context, _ map[string]any, _ Invocation) (Output, error) {
				defer close(done)
				close(started)
				if tt.late {
					<-ctx.Done()
					<-release // e.g. a file opened before noticing
				}
				return ReaderOutput(rc), tt.err
			}, &ToolOptions{Timeout: tt.timeout})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				go func() { <-started; cancel() }()
			}
			out, err := tool.Execute(ctx, json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, nil)
			if !errors.Is(err, tt.want) || out.Kind() != outputNone {
				t.Fatalf("Execute = %v, %v; want no output and %v", out.Kind(), err, tt.want)
			}
			close(release)
			<-done
			deadline := time.Now().Add(time.Second)
			for !rc.closed.Load() && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if !rc.closed.Load() {
				t.Fatal("the undelivered ReaderOutput was never closed (a leaked file or body)")
			}
			goleak.VerifyNone(t)
		})
	}
}

// closeCounter counts its closes.
type closeCounter struct{ closes atomic.Int32 }

func (c *closeCounter) Read([]byte) (int, error) { return 0, io.EOF }
func (c *closeCounter) Close() error             { c.closes.Add(1); return nil }

// A handler settling at the instant the caller cancels: whichever wins (the
// handler, nearly always), the stream is either delivered and left open, or
// closed exactly once, never both or neither.
func TestExecuteSettleRacesCancel(t *testing.T) {
	var delivered, undelivered []*closeCounter
	for range 300 {
		rc := &closeCounter{}
		ctx, cancel := context.WithCancel(context.Background())
		tool := mustTool(t, objSchema, func(context.Context, map[string]any, Invocation) (Output, error) {
			cancel() // Execute may see the cancellation before the result, or after
			return ReaderOutput(rc), nil
		}, nil)
		out, err := tool.Execute(ctx, json.RawMessage(`{"a":1}`), Invocation{CallID: "c"}, nil)
		cancel()
		switch {
		case err == nil && out.Reader() != rc:
			t.Fatalf("Execute succeeded without the handler's stream: %v", out.Kind())
		case err == nil:
			delivered = append(delivered, rc)
		case errors.Is(err, context.Canceled):
			undelivered = append(undelivered, rc)
		default:
			t.Fatalf("Execute = %v, want success or context.Canceled", err)
		}
	}
	goleak.VerifyNone(t) // every handler goroutine has finished its part
	for _, rc := range delivered {
		if n := rc.closes.Load(); n != 0 {
			t.Fatalf("a delivered stream was closed %d times", n)
		}
	}
	for _, rc := range undelivered {
		if n := rc.closes.Load(); n != 1 {
			t.Fatalf("an undelivered stream was closed %d times, want once", n)
		}
	}
	t.Logf("%d delivered, %d abandoned", len(delivered), len(undelivered))
}
