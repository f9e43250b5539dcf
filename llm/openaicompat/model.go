package openaicompat

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/sse"
	"github.com/ebbforge/adk/llm/internal/wire"
	"github.com/ebbforge/adk/media"
)

// Config configures a [Model]. BaseURL and Model are required; the zero
// value of every other field is a sensible default.
type Config struct {
	// BaseURL is the API root the server documents, e.g.
	// "https://api.openai.com/v1" or "http://localhost:11434/v1";
	// "/chat/completions" is appended.
	BaseURL string
	// APIKey is sent as a bearer token when set. It never appears in
	// errors or logs.
	APIKey string
	// Model is the model name.
	Model string
	// Headers are added to every request (an OpenRouter referer, say).
	Headers http.Header
	// Profile is the server's dialect; nil picks one from BaseURL
	// ([ProfileFor]).
	Profile *Profile
	// HTTPClient sends the requests; nil means a client without timeouts
	// of its own (the two below apply either way).
	HTTPClient *http.Client
	// NoStream asks for whole responses instead of a stream.
	NoStream bool
	// ToolChoice is "auto", "none", "required" or a tool's name; "" sends
	// nothing (the server's default: auto when tools are offered).
	ToolChoice string
	// ParallelToolCalls, when set, is sent as parallel_tool_calls.
	ParallelToolCalls *bool
	// RequestTimeout bounds the wait for the response headers; 0 means
	// DefaultRequestTimeout, negative means none.
	RequestTimeout time.Duration
	// IdleTimeout bounds the wait for more of a streamed body; 0 means
	// DefaultIdleTimeout, negative means none.
	IdleTimeout time.Duration
	// Renderer renders the system prompt (with the request's standing
	// instructions), user messages and tool results; see [llm.Renderer].
	// Set its Key to keep envelope nonces stable across restarts. A nil
	// Accepts means images, which every compatible server with vision
	// takes inline; other media follow its Unsupported policy (refused by
	// default).
	Renderer llm.Renderer
}

// Default timeouts: generous, because a whole (non-streamed) response
// arrives only once generated, and some reasoning models stream nothing
// while they think.
const (
	DefaultRequestTimeout = 10 * time.Minute
	DefaultIdleTimeout    = 5 * time.Minute
)

// Model is a model served over Chat Completions. It is safe for
// concurrent use.
type Model struct {
	cfg     Config
	profile Profile
	url     string
	client  *http.Client
	render  llm.Renderer
	ids     atomic.Uint64
}

// ErrConfig is returned by [New] for a Config without BaseURL or Model.
var ErrConfig = errors.New("openaicompat: BaseURL and Model are required")

// New returns a model for cfg; [ErrConfig] when BaseURL or Model is missing.
func New(cfg Config) (*Model, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, ErrConfig
	}
	m := &Model{cfg: cfg, url: strings.TrimSuffix(cfg.BaseURL, "/") + "/chat/completions", client: cfg.HTTPClient,
		render: cfg.Renderer}
	if m.render.Accepts == nil {
		m.render.Accepts = []media.Kind{media.KindImage}
	}
	if cfg.Profile != nil {
		m.profile = *cfg.Profile
	} else {
		m.profile = ProfileFor(cfg.BaseURL)
	}
	if m.client == nil {
		m.client = http.DefaultClient
	}
	return m, nil
}

// Profile is the profile in use.
func (m *Model) Profile() Profile { return m.profile }

// Stream sends req and yields the response's parts as they arrive. The
// sequence is single-use; breaking out of it closes the connection.
// Failures are yielded once, typed (see the package doc).
func (m *Model) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
	return wire.Seq(func(yield func(llm.Part, error) bool) error { return m.stream(ctx, req, yield) })
}

func (m *Model) stream(ctx context.Context, req *llm.Request, yield func(llm.Part, error) bool) error {
	stream := !m.cfg.NoStream
	body, err := m.encode(ctx, req, stream)
	if err != nil {
		return err
	}
	h := wire.Header(m.cfg.Headers, stream)
	if m.cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	c := &response{m: m, Emitter: wire.Emitter[llm.Part]{Yield: yield}, d: decoder{newID: m.newID}}
	err = wire.Post(ctx, wire.Request{Client: m.client, URL: m.url, Header: h, Body: body,
		RequestTimeout: wire.Timeout(m.cfg.RequestTimeout, DefaultRequestTimeout),
		IdleTimeout:    wire.Timeout(m.cfg.IdleTimeout, DefaultIdleTimeout)}, c)
	switch {
	case c.Stopped:
		return nil
	case err != nil:
		return wire.Failure(ctx, err, "openaicompat", sentinels, m.cfg.APIKey)
	case c.whole:
		return nil
	case !c.d.done && c.d.finish == "":
		return incompleteErr()
	}
	c.d.end()
	c.Emit(&c.d.out)
	return nil
}

// response is one response being decoded: the handler of [wire.Post].
type response struct {
	m *Model
	d decoder
	wire.Emitter[llm.Part]
	whole bool // the answer was a whole completion, already yielded
}

func (c *response) Status(resp *http.Response, body []byte) error {
	return wire.Reported{Err: c.m.statusErr(resp, body)}
}

// Whole takes a whole completion, or a JSON error answering a stream
// request.
func (c *response) Whole(resp *http.Response, body []byte) error {
	eb, err := c.d.chunk(string(body))
	if err != nil {
		return wire.Reported{Err: protocolErr("response body: not JSON")}
	}
	if eb != nil {
		return wire.Reported{Err: c.m.bodyErr(resp, eb)}
	}
	c.whole = true
	c.d.end()
	c.Emit(&c.d.out)
	return nil
}

func (c *response) Event(resp *http.Response, ev sse.Event) (bool, error) {
	eb, err := c.d.chunk(string(ev.Data))
	if err != nil {
		return false, wire.Reported{Err: protocolErr("stream event: not JSON")}
	}
	if eb != nil {
		return false, wire.Reported{Err: c.m.bodyErr(resp, eb)}
	}
	return !c.Emit(&c.d.out) || c.d.done, nil
}

func (m *Model) newID(n int) string {
	return "call_" + strconv.FormatUint(m.ids.Add(1), 36) + "_" + strconv.Itoa(n)
}
