package mcptool

import (
	"encoding/json"
	"errors"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/testdeps"
)

// A real stdio round trip against the example server as a subprocess: its
// tools are listed and called; when the subprocess dies, the next call
// starts a new one; Close ends it.
func TestStdioSubprocess(t *testing.T) {
	bin := testdeps.GoBuild(t, "./examples/mcp")
	var mu sync.Mutex
	var cmds []*exec.Cmd
	ts := newToolset(t, func() mcp.Transport {
		cmd := exec.Command(bin, "-serve")
		mu.Lock()
		cmds = append(cmds, cmd)
		mu.Unlock()
		return &mcp.CommandTransport{Command: cmd}
	}, nil)
	tools, err := ts.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	status := byName(t, tools, "order_status")
	call := func() string {
		t.Helper()
		out, err := status.Execute(t.Context(), json.RawMessage(`{"order":"A-1001"}`), forge.Invocation{}, nil)
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		return out.Text()
	}
	const want = "A-1001: shipped yesterday, arriving Thursday"
	if got := call(); got != want {
		t.Fatalf("call = %q, want %q", got, want)
	}
	// The server rejects an unknown order as a tool error the model reads.
	if _, err := status.Execute(t.Context(), json.RawMessage(`{"order":"Z-9"}`), forge.Invocation{}, nil); !errors.Is(err, ErrToolError) {
		t.Errorf("unknown order: err = %v, want ErrToolError", err)
	}

	// The server dies; once the toolset has noticed, the next call runs on
	// a new subprocess without an error.
	if err := cmds[0].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the session to be dropped", func() bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return ts.cs == nil
	})
	if got := call(); got != want {
		t.Fatalf("call after the restart = %q", got)
	}
	if err := ts.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(cmds) != 2 {
		t.Fatalf("%d subprocesses, want 2", len(cmds))
	}
	if cmds[1].ProcessState == nil || !cmds[1].ProcessState.Exited() {
		t.Errorf("the second subprocess is still running after Close: %v", cmds[1].ProcessState)
	}
}

// waitFor waits for a real subprocess event that has no notification of its
// own, up to a generous limit.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
