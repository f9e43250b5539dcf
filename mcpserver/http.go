package mcpserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP handler; nil means defaults.
type HTTPOptions struct {
	// AllowedHosts are Host header values accepted besides loopback
	// names ("localhost", "127.0.0.1", "::1", with any port): list the
	// names clients use when the server listens beyond loopback. An entry
	// without a port matches any port.
	AllowedHosts []string
	// AllowedOrigins are browser origins ("https://app.example.com")
	// accepted besides loopback ones. Requests without an Origin (not from
	// a browser) are not checked.
	AllowedOrigins []string
	// Stateless serves every request on a temporary session, for servers
	// behind a load balancer; see mcp.StreamableHTTPOptions.
	Stateless bool
}

// Listen announces on the TCP address addr; an address naming no host
// (":8080") is bound to 127.0.0.1, never to every interface.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// Handler returns the streamable HTTP handler serving s, guarded against
// DNS rebinding: a request whose Host or Origin is neither loopback nor
// allowed by opts is refused with 403.
func (s *Server) Handler(opts *HTTPOptions) http.Handler {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		Stateless: o.Stateless,
		// The guard below checks every request's Host, whatever address
		// it arrived on, which covers the SDK's loopback-only check.
		DisableLocalhostProtection: true,
	})
	return &guard{next: h, hosts: o.AllowedHosts, origins: o.AllowedOrigins}
}

// ServeHTTP serves s on ln (see [Listen]) until ctx ends, then closes the
// listener, the connections and the sessions, and returns nil; any other
// failure of the HTTP server is returned.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	hs := &http.Server{Handler: s.Handler(opts)}
	stop := context.AfterFunc(ctx, func() { _ = hs.Close() })
	defer stop()
	err := hs.Serve(ln)
	_ = hs.Close()
	for ss := range s.srv.Sessions() {
		_ = ss.Close()
	}
	if errors.Is(err, http.ErrServerClosed) && ctx.Err() != nil {
		return nil
	}
	return err
}

// guard refuses requests whose Host or Origin is not allowed.
type guard struct {
	next           http.Handler
	hosts, origins []string
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		http.Error(w, "Forbidden: Host not allowed", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin) {
		http.Error(w, "Forbidden: Origin not allowed", http.StatusForbidden)
		return
	}
	g.next.ServeHTTP(w, r)
}

func (g *guard) hostAllowed(host string) bool {
	name := hostname(host)
	if isLoopbackName(name) {
		return true
	}
	for _, a := range g.hosts {
		if strings.EqualFold(a, host) || !hasPort(a) && strings.EqualFold(hostname(a), name) {
			return true
		}
	}
	return false
}

func (g *guard) originAllowed(origin string) bool {
	if slices.ContainsFunc(g.origins, func(a string) bool { return strings.EqualFold(strings.TrimSuffix(a, "/"), origin) }) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	return isLoopbackName(u.Hostname())
}

// hostname is the name of a Host header value, without port or brackets.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// hasPort reports whether the host value names a port.
func hasPort(host string) bool {
	_, _, err := net.SplitHostPort(host)
	return err == nil
}

// isLoopbackName reports whether name is "localhost" or a loopback IP.
func isLoopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}
