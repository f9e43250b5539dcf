package openaicompat

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/golden"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// checkGolden compares an indented request body with its golden file.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	golden.Check(t, name, indent(t, body), *update)
}

const openRouterSignature = "Eq0ECkgIDRABGAIqQM/zwzd9QrbMZ79kRrc7C/5+aoKK90YBv7ZbImUoagaaGZvOU3SP14cZRUHB0b+fLRHRC8LLhfcfaQiGOGAxwdoSDIbgptNVmRLyYm/sdhoMI7e1X+W59yUjKZVlIjAqlULqwvQixLC+CkI+RvLV4hHztMBsL/kzC5raPmOTiEVmCaQ5c7W4fXO3Mon1cZAqkgNVe2nmngGw6pcyT7NffJiTFdTsCng7MUiRRJEF/ewiBLEFGMIPyMN/yUsjQnMewYzwYtsnaf3NGiv15hJ3xrAwdn0YW5k6oU5Fw33QYby3cMAxJxO/Pfz4vQEqEz01veyKIUoIN1ohc/ntl59HQCBxblYiiOvenqc7FZXtTSamyK5aXDaV7chH1xYJYffZGDs4RBYEObRjWADgTi4r01G3RdXMA9UAPbJ2w4y0u85g18EFnIiqfJbm3TfQXtevWaRT8lFV8gaSqjzpqq0a6V3RbZWT/I2iJOVrWxRlVcZWR1/vaR9HkaJsz0d1Gi25UrfJHxsB4QnZKfvDHQ6DrX79FHPvGmfwvUb/BOxjrtARlnKKiMzd15nT9XiDhc1PuUKv7+4mM8XIlG47FQGcGO4MSZMr5hFQsYTlYPx/WfNKrayx+WJ3qPVelJ78+BFLzaoZ2JFjEQJqS+ULV1ZOjkYZNE5Ab/kjUpu6YklsKvdzjfdtBLA94m5g5L4zk6ygJMBjCIQ6ziSW4AAzYQeJjnyJOwYYAQ=="

// TestReplayFixtures replays every recorded stream and checks what it
// assembles to.
func TestReplayFixtures(t *testing.T) {
	usage := func(in, out, total, reasoning int) *llm.Usage {
		return &llm.Usage{InputTokens: in, OutputTokens: out, TotalTokens: total, ReasoningTokens: reasoning}
	}
	orReasoning := "The user is asking for weather information in Florence, Italy. I have access to a weather function that takes a location parameter. I should call the weather function with \"Florence, Italy\" or \"Florence\" as the location.\n\nLet me call the weather function with the location being Florence, Italy (or I could try just \"Florence\" - but \"Florence, Italy\" would be more specific and accurate)."
	orDetails, _ := json.Marshal([]struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		Format    string `json:"format"`
		Index     int    `json:"index"`
		Signature string `json:"signature"`
	}{{"reasoning.text", orReasoning, "anthropic-claude-v1", 0, openRouterSignature}})
	tests := []struct {
		file        string
		contentType string
		want        result
		wantErr     error
	}{
		{file: "openai-chat-stream-tool-call.sse", want: result{
			Calls: []call{{ID: "call_CTf1nWJLqSeRgDqaCG27xZ74", Name: "get_weather", Args: `{"city":"San Francisco","state":"CA"}`}},
			Usage: usage(48, 19, 67, 0), Stop: llm.StopToolUse}},
		{file: "openai-chat-stream-parallel-tools.sse", want: result{
			Calls: []call{
				{ID: "call_JMW1whyEaYG438VE1OIflxA2", Name: "GetWeatherArgs", Args: `{"city":"Edinburgh","country":"GB","units":"c"}`},
				{ID: "call_DNYTawLBoN8fj3KN6qU9N1Ou", Name: "get_stock_price", Args: `{"exchange":"NASDAQ","ticker":"AAPL"}`},
			},
			Usage: usage(149, 60, 209, 0), Stop: llm.StopToolUse}},
		{file: "openai-chat-nonstream-parallel-tools.json", contentType: "application/json", want: result{
			Calls: []call{
				{ID: "call_fdNz3vOBKYgOIpMdWotB9MjY", Name: "GetWeatherArgs", Args: `{"city":"Edinburgh","country":"GB","units":"c"}`},
				{ID: "call_h1DWI1POMJLb0KwIyQHWXD4p", Name: "get_stock_price", Args: `{"exchange":"NASDAQ","ticker":"AAPL"}`},
			},
			Usage: usage(149, 60, 209, 0), Stop: llm.StopToolUse}},
		{file: "openai-compat-llamacpp-stream-tool-call.sse", want: result{
			Reasoning: "User wants weather in Florence, Italy. We can use the weather function.",
			Calls:     []call{{ID: "g2KOIWzn722hzEaZQmNVP4roUPEiYafL", Name: "weather", Args: `{"location":"Florence, Italy"}`}},
			Usage:     usage(139, 41, 180, 0), Stop: llm.StopToolUse}},
		{file: "openai-compat-groq-stream-parallel-whole-args.sse", want: result{
			Text: "I'll perform both addition and multiplication on the numbers 2 and 3 for you.",
			Calls: []call{
				{ID: "functions.add:0", Name: "add", Args: `{"a":2,"b":3}`},
				{ID: "functions.multiply:1", Name: "multiply", Args: `{"a":2,"b":3}`},
			},
			Usage: usage(201, 58, 259, 0), Stop: llm.StopToolUse}},
		{file: "openai-compat-openrouter-stream-reasoning-tool.sse", want: result{
			Reasoning: orReasoning,
			Payloads:  []string{ReplayReasoningDetails + " " + string(orDetails)},
			Calls:     []call{{ID: "toolu_bdrk_01N8hD5cYDw4WfvnjKXAkA2W", Name: "weather", Args: `{"location":"Florence, Italy"}`}},
			Usage:     usage(607, 143, 750, 99), Stop: llm.StopToolUse}},
		{file: "openai-compat-groq-stream-error-event.sse", want: result{
			Reasoning: `We need to call the tool with invalid parameters first, then second call with valid args. The user wants us to test error handling. So first call should have wrong parameters (e.g., missing required "name" or extra param). The tool expects only "name". If we send extra property, that might cause error. Or missing "name". We'll do a call with missing name: {}. Then second call with name: "test". Let's do that.`,
		}, wantErr: llm.ErrBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ct := tt.contentType
			if ct == "" {
				ct = "text/event-stream"
			}
			s := newServer(t, reply{Status: 200, ContentType: ct, Body: fixture(t, tt.file)})
			got := run(t, newModel(t, Config{BaseURL: s.URL, NoStream: tt.contentType != ""}), nil)
			if (tt.wantErr == nil) != (got.Err == nil) || !errors.Is(got.Err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", got.Err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(result{}, "Err")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func toolCall(t *testing.T, id, name, args, result string) *forge.ToolCall {
	t.Helper()
	return wiretest.ToolCall(t, wiretest.CallSpec{ID: id, Tool: name, Args: args, Result: result}).ToolCall
}

// TestRoundTripRequests replays the recorded two-request tool conversation:
// the requests the adapter sends must say what the recorded client sent.
func TestRoundTripRequests(t *testing.T) {
	exchanges, replies := wiretest.LoadExchanges(t, "openai-chat-parallel-tools-roundtrip.json")
	s := newServer(t, replies...)
	m := newModel(t, Config{BaseURL: s.URL, Model: "gpt-4o"})
	tools := []forge.Definition{{Name: "secret_retrieval_tool", Description: "A tool that requires a password to retrieve a secret.",
		Parameters: json.RawMessage(`{"properties":{"password":{"title":"Password","type":"string"}},"required":["password"],"additionalProperties":false,"type":"object"}`)}}
	timeline := []dispatch.Entry{userMessage(t, "u1", "Please retrieve the secrets associated with each of these passwords: mellon,radiance")}
	first := run(t, m, &llm.Request{System: "Use parallel tool calling.", Timeline: timeline, Tools: tools})
	if first.Err != nil || len(first.Calls) != 2 {
		t.Fatalf("first response: %v", first)
	}
	secrets := map[string]string{"mellon": "Welcome to Moria!", "radiance": "Life before Death"}
	for _, c := range first.Calls {
		var a struct{ Password string }
		json.Unmarshal([]byte(c.Args), &a)
		// Arguments are stored as the model wrote them.
		raw := map[string]string{"mellon": `{"password": "mellon"}`, "radiance": `{"password": "radiance"}`}[a.Password]
		timeline = append(timeline, dispatch.Entry{ToolCall: toolCall(t, c.ID, c.Name, raw, secrets[a.Password])})
	}
	second := run(t, m, &llm.Request{System: "Use parallel tool calling.", Timeline: timeline, Tools: tools})
	if second.Err != nil || second.Text != "The secrets are:\n\n- For the password \"mellon\": Welcome to Moria!\n- For the password \"radiance\": Life before Death" && !strings.Contains(second.Text, "Life before Death") {
		t.Fatalf("second response: %v", second)
	}
	for i, ex := range exchanges {
		var want, got map[string]any
		json.Unmarshal([]byte(wiretest.BodyText(ex.Request.Body)), &want)
		json.Unmarshal(s.Body(i), &got)
		normalizeArguments(want)
		normalizeArguments(got)
		// The recorded client also sent "strict": false on each tool, the default.
		for _, tl := range want["tools"].([]any) {
			delete(tl.(map[string]any)["function"].(map[string]any), "strict")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request %d (-recorded +sent):\n%s", i, diff)
		}
		golden.Check(t, "roundtrip-request-"+string(rune('1'+i)), indent(t, s.Body(i)), *update)
	}
}

// normalizeArguments parses the argument strings of a body's tool calls:
// stored arguments are compact JSON, the recorded client spaced them. It
// also unwraps tool results, which the recorded client sent without
// envelopes.
func normalizeArguments(body map[string]any) {
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		if s, ok := m.(map[string]any)["content"].(string); ok && m.(map[string]any)["role"] == "tool" {
			m.(map[string]any)["content"] = wiretest.Unwrap(s)
		}
		calls, _ := m.(map[string]any)["tool_calls"].([]any)
		for _, c := range calls {
			fn := c.(map[string]any)["function"].(map[string]any)
			var v any
			json.Unmarshal([]byte(fn["arguments"].(string)), &v)
			fn["arguments"] = v
		}
	}
}

func indent(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, b)
	}
	return out.String() + "\n"
}
