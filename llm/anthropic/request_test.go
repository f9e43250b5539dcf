package anthropic

import (
	"strings"
	"testing"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/llm"
)

// TestFinalRequestNamesUsedTools: on the loop guard's last iteration no
// tools are offered, yet the history holds tool_use blocks, which the API
// only takes alongside tools; the request names them and forbids calls.
func TestFinalRequestNamesUsedTools(t *testing.T) {
	s := newServer(t, sseReply("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"))
	req := &llm.Request{Final: true, Timeline: []dispatch.Entry{userMessage(t, "u1", "hi"),
		toolCall(t, "toolu_1", "weather", `{"city":"Paris"}`, "sunny", false)}}
	if got := run(t, newModel(t, Config{BaseURL: s.URL}), req); got.Err != nil {
		t.Fatal(got.Err)
	}
	body := string(s.Body(0))
	for _, want := range []string{`"tools":[{"name":"weather","input_schema":{"type":"object","properties":{}}}]`, `"tool_choice":{"type":"none"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s:\n%s", want, body)
		}
	}
}
