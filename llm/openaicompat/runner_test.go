package openaicompat_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
	"github.com/ebbforge/adk/llm/openaicompat"
	"github.com/ebbforge/adk/turnrunner"
)

func frame(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	return b.String() + "data: [DONE]\n\n"
}

// TestRunnerOverTheWire runs the real runner on the adapter against a
// scripted server: a 429 (retried), a tool call, then the answer.
func TestRunnerOverTheWire(t *testing.T) {
	s := wiretest.NewServer(t,
		wiretest.Reply{Status: 429, ContentType: "application/json", Header: http.Header{"Retry-After-Ms": {"1"}},
			Body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`},
		wiretest.SSE(frame(
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"weather","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)),
		wiretest.SSE(frame(
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":"It is "}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"sunny in Paris."},"finish_reason":"stop"}]}`)),
	)
	m, err := openaicompat.New(openaicompat.Config{BaseURL: s.URL + "/v1", Model: "m", Renderer: llm.Renderer{Key: wiretest.RenderKey}})
	if err != nil {
		t.Fatal(err)
	}
	last := wiretest.RunWeatherTurn(t, m, s)
	for _, want := range []string{`"tool_call_id":"call_1"`, `kind=\"tool-result\" tool=\"weather\"\u003e\nsunny in Paris\n\u003c/untrusted_content_`, `"arguments":"{\"city\":\"Paris\"}"`} {
		if !strings.Contains(last, want) {
			t.Errorf("last request lacks %s:\n%s", want, last)
		}
	}
}

// TestRunnerMidStreamError: a response that fails after its first part
// is not retried; the turn fails with the typed error.
func TestRunnerMidStreamError(t *testing.T) {
	s := wiretest.NewServer(t, wiretest.SSE(
		`data: {"choices":[{"index":0,"delta":{"content":"Let me"}}]}`+"\n\n"+
			"event: error\n"+`data: {"error":{"message":"upstream failed","type":"server_error"}}`+"\n\n"))
	m, err := openaicompat.New(openaicompat.Config{BaseURL: s.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	got := wiretest.RunTurn(t, m)
	if got.Status != turnrunner.TurnFailed || !errors.Is(got.Err, llm.ErrServer) || got.Failed != "Let me" || got.Answer != "" || s.Requests() != 1 {
		t.Fatalf("turn: %+v, requests %d", got, s.Requests())
	}
}

// TestRunnerLengthCutsToolCall: a response cut off by finish_reason
// "length" in the middle of a tool call's arguments: the runner never runs
// the half call, reports the truncation, tells the model its call did not
// run, and the model answers next.
func TestRunnerLengthCutsToolCall(t *testing.T) {
	s := wiretest.NewServer(t,
		wiretest.SSE(frame(
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"weather","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Pa"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`)),
		wiretest.SSE(frame(`{"choices":[{"index":0,"delta":{"role":"assistant","content":"Done."},"finish_reason":"stop"}]}`)),
	)
	m, err := openaicompat.New(openaicompat.Config{BaseURL: s.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	got := wiretest.RunTurn(t, m)
	if got.Status != turnrunner.TurnCompleted || got.ToolRuns != 0 || got.ToolInput != "" || got.Answer != "Done." || !slices.Contains(got.Warnings, "truncated") {
		t.Fatalf("turn: %+v", got)
	}
	last := string(s.Body(1))
	for _, want := range []string{`"tool_call_id":"call_1"`, "max_tokens", `"arguments":"{}"`} {
		if !strings.Contains(last, want) {
			t.Errorf("last request lacks %s:\n%s", want, last)
		}
	}
}
