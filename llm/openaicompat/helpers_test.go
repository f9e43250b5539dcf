package openaicompat

import (
	"testing"

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
	return m
}

func run(t *testing.T, m *Model, req *llm.Request) result { return wiretest.Run(t, m, req) }
