package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
	"github.com/ebbforge/adk/spooledartifact"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

// mustTool returns a function that fails t on a construction error.
func mustTool(t *testing.T) func(*forge.Tool, error) *forge.Tool {
	return func(tool *forge.Tool, err error) *forge.Tool {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
}

// testRegistry has a tool of every output kind, a failing one and a
// hidden one.
func testRegistry(t *testing.T) *forge.Registry {
	t.Helper()
	untyped := func(name string, h func(context.Context, map[string]any, forge.Invocation) (forge.Output, error)) *forge.Tool {
		return mustTool(t)(forge.NewTool(name, "The "+name+" tool.", json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`), h, nil))
	}
	store := spooledartifact.NewMemoryStore()
	reg, err := forge.NewRegistry(
		mustTool(t)(forge.NewTypedTool("weather", "Weather of a city.", func(_ context.Context, a weatherArgs, _ forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("sunny in " + a.City + "\x1b[2J"), nil
		}, nil)),
		untyped("fail", func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			return forge.Output{}, errors.New("the backend is down")
		}),
		untyped("binary", func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			return forge.BytesOutput([]byte{0xff, 0x00, 0x01}), nil
		}),
		untyped("stream", func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			return forge.ReaderOutput(strings.NewReader(strings.Repeat("line\n", 10))), nil
		}),
		untyped("chart", func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			m, err := media.ToolGenerated(media.Raw{Kind: media.KindImage, MIMEType: "image/png", Filename: "c.png", Reader: media.NewMemoryReader(png)})
			return forge.MediaOutput(m), err
		}),
		untyped("notes", func(ctx context.Context, _ map[string]any, _ forge.Invocation) (forge.Output, error) {
			a, err := spooledartifact.SpoolString(ctx, store, "notes", nil, "alpha\nbeta\n")
			return forge.ArtifactOutput(a), err
		}),
		untyped("secret", func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("hidden"), nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	reg.Hide("secret")
	return reg
}

// connect serves s to a new client over in-memory transports.
func connect(t *testing.T, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// The visible tools are served with the schema documents forge publishes.
func TestListTools(t *testing.T) {
	reg := testRegistry(t)
	s, err := New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		got[tool.Name] = string(b)
	}
	want := map[string]string{}
	for _, tool := range reg.Visible() {
		want[tool.Name()] = canonicalJSON(t, tool.Schema())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("served schemas (-want +got):\n%s", diff)
	}
}

// canonicalJSON re-encodes doc as a decoded map is: keys sorted.
func canonicalJSON(t *testing.T, doc []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCallTool(t *testing.T) {
	s, err := New(testRegistry(t), &Options{MaxResultBytes: 20})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	tests := []struct {
		tool, args string
		isError    bool
		want       string // the content, rendered by render
	}{
		{"weather", `{"city":"Oslo"}`, false, "text:sunny in Oslo␛[2J"},
		{"weather", `{"city":"Oslo","extra":1}`, true, "text:E_INVALID_TOOL_ARGS"},
		{"weather", `{}`, true, "text:E_INVALID_TOOL_ARGS"},
		{"fail", `{}`, true, "text:E_TOOL_DOWNSTREAM_ER\n[truncated: 71 bytes, only the first 20 are shown]"},
		{"binary", `{}`, false, "blob:application/octet-stream:3"},
		{"stream", `{}`, false, "text:line\nline\nline\nline\n\n[truncated: only the first 20 bytes are shown]"},
		{"chart", `{}`, false, "image:image/png:16"},
		{"notes", `{}`, false, "text:alpha\nbeta\n"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, tt.isError)
			}
			if got := render(res.Content); !strings.HasPrefix(got, tt.want) {
				t.Errorf("content = %q, want it to start with %q", got, tt.want)
			}
			if tt.isError && tt.args != `{}` || tt.tool == "weather" && tt.isError {
				return // invalid arguments have no checksum
			}
			want, err := canonical.ChecksumJSON(tt.tool, []byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Meta["checksum"]; got != want {
				t.Errorf("checksum = %v, want %s", got, want)
			}
		})
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "secret"}); err == nil {
		t.Error("a hidden tool was served")
	}
}

func render(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, "text:"+c.Text)
		case *mcp.ImageContent:
			parts = append(parts, "image:"+c.MIMEType+":"+strconv.Itoa(len(c.Data)))
		case *mcp.EmbeddedResource:
			parts = append(parts, "blob:"+c.Resource.MIMEType+":"+strconv.Itoa(len(c.Resource.Blob)))
		default:
			parts = append(parts, "other")
		}
	}
	return strings.Join(parts, "|")
}

// Sync follows the registry and clients hear that the list changed.
func TestSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := testRegistry(t)
		s, err := New(reg, nil)
		if err != nil {
			t.Fatal(err)
		}
		changed := make(chan struct{}, 1)
		cs := connect(t, s, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
		reg.Unhide("secret")
		reg.Hide("fail")
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // the SDK debounces the notification (fake time)
		synctest.Wait()
		select {
		case <-changed:
		default:
			t.Error("no list-changed notification")
		}
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if diff := cmp.Diff([]string{"binary", "chart", "notes", "secret", "stream", "weather"}, names); diff != "" {
			t.Errorf("tools after Sync (-want +got):\n%s", diff)
		}
		_ = cs.Close()
	})
}

func TestNewRefusesTools(t *testing.T) {
	arrayType := mustTool(t)(forge.NewTool("odd", "Root type as a list.", json.RawMessage(`{"type":["object"]}`),
		func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
			return forge.TextOutput(""), nil
		}, nil))
	reg, err := forge.NewRegistry(arrayType)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(reg, nil); !errors.Is(err, ErrInvalidTool) || !strings.Contains(err.Error(), `"odd"`) {
		t.Errorf("err = %v, want ErrInvalidTool naming the tool", err)
	}
	if _, err := New(nil, &Options{MaxResultBytes: -1}); !errors.Is(err, forge.ErrInvalidInitialToolValue) {
		t.Errorf("negative limit: err = %v", err)
	}
}
