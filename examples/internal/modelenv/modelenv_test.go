package modelenv_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ebbforge/adk/examples/internal/modelenv"
	"github.com/ebbforge/adk/llm"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name string
		env  func(string) string
		want modelenv.Config
		err  string
	}{
		{"nothing set is offline", env(), modelenv.Config{Provider: "scripted"}, ""},
		{"openai with Ollama", env("ADK_PROVIDER", "openai", "ADK_BASE_URL", "http://localhost:11434/v1", "ADK_MODEL", "qwen3"),
			modelenv.Config{Provider: "openai", BaseURL: "http://localhost:11434/v1", Model: "qwen3"}, ""},
		{"openai default URL", env("ADK_PROVIDER", " OpenAI ", "ADK_MODEL", "gpt-5", "ADK_API_KEY", "sk-1"),
			modelenv.Config{Provider: "openai", BaseURL: modelenv.DefaultOpenAIBaseURL, Model: "gpt-5", APIKey: "sk-1"}, ""},
		{"anthropic default URL", env("ADK_PROVIDER", "anthropic", "ADK_MODEL", "claude"),
			modelenv.Config{Provider: "anthropic", BaseURL: modelenv.DefaultAnthropicBaseURL, Model: "claude"}, ""},
		{"gemini default URL", env("ADK_PROVIDER", "gemini", "ADK_MODEL", "gemini-2.5-flash"),
			modelenv.Config{Provider: "gemini", BaseURL: modelenv.DefaultGeminiBaseURL, Model: "gemini-2.5-flash"}, ""},
		{"a model is required", env("ADK_PROVIDER", "anthropic"), modelenv.Config{}, "ADK_MODEL is required"},
		{"unknown provider", env("ADK_PROVIDER", "palm", "ADK_MODEL", "x"), modelenv.Config{}, `ADK_PROVIDER="palm"`},
	}
	for _, tt := range tests {
		got, err := modelenv.Load(tt.env)
		if tt.err != "" {
			if !errors.Is(err, modelenv.ErrConfig) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}

func TestStringHidesKey(t *testing.T) {
	c := modelenv.Config{Provider: "openai", BaseURL: "http://h/v1", Model: "m", APIKey: "sk-secret"}
	if s := c.String(); strings.Contains(s, "sk-secret") || s != "openai model m at http://h/v1" {
		t.Errorf("String = %q", s)
	}
}

func TestExplain(t *testing.T) {
	c := modelenv.Config{Provider: "openai", BaseURL: "http://h/v1", Model: "m", APIKey: "sk-secret"}
	api := func(status int, msg string) error {
		return llm.StatusError(&llm.APIError{Provider: "openai", StatusCode: status, Message: msg})
	}
	tests := []struct {
		err  error
		want string
	}{
		{llm.ErrTransport.With(errors.New("dial tcp: connect: connection refused"), "send"), "cannot reach http://h/v1: is the server running? (ADK_BASE_URL): dial tcp: connect: connection refused"},
		{fmt.Errorf("turn: %w", api(401, "bad key sk-secret\nsee docs")), "http://h/v1 refused the credentials (ADK_API_KEY): openai: status 401: bad key [redacted] see docs"},
		{api(404, "model m not found"), "http://h/v1 rejected the request: is m a model it serves? (ADK_MODEL): openai: status 404: model m not found"},
		{api(429, ""), "http://h/v1 is rate limiting this key; try again later: openai: status 429"},
		{errors.New("something\nelse"), "something else"},
	}
	for _, tt := range tests {
		if got := c.Explain(tt.err); got != tt.want {
			t.Errorf("Explain(%v)\n got %q\nwant %q", tt.err, got, tt.want)
		}
	}
}

func TestNew(t *testing.T) {
	for provider, want := range map[string]string{"openai": "*openaicompat.Model", "anthropic": "*anthropic.Model", "gemini": "*gemini.Model", "scripted": "<nil>"} {
		got, err := modelenv.Config{Provider: provider, BaseURL: "http://h", Model: "m"}.New(nil)
		if err != nil || fmt.Sprintf("%T", got) != want && !(want == "<nil>" && got == nil) {
			t.Errorf("%s: %T, %v; want %s", provider, got, err, want)
		}
	}
}
