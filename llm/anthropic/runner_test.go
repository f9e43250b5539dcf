package anthropic

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
	"github.com/ebbforge/adk/turnrunner"
)

const start = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`

// TestRunnerOverTheWire runs the real runner on the adapter against a
// scripted server: an overloaded 529 (retried), a tool call after a
// thinking block, then the answer; the thinking goes back signed.
func TestRunnerOverTheWire(t *testing.T) {
	s := wiretest.NewServer(t,
		wiretest.Reply{Status: 529, ContentType: "application/json", Header: http.Header{"Retry-After": {"0"}},
			Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		wiretest.SSE(events(
			"message_start", start,
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Use the tool."}}`,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2lnbmVk"}}`,
			"content_block_stop", `{"type":"content_block_stop","index":0}`,
			"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}}`,
			"ping", `{"type": "ping"}`,
			"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Paris\"}"}}`,
			"content_block_stop", `{"type":"content_block_stop","index":1}`,
			"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20}}`,
			"message_stop", `{"type":"message_stop"}`)),
		wiretest.SSE(events(
			"message_start", start,
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"It is sunny in Paris."}}`,
			"content_block_stop", `{"type":"content_block_stop","index":0}`,
			"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":8}}`,
			"message_stop", `{"type":"message_stop"}`)),
	)
	m, err := New(Config{BaseURL: s.URL, Model: "claude", ThinkingBudget: 1024, Renderer: llm.Renderer{Key: wiretest.RenderKey}})
	if err != nil {
		t.Fatal(err)
	}
	last := wiretest.RunWeatherTurn(t, m, s)
	for _, want := range []string{
		`{"type":"thinking","thinking":"Use the tool.","signature":"c2lnbmVk"}`,
		`{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}}`,
		`{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"\u003cuntrusted_content_`,
		`kind=\"tool-result\" tool=\"weather\"\u003e\nsunny in Paris\n\u003c/untrusted_content_`,
	} {
		if !strings.Contains(last, want) {
			t.Errorf("last request lacks %s:\n%s", want, last)
		}
	}
}

// TestRunnerMidStreamError: an error event after the first part is not
// retried; the turn fails with the typed error.
func TestRunnerMidStreamError(t *testing.T) {
	s := wiretest.NewServer(t, wiretest.SSE(events(
		"message_start", start,
		"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me"}}`,
		"error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)))
	m, err := New(Config{BaseURL: s.URL, Model: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	got := wiretest.RunTurn(t, m)
	if got.Status != turnrunner.TurnFailed || !errors.Is(got.Err, llm.ErrOverloaded) || got.Failed != "Let me" || s.Requests() != 1 {
		t.Fatalf("turn: %+v, requests %d", got, s.Requests())
	}
}

// TestRunnerTruncatedToolCall replays the recorded stream whose tool input
// max_tokens cut off: the runner must not run the half call, and tells
// the model, which answers next.
func TestRunnerTruncatedToolCall(t *testing.T) {
	s := wiretest.NewServer(t,
		wiretest.SSE(wiretest.Fixture(t, "anthropic-messages-stream-max-tokens-partial-tool.sse")),
		wiretest.SSE(events(
			"message_start", start,
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}`,
			"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
			"message_stop", `{"type":"message_stop"}`)))
	m, err := New(Config{BaseURL: s.URL, Model: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	got := wiretest.RunTurn(t, m)
	if got.Status != turnrunner.TurnCompleted || got.ToolRuns != 0 || got.Answer != "Done." || !slices.Contains(got.Warnings, "truncated") {
		t.Fatalf("turn: %+v", got)
	}
	if last := string(s.Body(1)); !strings.Contains(last, `"tool_use_id":"toolu_01EKqbqmZrGRXy18eN7m9kvY"`) || !strings.Contains(last, "max_tokens") {
		t.Errorf("the model was not told its call did not run:\n%s", last)
	}
	if last := string(s.Body(1)); !strings.Contains(last, `"name":"make_file","input":{}`) {
		t.Errorf("the half call is not replayed with an empty input:\n%s", last)
	}
}
