package gemini

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

type (
	result = wiretest.Result
	call   = wiretest.Call
	reply  = wiretest.Reply
)

var (
	newServer   = wiretest.NewServer
	sseReply    = wiretest.SSE
	fixture     = wiretest.Fixture
	userMessage = wiretest.UserMessage
)

// newModel is a model for cfg whose generated call ids count "1", "2", …
// and whose envelopes use the tests' fixed key.
func newModel(t *testing.T, cfg Config) *Model {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	if cfg.Renderer.Key == nil {
		cfg.Renderer.Key = wiretest.RenderKey
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	m.newID = func() string { n++; return strconv.Itoa(n) }
	return m
}

func run(t *testing.T, m *Model, req *llm.Request) result { return wiretest.Run(t, m, req) }

// frame is chunks as an SSE body with CRLF line endings, as the API sends.
func frame(chunks ...string) string {
	var s string
	for _, c := range chunks {
		s += "data: " + c + "\r\n\r\n"
	}
	return s
}

// toolCall is a completed call with its result and, when compat is set,
// its replay payload.
func toolCall(t *testing.T, id, name, args, result string, isError bool, payload, compat string) dispatch.Entry {
	t.Helper()
	return wiretest.ToolCall(t, wiretest.CallSpec{ID: id, Tool: name, Args: args, Result: result, IsError: isError, Payload: payload, Compat: compat})
}

func assistantMessage(t *testing.T, id, text string) dispatch.Entry {
	t.Helper()
	m, err := dispatch.NewMessage(dispatch.RawMessage{ID: id, Role: dispatch.RoleAssistant, Content: forge.NewTokenizable(text)})
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Entry{Message: m}
}

func thought(t *testing.T, text, payload, compat string) dispatch.Entry {
	t.Helper()
	raw := dispatch.RawThought{ID: "th", Content: forge.NewTokenizable(text), ReplayCompatibility: compat}
	if payload != "" {
		raw.Payload = json.RawMessage(payload)
	}
	th, err := dispatch.NewThought(raw)
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Entry{Thought: th}
}
