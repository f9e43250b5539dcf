package gemini

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
	DefaultBaseURL        = "https://generativelanguage.googleapis.com/v1beta"
	DefaultRequestTimeout = 10 * time.Minute
	DefaultIdleTimeout    = 5 * time.Minute
)

// Config configures a [Model]. Model is required; the zero value of every
// other field is a sensible default.
type Config struct {
	// BaseURL is the API root including its version; "" means
	// DefaultBaseURL. "/models/{model}:streamGenerateContent?alt=sse" (or
	// ":generateContent") is appended.
	BaseURL string
	// APIKey is sent in the x-goog-api-key header, never in the URL. It
	// never appears in errors or logs.
	APIKey string
	// Model is the model name, e.g. "gemini-2.5-flash", or a resource
	// name with its collection ("models/gemini-2.5-flash",
	// "tunedModels/my-model").
	Model string
	// Headers are added to every request.
	Headers http.Header
	// HTTPClient sends the requests; nil means http.DefaultClient (the two
	// timeouts below apply either way).
	HTTPClient *http.Client
	// NoStream asks for whole responses (generateContent) instead of a
	// stream.
	NoStream bool
	// MaxTokens is maxOutputTokens when the request sets none; 0 sends
	// none (the model's default).
	MaxTokens int
	// ToolChoice is "auto", "any" (or "required"), "none", "validated" or
	// a tool's name (mode ANY, only that function allowed); "" sends no
	// toolConfig (the API's default, AUTO).
	ToolChoice string
	// IncludeThoughts asks for thought summaries, which arrive as reasoning.
	IncludeThoughts bool
	// ThinkingBudget, when set, is thinkingConfig.thinkingBudget: a number
	// of tokens, 0 to turn thinking off where the model allows it, -1 for
	// a dynamic budget.
	ThinkingBudget *int
	// ThinkingLevel, when set, is thinkingConfig.thinkingLevel ("low",
	// "high") for models that take a level instead of a budget.
	ThinkingLevel string
	// RequestTimeout bounds the wait for the response headers; 0 means
	// DefaultRequestTimeout, negative means none.
	RequestTimeout time.Duration
	// IdleTimeout bounds each wait for more of a streamed body; 0 means
	// DefaultIdleTimeout, negative means none.
	IdleTimeout time.Duration
	// Renderer renders the system instruction (with the request's standing
	// instructions), user messages and function responses; see
	// [llm.Renderer]. Set its Key to keep envelope nonces stable across
	// restarts. A nil Accepts means images, audio, video and documents,
	// which the API takes inline (a document other than a PDF or plain
	// text is named in a text part); other media follow its Unsupported
	// policy (refused by default).
	Renderer llm.Renderer
}

// Model is a Gemini model served by the Gemini API (generateContent). It
// is safe for concurrent use.
type Model struct {
	cfg    Config
	url    string // the model's resource URL, without ":method"
	render llm.Renderer
	newID  func() string
}

// ErrConfig is returned by [New] for a Config without a Model.
var ErrConfig = errors.New("gemini: Model is required")

// New returns a model for cfg; [ErrConfig] when Model is missing.
func New(cfg Config) (*Model, error) {
	name := cfg.Model
	if name == "" || name == "models/" {
		return nil, ErrConfig
	}
	if !strings.Contains(name, "/") {
		name = "models/" + name
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	m := &Model{cfg: cfg, url: strings.TrimSuffix(base, "/") + "/" + name, render: cfg.Renderer, newID: randomID}
	if m.render.Accepts == nil {
		m.render.Accepts = []media.Kind{media.KindImage, media.KindAudio, media.KindVideo, media.KindDocument}
	}
	return m, nil
}

// randomID names a function call the API sent without an id: unique
// across processes, so stored conversations never hold two calls with
// one id.
func randomID() string {
	var b [12]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// Stream sends req and yields the response's parts as they arrive. The
// sequence is single-use; breaking out of it closes the connection.
// Failures are yielded once, typed (see the package doc).
func (m *Model) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
	return wire.Seq(func(yield func(llm.Part, error) bool) error { return m.stream(ctx, req, yield) })
}

func (m *Model) stream(ctx context.Context, req *llm.Request, yield func(llm.Part, error) bool) error {
	stream := !m.cfg.NoStream
	body, err := m.encode(ctx, req)
	if err != nil {
		return err
	}
	url := m.url + ":generateContent"
	if stream {
		url = m.url + ":streamGenerateContent?alt=sse"
	}
	h := wire.Header(m.cfg.Headers, stream)
	if m.cfg.APIKey != "" {
		h.Set("x-goog-api-key", m.cfg.APIKey)
	}
	c := &response{m: m, Emitter: wire.Emitter[llm.Part]{Yield: yield}, d: decoder{newID: m.newID}}
	err = wire.Post(ctx, wire.Request{Client: m.cfg.HTTPClient, URL: url, Header: h, Body: body,
		RequestTimeout: wire.Timeout(m.cfg.RequestTimeout, DefaultRequestTimeout),
		IdleTimeout:    wire.Timeout(m.cfg.IdleTimeout, DefaultIdleTimeout)}, c)
	switch {
	case c.Stopped:
		return nil
	case err != nil:
		return wire.Failure(ctx, err, "gemini", sentinels, m.cfg.APIKey)
	case c.d.finish == "":
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

// Whole takes a whole response, or a JSON error answering a stream
// request.
func (c *response) Whole(resp *http.Response, body []byte) error {
	_, err := c.take(resp, body)
	return err
}

func (c *response) Event(resp *http.Response, ev sse.Event) (bool, error) {
	return c.take(resp, ev.Data)
}

func (c *response) take(resp *http.Response, data []byte) (bool, error) {
	eb, err := c.d.chunk(string(data))
	switch {
	case err != nil:
		return false, wire.Reported{Err: protocolErr("response: not JSON")}
	case eb != nil:
		return false, wire.Reported{Err: c.m.bodyErr(resp, eb)}
	case c.d.blocked != "":
		return false, wire.Reported{Err: c.m.blockedErr(resp, &c.d)}
	}
	return !c.Emit(&c.d.out), nil
}
