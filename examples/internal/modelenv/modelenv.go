package modelenv

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/anthropic"
	"github.com/ebbforge/adk/llm/gemini"
	"github.com/ebbforge/adk/llm/openaicompat"
)

// Providers.
const (
	Scripted  = "scripted"
	OpenAI    = "openai"
	Anthropic = "anthropic"
	Gemini    = "gemini"
)

// Default API roots.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultGeminiBaseURL    = gemini.DefaultBaseURL
)

// ErrConfig is a provider setting that is missing or unknown.
var ErrConfig = errors.New("modelenv: invalid model settings")

// Config is what the environment selected.
type Config struct {
	Provider string // Scripted, OpenAI, Anthropic or Gemini
	BaseURL  string
	Model    string
	APIKey   string
}

// Load reads the settings with getenv (os.Getenv in a program).
func Load(getenv func(string) string) (Config, error) {
	c := Config{
		Provider: strings.ToLower(strings.TrimSpace(getenv("ADK_PROVIDER"))),
		BaseURL:  strings.TrimSpace(getenv("ADK_BASE_URL")),
		Model:    strings.TrimSpace(getenv("ADK_MODEL")),
		APIKey:   strings.TrimSpace(getenv("ADK_API_KEY")),
	}
	switch c.Provider {
	case "", Scripted:
		c.Provider = Scripted
		return c, nil
	case OpenAI:
		if c.BaseURL == "" {
			c.BaseURL = DefaultOpenAIBaseURL
		}
	case Anthropic:
		if c.BaseURL == "" {
			c.BaseURL = DefaultAnthropicBaseURL
		}
	case Gemini:
		if c.BaseURL == "" {
			c.BaseURL = DefaultGeminiBaseURL
		}
	default:
		return c, fmt.Errorf("%w: ADK_PROVIDER=%q: use openai, anthropic, gemini or scripted", ErrConfig, c.Provider)
	}
	if c.Model == "" {
		return c, fmt.Errorf("%w: ADK_MODEL is required with ADK_PROVIDER=%s", ErrConfig, c.Provider)
	}
	return c, nil
}

// String describes the selection in one line, without the key.
func (c Config) String() string {
	if c.Provider == Scripted {
		return "the built-in scripted model (offline)"
	}
	return c.Provider + " model " + c.Model + " at " + c.BaseURL
}

// New returns the selected model: offline for Scripted, else the
// provider's adapter.
func (c Config) New(offline llm.Model) (llm.Model, error) {
	switch c.Provider {
	case OpenAI:
		return openaicompat.New(openaicompat.Config{BaseURL: c.BaseURL, Model: c.Model, APIKey: c.APIKey})
	case Anthropic:
		return anthropic.New(anthropic.Config{BaseURL: c.BaseURL, Model: c.Model, APIKey: c.APIKey})
	case Gemini:
		return gemini.New(gemini.Config{BaseURL: c.BaseURL, Model: c.Model, APIKey: c.APIKey})
	}
	return offline, nil
}

// Explain is one line saying why a turn on c failed and what to check.
func (c Config) Explain(err error) string {
	var hint string
	switch {
	case errors.Is(err, llm.ErrTransport), errors.Is(err, llm.ErrTimeout):
		hint = "cannot reach " + c.BaseURL + ": is the server running? (ADK_BASE_URL)"
	case errors.Is(err, llm.ErrAuth):
		hint = c.BaseURL + " refused the credentials (ADK_API_KEY)"
	case errors.Is(err, llm.ErrRateLimited):
		hint = c.BaseURL + " is rate limiting this key; try again later"
	case errors.Is(err, llm.ErrOverloaded), errors.Is(err, llm.ErrServer):
		hint = c.BaseURL + " failed on its side; try again later"
	case errors.Is(err, llm.ErrContextLength):
		hint = "the conversation does not fit " + c.Model + "'s context window"
	case errors.Is(err, llm.ErrBadRequest):
		hint = c.BaseURL + " rejected the request: is " + c.Model + " a model it serves? (ADK_MODEL)"
	case errors.Is(err, llm.ErrProtocol), errors.Is(err, llm.ErrTruncated):
		hint = c.BaseURL + " did not answer like a " + c.Provider + " API (ADK_PROVIDER, ADK_BASE_URL)"
	default:
		return oneLine(llm.Redact(err.Error(), c.APIKey))
	}
	return hint + ": " + oneLine(llm.Redact(rootCause(err), c.APIKey))
}

// rootCause is the innermost error's text: the part a user can act on.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
