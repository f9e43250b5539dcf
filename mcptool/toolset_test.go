package mcptool

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// png is the smallest PNG header media.Sniff recognises.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func text(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }

// testServer is an MCP server with one tool of every kind the toolset
// converts.
func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	add := func(name, desc, schema string, h func(args json.RawMessage) *mcp.CallToolResult) {
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return h(req.Params.Arguments), nil
			})
	}
	// An open schema: the server accepts keys it does not list.
	add("echo", "Echoes its arguments.", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		func(args json.RawMessage) *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: text(string(args))}
		})
	add("fail", "Always fails.", `{"type":"object"}`,
		func(json.RawMessage) *mcp.CallToolResult {
			return &mcp.CallToolResult{IsError: true, Content: text("no such city")}
		})
	add("picture", "Draws.", `{"type":"object"}`, func(json.RawMessage) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a chart"}, &mcp.ImageContent{Data: png, MIMEType: "image/png"}}}
	})
	add("report", "Counts.", `{"type":"object"}`, func(json.RawMessage) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: text("one item"), StructuredContent: map[string]any{"n": 1}}
	})
	add("mirrored", "Counts, mirrored.", `{"type":"object"}`, func(json.RawMessage) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: text(`{ "n": 1 }`), StructuredContent: map[string]any{"n": 1}}
	})
	add("big", "Talks a lot.", `{"type":"object"}`, func(json.RawMessage) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: text(strings.Repeat("é", 100))}
	})
	add("files.read/v2", "", `{"type":"object"}`, func(json.RawMessage) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ResourceLink{Name: "notes", URI: "file:///notes.txt"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", Text: "alpha"}},
		}}
	})
	return s
}

// inMemory connects every new transport to s over an in-memory pipe and
// counts the connections.
func inMemory(t *testing.T, s *mcp.Server, count *atomic.Int32) Transport {
	return func() mcp.Transport {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			t.Errorf("server connect: %v", err)
		}
		if count != nil {
			count.Add(1)
		}
		return ct
	}
}

func newToolset(t *testing.T, tr Transport, opts *Options) *Toolset {
	t.Helper()
	ts, err := New(tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.Close() })
	return ts
}

func byName(t *testing.T, tools []*forge.Tool, name string) *forge.Tool {
	t.Helper()
	for _, tool := range tools {
		if tool.Name() == name {
			return tool
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

func TestTools(t *testing.T) {
	mapped := toolName("", "files.read/v2")
	tests := []struct {
		name string
		opts *Options
		want []string
	}{
		{"all", nil, []string{"echo", "fail", "picture", "report", "mirrored", "big", mapped}},
		{"prefixed", &Options{Prefix: "t_"}, []string{"t_echo", "t_fail", "t_picture", "t_report", "t_mirrored", "t_big", toolName("t_", "files.read/v2")}},
		{"filtered by server name", &Options{Prefix: "t_", Filter: func(n string) bool { return n == "echo" || n == "files.read/v2" }},
			[]string{"t_echo", toolName("t_", "files.read/v2")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newToolset(t, inMemory(t, testServer(), nil), tt.opts)
			tools, err := ts.Tools(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range tools {
				got = append(got, tool.Name())
			}
			// The SDK lists tools sorted by name.
			if diff := cmp.Diff(sorted(tt.want), got); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
	if !strings.HasPrefix(mapped, "files_read_v2_") || len(mapped) != len("files_read_v2_")+8 {
		t.Errorf("mapped name = %q", mapped)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// A tool keeps the server's description, schema (still open) and name.
func TestToolShape(t *testing.T) {
	ts := newToolset(t, inMemory(t, testServer(), nil), nil)
	tools, err := ts.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	echo := byName(t, tools, "echo")
	if echo.Description() != "Echoes its arguments." || echo.Options().Trusted {
		t.Errorf("echo: description %q, trusted %v", echo.Description(), echo.Options().Trusted)
	}
	var schema map[string]any
	if err := json.Unmarshal(echo.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	if _, closed := schema["additionalProperties"]; closed {
		t.Errorf("schema was closed: %s", echo.Schema())
	}
	mapped := byName(t, tools, toolName("", "files.read/v2"))
	if got := mapped.Options().Meta[MetaServerName]; got != "files.read/v2" {
		t.Errorf("meta server name = %v", got)
	}
	if mapped.Description() != "The MCP server's tool files.read/v2." {
		t.Errorf("fallback description = %q", mapped.Description())
	}
}

func TestCalls(t *testing.T) {
	ts := newToolset(t, inMemory(t, testServer(), nil), &Options{MaxResultBytes: 50, TrustTier: media.ThirdPartyPublic})
	tools, err := ts.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, args string
		wantText   string
		wantErr    error
		wantMedia  []string // kind:mime of each media item
	}{
		{tool: "echo", args: `{"text":"hi","extra":1}`, wantText: `{"extra":1,"text":"hi"}`},
		{tool: "echo", args: `{"extra":1}`, wantErr: forge.ErrInvalidToolArgs},
		{tool: "fail", args: `{}`, wantErr: ErrToolError, wantText: "no such city"},
		{tool: "report", args: `{}`, wantText: "one item\n{\"n\":1}"},
		{tool: "mirrored", args: `{}`, wantText: `{ "n": 1 }`},
		{tool: "big", args: `{}`, wantText: strings.Repeat("é", 25) + "\n[truncated: the MCP server returned 200 bytes, the first 50 are shown]"},
		{tool: toolName("", "files.read/v2"), args: `{}`, wantText: "[resource link: notes file:///notes.txt]\nalpha"},
		{tool: "picture", args: `{}`, wantMedia: []string{"image:image/png", "document:text/plain"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			out, err := byName(t, tools, tt.tool).Execute(t.Context(), json.RawMessage(tt.args), forge.Invocation{}, nil)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantText) {
					t.Fatalf("err = %v, want %v with %q", err, tt.wantErr, tt.wantText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantMedia == nil {
				if out.Kind() != forge.OutputText || out.Text() != tt.wantText {
					t.Errorf("output %d %q, want text %q", out.Kind(), out.Text(), tt.wantText)
				}
				return
			}
			var got []string
			for _, m := range out.Media() {
				got = append(got, string(m.Kind())+":"+m.MIMEType())
				if m.TrustTier() != media.ThirdPartyPublic {
					t.Errorf("%s: tier %s", m.Filename(), m.TrustTier())
				}
			}
			if diff := cmp.Diff(tt.wantMedia, got); diff != "" {
				t.Errorf("media (-want +got):\n%s", diff)
			}
		})
	}
}

// The toolset lists again after the server says its list changed.
func TestListChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := testServer()
		ts := newToolset(t, inMemory(t, s, nil), nil)
		before, err := ts.Tools(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		s.AddTool(&mcp.Tool{Name: "late", Description: "Added later.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: text("late")}, nil
			})
		time.Sleep(time.Second) // the server's notification is debounced (fake time)
		synctest.Wait()
		after, err := ts.Tools(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before)+1 {
			t.Fatalf("tools after the change: %d, want %d", len(after), len(before)+1)
		}
		byName(t, after, "late")
		if err := ts.Close(); err != nil {
			t.Error(err)
		}
	})
}

// A session the server ends is re-established on the next call, and the
// tools listed again.
func TestReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := testServer()
		var conns atomic.Int32
		ts := newToolset(t, inMemory(t, s, &conns), nil)
		tools, err := ts.Tools(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		echo := byName(t, tools, "echo")
		// Let the client's subscription reach the server first: a server
		// session closed while it arrives never ends (an SDK race).
		synctest.Wait()
		for ss := range s.Sessions() {
			_ = ss.Close() // the server drops the client
		}
		synctest.Wait()
		out, err := echo.Execute(t.Context(), json.RawMessage(`{"text":"again"}`), forge.Invocation{}, nil)
		if err != nil {
			t.Fatalf("call after the server dropped the session: %v", err)
		}
		if out.Text() != `{"text":"again"}` || conns.Load() != 2 {
			t.Errorf("output %q after %d connections, want a second connection", out.Text(), conns.Load())
		}
		if err := ts.Close(); err != nil {
			t.Error(err)
		}
		if _, err := echo.Execute(t.Context(), json.RawMessage(`{"text":"x"}`), forge.Invocation{}, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("call after Close: %v, want ErrClosed", err)
		}
		if _, err := ts.Tools(t.Context()); !errors.Is(err, ErrClosed) {
			t.Errorf("Tools after Close: %v, want ErrClosed", err)
		}
	})
}

func TestNewOptions(t *testing.T) {
	tr := inMemory(t, testServer(), nil)
	tests := []struct {
		name string
		tr   Transport
		opts *Options
		want []string // words the error must hold; nil for success
	}{
		{"defaults", tr, nil, nil},
		{"no transport", nil, nil, []string{"transport: required"}},
		{"bad prefix", tr, &Options{Prefix: "a.b"}, []string{"prefix"}},
		{"first-party media", tr, &Options{TrustTier: media.FirstParty}, []string{"trustTier"}},
		{"every fault", nil, &Options{MaxResultBytes: -1, MaxMediaBytes: -1, Timeout: -1}, []string{"transport", "maxResultBytes", "maxMediaBytes", "timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := New(tt.tr, tt.opts)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				_ = ts.Close()
				return
			}
			if !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("err = %v, want ErrInvalidOptions", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct{ prefix, name, want string }{
		{"", "echo", "echo"},
		{"p_", "echo", "p_echo"},
		{"", "a.b", "a_b_" + hash8("a.b")},
		{"", "", "_" + hash8("")},
		{"", "héllo", "h_llo_" + hash8("héllo")},
		{"", long, long[:55] + "_" + hash8(long)},
		{"", strings.Repeat("y", 64), strings.Repeat("y", 64)},
	}
	for _, tt := range tests {
		if got := toolName(tt.prefix, tt.name); got != tt.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", tt.prefix, tt.name, got, tt.want)
		}
	}
}

func FuzzToolName(f *testing.F) {
	for _, s := range []string{"echo", "a.b", "", "héllo", strings.Repeat("z", 80), "a b\x00c"} {
		f.Add("p_", s)
	}
	f.Fuzz(func(t *testing.T, prefix, name string) {
		if len(prefix) > 32 || !validName(prefix, true) {
			return
		}
		got := toolName(prefix, name)
		if len(got) == 0 || len(got) > 64 || !validName(got, false) {
			t.Fatalf("toolName(%q, %q) = %q: not a name providers accept", prefix, name, got)
		}
		if got != toolName(prefix, name) {
			t.Fatal("not deterministic")
		}
	})
}

func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// A tool whose schema forge cannot use is left out with a warning; the
// others are kept.
func TestUnusableSchema(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: text("ok")}, nil
	}
	s.AddTool(&mcp.Tool{Name: "good", Description: "Fine.", InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	s.AddTool(&mcp.Tool{Name: "remote", Description: "Refers outside.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`)}, h)
	var logs bytes.Buffer
	ts := newToolset(t, inMemory(t, s, nil), &Options{Logger: zerolog.New(&logs)})
	tools, err := ts.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name() != "good" {
		t.Errorf("tools = %v, want only good", tools)
	}
	if !strings.Contains(logs.String(), `"tool":"remote"`) || !strings.Contains(logs.String(), "left out") {
		t.Errorf("no warning naming the tool left out:\n%s", logs.String())
	}
}
