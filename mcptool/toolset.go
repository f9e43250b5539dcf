package mcptool

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
)

// Defaults used when the corresponding Options field is zero.
const (
	// DefaultMaxResultBytes caps the text of one result (1 MiB).
	DefaultMaxResultBytes = 1 << 20
	// DefaultMaxMediaBytes caps one image, audio clip or blob (16 MiB).
	DefaultMaxMediaBytes = 16 << 20
)

// Transport makes the transport of one connection. A Toolset calls it for
// every connection it opens, so it must return a new transport each time
// (an exec.Cmd starts only once).
type Transport func() mcp.Transport

// Command runs the server as a subprocess speaking MCP over its standard
// input and output; each connection starts a new process. Its standard
// error is discarded: write your own Transport to keep it.
func Command(name string, args ...string) Transport {
	return func() mcp.Transport {
		return &mcp.CommandTransport{Command: exec.Command(name, args...)}
	}
}

// StreamableHTTP connects to the server's streamable HTTP endpoint; a nil
// client means a client of its own, with http.DefaultTransport's settings.
// Each connection first closes the client's idle connections: after a
// server restart they are dead, and a call sent on one would fail.
func StreamableHTTP(endpoint string, client *http.Client) Transport {
	if client == nil {
		client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return func() mcp.Transport {
		client.CloseIdleConnections()
		return &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client}
	}
}

// Options configure a [Toolset]; nil means all defaults.
type Options struct {
	// Prefix is put before every tool name, e.g. "github_"; at most 32
	// characters of [a-zA-Z0-9_-].
	Prefix string
	// Filter keeps the server tools, by their name on the server, for
	// which it returns true; nil keeps them all.
	Filter func(name string) bool
	// TrustTier is the tier of the media results: media.ThirdPartyPrivate
	// (the default, for "") or media.ThirdPartyPublic. An MCP server is
	// never first-party.
	TrustTier media.TrustTier
	// MaxResultBytes caps the text of one result; 0 means
	// DefaultMaxResultBytes.
	MaxResultBytes int
	// MaxMediaBytes caps one media item; a larger one is replaced by a
	// note. 0 means DefaultMaxMediaBytes.
	MaxMediaBytes int
	// Timeout limits every call of the toolset's tools (forge's
	// ToolOptions.Timeout); 0 means none beyond the caller's context.
	Timeout time.Duration
	// Client is how the toolset introduces itself to the server; nil
	// means {Name: "adk-mcptool", Version: "1"}.
	Client *mcp.Implementation
	// Logger receives diagnostics (tools left out, reconnections); the
	// zero value is silent.
	Logger zerolog.Logger
}

// Toolset is the tools of one MCP server. Create it with [New]; it
// connects on first use. Safe for concurrent use; Close it to end the
// session and its subprocess.
type Toolset struct {
	newTransport Transport
	opts         Options
	client       *mcp.Client
	// changes counts the server's list-changed notifications and the
	// reconnections: a listing made at another count is stale. Atomic: the
	// SDK delivers notifications on its own goroutine, which must not wait
	// for mu while a listing holds it.
	changes atomic.Uint64

	mu       sync.Mutex
	cs       *mcp.ClientSession
	closed   bool
	tools    []*forge.Tool
	listedAt uint64 // changes when tools were listed
	watchers sync.WaitGroup
}

// New returns a Toolset that connects through newTransport when first
// used. Bad options are [ErrInvalidOptions] naming every field at fault.
func New(newTransport Transport, opts *Options) (*Toolset, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	var p problems
	if newTransport == nil {
		p.add("transport: required")
	}
	if len(o.Prefix) > 32 || !validName(o.Prefix, true) {
		p.add("prefix: %q must match ^[a-zA-Z0-9_-]{0,32}$", o.Prefix)
	}
	switch o.TrustTier {
	case "":
		o.TrustTier = media.ThirdPartyPrivate
	case media.ThirdPartyPrivate, media.ThirdPartyPublic:
	default:
		p.add("trustTier: %q is not third-party-private or third-party-public", o.TrustTier)
	}
	if o.MaxResultBytes < 0 {
		p.add("maxResultBytes: must be >= 0")
	} else if o.MaxResultBytes == 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.MaxMediaBytes < 0 {
		p.add("maxMediaBytes: must be >= 0")
	} else if o.MaxMediaBytes == 0 {
		o.MaxMediaBytes = DefaultMaxMediaBytes
	}
	if o.Timeout < 0 {
		p.add("timeout: must be >= 0")
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	impl := o.Client
	if impl == nil {
		impl = &mcp.Implementation{Name: "adk-mcptool", Version: "1"}
	}
	ts := &Toolset{newTransport: newTransport, opts: o}
	ts.client = mcp.NewClient(impl, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			ts.changes.Add(1)
		},
	})
	return ts, nil
}

// Tools returns the server's tools as forge tools, connecting first when
// needed. The list is cached until the server says it changed or the
// toolset reconnects; call Tools before each turn to follow such changes.
// A failure to connect or to list is [ErrConnect]; after Close, [ErrClosed].
func (ts *Toolset) Tools(ctx context.Context) ([]*forge.Tool, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	cs, err := ts.sessionLocked(ctx)
	if err != nil {
		return nil, err
	}
	if ts.tools != nil && ts.listedAt == ts.changes.Load() {
		return append([]*forge.Tool(nil), ts.tools...), nil
	}
	at := ts.changes.Load()
	var listed []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, ErrConnect.With(err, "mcptool: list tools")
		}
		listed = append(listed, t)
	}
	ts.tools = ts.build(listed)
	ts.listedAt = at
	return append([]*forge.Tool(nil), ts.tools...), nil
}

// Close ends the session (and its subprocess, which is asked to exit and,
// failing that, signalled) and returns once it has ended. Later calls of
// the toolset's tools fail with [ErrClosed]. Close is idempotent.
func (ts *Toolset) Close() error {
	ts.mu.Lock()
	cs := ts.cs
	ts.cs, ts.closed = nil, true
	ts.mu.Unlock()
	var err error
	if cs != nil {
		err = cs.Close()
	}
	ts.watchers.Wait()
	return err
}

// sessionLocked returns the live session, connecting when there is none;
// ts.mu is held.
func (ts *Toolset) sessionLocked(ctx context.Context) (*mcp.ClientSession, error) {
	if ts.closed {
		return nil, ErrClosed.With(nil, "mcptool: the toolset is closed")
	}
	if ts.cs != nil {
		return ts.cs, nil
	}
	cs, err := ts.client.Connect(ctx, ts.newTransport(), nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ErrConnect.With(err, "mcptool: connect")
	}
	ts.cs = cs
	ts.changes.Add(1) // a new session may offer other tools
	// The watcher notices a session that ends on its own (the subprocess
	// exited, the server closed it), so that the next call reconnects; it
	// returns when the session ends, at the latest in Close, which waits
	// for it.
	ts.watchers.Go(func() {
		err := cs.Wait()
		_ = cs.Close() // releases what the session still holds (its subscription)
		if ts.forget(cs) {
			ts.opts.Logger.Info().Err(err).Msg("mcptool: the MCP session ended; the next call reconnects")
		}
	})
	return cs, nil
}

// session returns the live session, connecting when there is none.
func (ts *Toolset) session(ctx context.Context) (*mcp.ClientSession, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.sessionLocked(ctx)
}

// forget drops cs when it is still the current session; it reports whether
// it was.
func (ts *Toolset) forget(cs *mcp.ClientSession) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.cs != cs {
		return false
	}
	ts.cs = nil
	return true
}

// call runs the server tool name with args. A call the server refused for
// want of the session, or that never reached it, is sent once more on a
// new session; a connection lost otherwise is ErrConnectionLost, the call
// possibly run.
func (ts *Toolset) call(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	for attempt := 0; ; attempt++ {
		cs, err := ts.session(ctx)
		if err != nil {
			return nil, err
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		switch {
		case err == nil:
			return res, nil
		case ctx.Err() != nil:
			return nil, err
		case errors.Is(err, mcp.ErrSessionMissing) || undelivered(err):
			ts.drop(cs)
			if attempt == 0 {
				ts.opts.Logger.Info().Err(err).Str("tool", name).Msg("mcptool: the call did not reach a live session; calling again on a new one")
				continue
			}
			return nil, ErrConnectionLost.With(err, "mcptool: the call did not reach a live session twice")
		case errors.Is(err, mcp.ErrConnectionClosed):
			ts.drop(cs)
			return nil, ErrConnectionLost.With(err, "mcptool: the connection to the MCP server was lost during the call, "+
				"which may or may not have run; the next call reconnects")
		default:
			return nil, ErrCallFailed.With(err, "mcptool: calling %q", name)
		}
	}
}

// codeRejected is the JSON-RPC code the SDK gives a request its transport
// could not deliver (an HTTP request that failed before any response): the
// server never saw it.
const codeRejected = -32005

// undelivered reports whether err says the request never reached the server.
func undelivered(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == codeRejected
}

// drop closes cs and forgets it, so that the next call reconnects.
func (ts *Toolset) drop(cs *mcp.ClientSession) {
	ts.forget(cs)
	_ = cs.Close()
}
