package mcpserver

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/mcptool"
)

// The guard refuses a Host or Origin that is neither loopback nor allowed,
// before the MCP handler sees the request.
func TestGuard(t *testing.T) {
	s, err := New(testRegistry(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &HTTPOptions{AllowedHosts: []string{"mcp.internal", "api.example.com:8443"}, AllowedOrigins: []string{"https://app.example.com"}}
	tests := []struct {
		name, host, origin string
		opts               *HTTPOptions
		forbidden          bool
	}{
		{"loopback host", "127.0.0.1:8080", "", nil, false},
		{"localhost", "localhost:8080", "", nil, false},
		{"ipv6 loopback", "[::1]:8080", "", nil, false},
		{"rebound name", "attacker.example:8080", "", nil, true},
		{"rebound name without port", "attacker.example", "", nil, true},
		{"loopback origin", "localhost:8080", "http://localhost:3000", nil, false},
		{"foreign origin", "localhost:8080", "https://attacker.example", nil, true},
		{"null origin", "localhost:8080", "null", nil, true},
		{"allowed host any port", "mcp.internal:9000", "", opts, false},
		{"allowed host and port", "api.example.com:8443", "", opts, false},
		{"allowed host, other port", "api.example.com:9999", "", opts, true},
		{"allowed origin", "localhost:8080", "https://app.example.com", opts, false},
		{"other origin", "localhost:8080", "https://evil.example.com", opts, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`))
			req.Host = tt.host
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			rec := httptest.NewRecorder()
			s.Handler(tt.opts).ServeHTTP(rec, req)
			if got := rec.Code == http.StatusForbidden; got != tt.forbidden {
				t.Errorf("status %d (%s), want forbidden %v", rec.Code, strings.TrimSpace(rec.Body.String()), tt.forbidden)
			}
		})
	}
}

func TestListenLoopback(t *testing.T) {
	ln, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		t.Errorf("Listen(\":0\") bound %s, want loopback", ip)
	}
}

// serve runs s on ln until the returned stop is called.
func serve(t *testing.T, s *Server, ln net.Listener) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := s.ServeHTTP(ctx, ln, nil); err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	})
	return func() { cancel(); wg.Wait() }
}

// startHTTP serves testRegistry on a loopback port until stop is called.
func startHTTP(t *testing.T) (addr string, stop func()) {
	t.Helper()
	s, err := New(testRegistry(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln.Addr().String(), serve(t, s, ln)
}

// A real round trip over streamable HTTP, a DNS rebinding attempt against
// the same listener, and a client that outlives a server restart.
func TestHTTPRoundTripAndRestart(t *testing.T) {
	addr, stop := startHTTP(t)
	defer func() { stop() }()

	// The page of a rebound name reaches the port, and is refused.
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "attacker.example:" + strings.Split(addr, ":")[1]
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("rebound request: status %d, want 403", resp.StatusCode)
	}

	var conns atomic.Int32
	tr := mcptool.StreamableHTTP("http://"+addr+"/", nil)
	ts, err := mcptool.New(func() mcp.Transport { conns.Add(1); return tr() }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	tools, err := ts.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var weather *forge.Tool
	for _, tool := range tools {
		if tool.Name() == "weather" {
			weather = tool
		}
	}
	if weather == nil {
		t.Fatalf("no weather tool among %d", len(tools))
	}
	call := func() string {
		t.Helper()
		out, err := weather.Execute(t.Context(), json.RawMessage(`{"city":"Oslo"}`), forge.Invocation{}, nil)
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		return out.Text()
	}
	if got := call(); got != "sunny in Oslo␛[2J" {
		t.Errorf("first call = %q", got)
	}

	// Restart: a new server process would know nothing of the session.
	stop()
	s2, err := New(testRegistry(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	stop = serve(t, s2, ln2)
	if got := call(); got != "sunny in Oslo␛[2J" {
		t.Errorf("call after the restart = %q", got)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (one per server)", n)
	}
}

// FuzzGuard: without allow lists, the guard admits a request only when its
// Host names a loopback address and its Origin, if any, is a loopback one.
func FuzzGuard(f *testing.F) {
	for _, s := range [][2]string{
		{"127.0.0.1:8080", ""}, {"localhost", "http://localhost:3000"}, {"[::1]:1", "https://[::1]"},
		{"attacker.example", ""}, {"127.0.0.1.attacker.example:80", ""}, {"localhost:80", "null"},
		{"[::1", "http://127.0.0.1@attacker.example"}, {"LOCALHOST", "HTTP://LOCALHOST"},
	} {
		f.Add(s[0], s[1])
	}
	g := &guard{}
	f.Fuzz(func(t *testing.T, host, origin string) {
		admitted := g.hostAllowed(host) && (origin == "" || g.originAllowed(origin))
		if !admitted {
			return
		}
		if !isLoopbackName(hostname(host)) {
			t.Fatalf("admitted Host %q", host)
		}
		if origin != "" {
			u, err := url.Parse(origin)
			if err != nil || !isLoopbackName(u.Hostname()) {
				t.Fatalf("admitted Origin %q", origin)
			}
		}
	})
}
