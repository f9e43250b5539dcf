package anthropic

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/sse"
	"github.com/ebbforge/adk/llm/internal/wire"
	"github.com/ebbforge/adk/media"
)

// Defaults of a zero [Config].
const (
	DefaultBaseURL        = "https://api.anthropic.com"
	DefaultVersion        = "2023-06-01"
	DefaultMaxTokens      = 4096
	DefaultRequestTimeout = 10 * time.Minute
	DefaultIdleTimeout    = 5 * time.Minute
)

// Config configures a [Model]. Model is required; the zero value of every
// other field is a sensible default.
type Config struct {
	// BaseURL is the API root; "" means DefaultBaseURL. "/v1/messages" is
	// appended.
	BaseURL string
	// APIKey is sent as x-api-key. It never appears in errors or logs.
	APIKey string
	// Model is the model name.
	Model string
	// Version is the anthropic-version header; "" means DefaultVersion.
	Version string
	// Beta lists anthropic-beta features to opt in to.
	Beta []string
	// Headers are added to every request.
	Headers http.Header
	// HTTPClient sends the requests; nil means http.DefaultClient (the two
	// timeouts below apply either way).
	HTTPClient *http.Client
	// NoStream asks for whole responses instead of a stream.
	NoStream bool
	// MaxTokens is the output limit when the request sets none; 0 means
	// DefaultMaxTokens (the API requires one).
	MaxTokens int
	// ThinkingBudget > 0 turns extended thinking on with that many tokens
	// (at least 1024, below the output limit). The API then takes only the
	// "auto" and "none" tool choices.
	ThinkingBudget int
	// ToolChoice is "auto", "any", "none" or a tool's name; "" sends
	// nothing (auto).
	ToolChoice string
	// DisableParallelToolUse asks for at most one tool call per response.
	DisableParallelToolUse bool
	// RequestTimeout bounds the wait for the response headers; 0 means
	// DefaultRequestTimeout, negative means none.
	RequestTimeout time.Duration
	// IdleTimeout bounds each wait for more of a streamed body; 0 means
	// DefaultIdleTimeout, negative means none.
	IdleTimeout time.Duration
	// Renderer renders the system prompt (with the request's standing
	// instructions), user messages and tool results; see [llm.Renderer].
	// Set its Key to keep envelope nonces stable across restarts. A nil
	// Accepts means images and documents, which the API takes inline (a
	// document other than a PDF is named in a text block); other media
	// follow its Unsupported policy (refused by default).
	Renderer llm.Renderer
}

// Model is a Claude model served by the Messages API. It is safe for
// concurrent use.
type Model struct {
	cfg    Config
	url    string
	render llm.Renderer
}

// ErrConfig is returned by [New] for a Config without a Model.
var ErrConfig = errors.New("anthropic: Model is required")

// New returns a model for cfg; [ErrConfig] when Model is missing.
func New(cfg Config) (*Model, error) {
	if cfg.Model == "" {
		return nil, ErrConfig
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	m := &Model{cfg: cfg, url: strings.TrimSuffix(base, "/") + "/v1/messages", render: cfg.Renderer}
	if m.render.Accepts == nil {
		m.render.Accepts = []media.Kind{media.KindImage, media.KindDocument}
	}
	return m, nil
}

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
	version := m.cfg.Version
	if version == "" {
		version = DefaultVersion
	}
	h.Set("anthropic-version", version)
	if len(m.cfg.Beta) > 0 {
		h.Set("anthropic-beta", strings.Join(m.cfg.Beta, ","))
	}
	if m.cfg.APIKey != "" {
		h.Set("x-api-key", m.cfg.APIKey)
	}
	c := &response{m: m, Emitter: wire.Emitter[llm.Part]{Yield: yield}}
	err = wire.Post(ctx, wire.Request{Client: m.cfg.HTTPClient, URL: m.url, Header: h, Body: body,
		RequestTimeout: wire.Timeout(m.cfg.RequestTimeout, DefaultRequestTimeout),
		IdleTimeout:    wire.Timeout(m.cfg.IdleTimeout, DefaultIdleTimeout)}, c)
	switch {
	case c.Stopped:
		return nil
	case err != nil:
		return wire.Failure(ctx, err, "anthropic", sentinels, m.cfg.APIKey)
	case !c.d.done && c.d.stop == "":
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
}

func (c *response) Status(resp *http.Response, body []byte) error {
	return wire.Reported{Err: c.m.statusErr(resp, body)}
}

// Whole takes a whole message, or a JSON error answering a stream request.
func (c *response) Whole(resp *http.Response, body []byte) error {
	return c.take(resp, body)
}

func (c *response) Event(resp *http.Response, ev sse.Event) (bool, error) {
	if err := c.take(resp, ev.Data); err != nil {
		return false, err
	}
	return c.Stopped || c.d.done, nil
}

func (c *response) take(resp *http.Response, data []byte) error {
	eb, err := c.d.event(string(data))
	if err != nil {
		return wire.Reported{Err: protocolErr("response: not JSON")}
	}
	if eb != nil {
		return wire.Reported{Err: c.m.bodyErr(resp, eb)}
	}
	c.Emit(&c.d.out)
	return nil
}
