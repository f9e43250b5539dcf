package uistream_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/testdeps"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type noArgs struct{}

type pathArgs struct {
	Path string `json:"path"`
}

type queryArgs struct {
	Q string `json:"q"`
}

func tool[A any](t testing.TB, name string, fn func(ctx context.Context, a A) (string, error)) *forge.Tool {
	t.Helper()
	tl, err := forge.NewTypedTool(name, "test tool "+name, func(ctx context.Context, a A, _ forge.Invocation) (forge.Output, error) {
		s, err := fn(ctx, a)
		if err != nil {
			return forge.Output{}, err
		}
		return forge.TextOutput(s), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// scenario is a runner whose scripted model thinks, talks, calls tools
// (a text result, one returning markup, one big enough to be a handle),
// repeats a call the loop guard blocks, asks to run a gated tool, and
// answers once it ran.
func scenario(t testing.TB) *turnrunner.Runner {
	t.Helper()
	tools := []*forge.Tool{
		tool(t, "lookup", func(_ context.Context, a queryArgs) (string, error) { return "found " + a.Q, nil }),
		tool(t, "evil", func(context.Context, noArgs) (string, error) { return "<script>alert(1)</script>", nil }),
		tool(t, "dump", func(context.Context, noArgs) (string, error) { return strings.Repeat("log line\n", 300), nil }),
		tool(t, "rm", func(_ context.Context, a pathArgs) (string, error) { return "removed " + a.Path, nil }),
	}
	model := scripted.New(
		scripted.Step{Thoughts: []string{"Let me ", "look."}, Text: []string{"Checking", " now."}, Calls: []scripted.Call{
			{ID: "c1", Name: "lookup", Args: `{"q":"a"}`},
			{ID: "c2", Name: "evil", Args: `{}`},
			{ID: "c3", Name: "dump", Args: `{}`},
		}},
		scripted.Use(scripted.Call{ID: "c4", Name: "lookup", Args: `{"q":"a"}`}, scripted.Call{ID: "c5", Name: "rm", Args: `{"path":"/tmp/x"}`}),
		scripted.Say("All ", "done."),
	)
	r, err := turnrunner.New(model, &turnrunner.Options{
		Tools:           tools,
		RequireApproval: []string{"rm"},
		ResultHooks:     []turnrunner.ResultHook{spooledartifact.HandleAbove(1000)},
		Loop:            dispatch.LoopPolicy{MaxIdenticalCalls: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// post sends body and returns the response with its whole body read.
func post(t testing.TB, url, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(t, req)
}

func do(t testing.TB, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// serve starts h on a real HTTP server, closed (with h) when the test ends.
func serve(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		if c, ok := h.(interface{ Close() }); ok {
			c.Close()
		}
	})
	return srv.URL
}

// runNode runs a script of testdata with the npm packages of testdeps.
func runNode(t testing.TB, pkg, script string, args ...string) []byte {
	t.Helper()
	node := testdeps.Node(t)
	modules := testdeps.NodeModules(t, pkg)
	cmd := exec.Command(node, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	return out
}

// file writes s into the test's temp dir and returns its path.
func file(t testing.TB, name, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
