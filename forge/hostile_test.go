package forge_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/forge"
)

// The hostile-input suite of forge: what a model can send as a call, and
// what a handler can do, each with its exact outcome.

var hostileSchema = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`)

func hostileTool(t *testing.T, h func(context.Context, map[string]any, forge.Invocation) (forge.Output, error), opts *forge.ToolOptions) *forge.Tool {
	t.Helper()
	tool, err := forge.NewTool("hostile", "hostile", hostileSchema, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func okHandler(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
	return forge.TextOutput("ok"), nil
}

// Arguments a model can get wrong are ErrInvalidToolArgs, the handler is
// not called, and the error stays short whatever the input's size.
func TestHostileArguments(t *testing.T) {
	deep := strings.Repeat(`{"q":`, 100000) + `"x"` + strings.Repeat(`}`, 100000)
	for _, tc := range []struct{ name, args string }{
		{"not JSON", `{"q":`},
		{"an array", `[1,2]`},
		{"a wrong type", `{"q":5}`},
		{"an unknown property", `{"q":"a","r":1}`},
		{"100k-deep nesting", deep},
		{"4 MiB of unknown properties", `{"q":"a","r":"` + strings.Repeat("x", 4<<20) + `"}`},
		{"invalid UTF-8 in a string", "{\"q\":\"\xff\xfe\"}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			called := false
			tool := hostileTool(t, func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
				called = true
				return forge.TextOutput("ok"), nil
			}, nil)
			_, err := tool.Execute(context.Background(), json.RawMessage(tc.args), forge.Invocation{}, nil)
			if tc.name == "invalid UTF-8 in a string" {
				// Repaired to U+FFFD as a JSON decoder does: a valid string.
				if err != nil || !called {
					t.Fatalf("Execute = %v, called %v; want the handler to run", err, called)
				}
				return
			}
			if !errors.Is(err, forge.ErrInvalidToolArgs) {
				t.Fatalf("Execute = %v, want ErrInvalidToolArgs", err)
			}
			if called {
				t.Error("the handler ran on invalid arguments")
			}
			if n := len(err.Error()); n > 4096 {
				t.Errorf("error text of %d bytes: the input was echoed", n)
			}
		})
	}
}

// A panicking handler is ErrToolDownstreamError carrying the panic, on the
// calling goroutine and on the handler's own.
func TestHostilePanickingHandler(t *testing.T) {
	for _, opts := range []*forge.ToolOptions{nil, {Timeout: time.Second}} {
		tool := hostileTool(t, func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			panic("handler broke")
		}, opts)
		_, err := tool.Execute(context.Background(), json.RawMessage(`{}`), forge.Invocation{}, nil)
		var pe *forge.PanicError
		if !errors.Is(err, forge.ErrToolDownstreamError) || !errors.As(err, &pe) || pe.Value != "handler broke" {
			t.Errorf("timeout %v: Execute = %v, want ErrToolDownstreamError with the PanicError", opts != nil, err)
		}
	}
}

// A handler that ignores its context and never returns: Execute returns at
// the tool's timeout, and the abandoned goroutine ends as soon as the
// handler does, closing the reader it returned late.
func TestHostileHungHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		pr, pw := io.Pipe()
		tool := hostileTool(t, func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			<-release
			return forge.ReaderOutput(pr), nil
		}, &forge.ToolOptions{Timeout: 50 * time.Millisecond})
		start := time.Now()
		_, err := tool.Execute(t.Context(), json.RawMessage(`{}`), forge.Invocation{}, nil)
		if !errors.Is(err, forge.ErrToolDownstreamError) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Execute = %v, want a timeout", err)
		}
		if took := time.Since(start); took != 50*time.Millisecond {
			t.Errorf("Execute returned after %v, want the 50ms timeout", took)
		}
		close(release)
		synctest.Wait() // the handler's goroutine has ended
		if _, err := pw.Write([]byte("late")); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("the late reader was not closed: write = %v", err)
		}
	})
}

// Cancelling the caller's context is returned as ctx's error, never as a
// tool failure, and leaves no goroutine behind when the handler honours it.
func TestHostileCancelledCall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	tool := hostileTool(t, func(ctx context.Context, _ map[string]any, _ forge.Invocation) (forge.Output, error) {
		cancel()
		<-ctx.Done()
		return forge.Output{}, ctx.Err()
	}, nil)
	_, err := tool.Execute(ctx, json.RawMessage(`{}`), forge.Invocation{}, nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, forge.ErrToolDownstreamError) {
		t.Errorf("Execute = %v, want context.Canceled only", err)
	}
}

// Names and ids a model can send are bounded in a stored call, and the
// problem quotes a short safe prefix of them only.
func TestHostileToolCallNamesAndIDs(t *testing.T) {
	now := time.Now()
	huge := strings.Repeat("\x1b", 4<<20)
	for _, tc := range []struct {
		name     string
		id, tool string
		want     string
	}{
		{"4 MiB id", huge, "echo", "id: "},
		{"4 MiB name", "c1", huge, "tool: "},
		{"id over the bound", strings.Repeat("i", forge.MaxToolCallIDBytes+1), "echo", "over the limit of 256"},
		{"name over the bound", "c1", strings.Repeat("n", forge.MaxToolNameBytes+1), "over the limit of 64"},
		{"name not UTF-8", "c1", "\xff\xfe", "is not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := forge.NewToolCall(forge.RawToolCall{ID: tc.id, Tool: tc.tool, Args: map[string]any{},
				Checksum: strings.Repeat("a", 64), Results: forge.TextResults(forge.NewTokenizable("x")),
				IsComplete: true, CreatedAt: now, CompletedAt: now})
			if !errors.Is(err, forge.ErrInvalidInitialToolCallValue) {
				t.Fatalf("NewToolCall = %v, want ErrInvalidInitialToolCallValue", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || len(msg) > 512 || strings.Contains(msg, "\x1b") {
				t.Errorf("error %q (%d bytes): want it short, safe and to contain %q", msg[:min(len(msg), 200)], len(msg), tc.want)
			}
		})
	}
	at := strings.Repeat("i", forge.MaxToolCallIDBytes)
	if _, err := forge.NewToolCall(forge.RawToolCall{ID: at, Tool: strings.Repeat("n", forge.MaxToolNameBytes), Args: map[string]any{},
		Checksum: strings.Repeat("a", 64), Results: forge.TextResults(forge.NewTokenizable("x")),
		IsComplete: true, CreatedAt: now, CompletedAt: now}); err != nil {
		t.Errorf("an id and a name at their bounds: %v", err)
	}
	if _, err := forge.NewTool(huge, "d", hostileSchema, okHandler, nil); !errors.Is(err, forge.ErrInvalidInitialToolValue) || len(err.Error()) > 512 {
		t.Errorf("NewTool with a 4 MiB name: %d-byte error %v", len(err.Error()), errors.Is(err, forge.ErrInvalidInitialToolValue))
	}
}
