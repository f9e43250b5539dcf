package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
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

const thinkingSignature = "EtYDCkYICxgCKkAVHEWRYo6RgSMs4ZZDX4gW16kdfp2EIXftcLesVephGa/p1m+1Y8mRQPvvKOQICrOkGKYoJBKSNLJ4ukI/mo6LEgx7FMTwIpYzM2WTWT8aDKY6c2i52xIX2NYX3SIwY5gI8frldE4pwUhseod0S0xZV2hTAQhqMCOu4+effAu250K2RPrqrO98+VD/hjF9Kr0C7EzGQ7dZ7MNwrkE+tCARkzIRk5Wtv8vVAhADlMcs78QvxmjOToU65I91p7w2/VP11peDoc9+7AbyldRKGp3chNnQgXHI7ObK89s0ltFBGrLf6tegaQL9httOtcUGCioZnI9LI9vJHMlQeoZiiWRq8hVbHlHc3f6BwBqlUJhYUyk7ld34UoaSNc5UKUNuLAmkOLg3KQLdbI7b3BQVdsWOhNTKd12fRJQcOLhXNSCv7hQ9FtWfV5C+pX59xF6YYIO3TCPUqWSubCtqdrDEoQVWdHtyveFA+4iixZxyqZ7Ea+kzbmc/6pXxwO2MX0rHrbe/yXWYAmU/XxY9HJTzXEO+CibGQOAaHdC11s8gOCFb8EWt3ALguFfj/p2SJtqybC44Alrjnhjqk+7Mi+DoMcINUh7SCK9rVl4VeDhPFVAYAQ=="

const thinkingText = `The user is asking for weather information for Florence, Italy. I have access to a weather function that takes a location parameter. The user has provided the location as "Florence, Italy" which is specific enough for the weather function. I have all the required parameters to make the function call.`

// TestReplayFixtures replays every recorded stream and checks what it
// assembles to.
func TestReplayFixtures(t *testing.T) {
	usage := func(in, out int) *llm.Usage {
		return &llm.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out}
	}
	tests := []struct {
		file    string
		want    result
		wantErr error
	}{
		{file: "anthropic-messages-stream-tool-use.sse", want: result{
			Text:  "I'll get the current weather in San Francisco for you in Fahrenheit.",
			Calls: []call{{ID: "toolu_01RaX2WYWRWCbaeFHssmGJXG", Name: "get_weather", Args: `{"city":"San Francisco","units":"fahrenheit"}`}},
			Usage: usage(397, 89), Stop: llm.StopToolUse}},
		{file: "anthropic-messages-stream-thinking-tool-use.sse", want: result{
			Reasoning: thinkingText,
			Payloads:  []string{ReplayThinking + ` {"type":"thinking","signature":"` + thinkingSignature + `"}`},
			Calls:     []call{{ID: "toolu_01Js4AMfx5qpTLhwTusnvT68", Name: "weather", Args: `{"location":"Florence, Italy"}`}},
			Usage:     usage(424, 119), Stop: llm.StopToolUse}},
		{file: "anthropic-messages-stream-max-tokens-partial-tool.sse", want: result{
			Text: "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
			Calls: []call{{ID: "toolu_01EKqbqmZrGRXy18eN7m9kvY", Name: "make_file",
				Args: "INVALID {\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes"}},
			Usage: usage(450, 124), Stop: llm.StopMaxTokens}},
		{file: "anthropic-messages-stream-error-event.sse", want: result{Text: "d with a replacement character ("}, wantErr: llm.ErrServer},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := newServer(t, sseReply(fixture(t, tt.file)))
			got := run(t, newModel(t, Config{BaseURL: s.URL}), nil)
			if (tt.wantErr == nil) != (got.Err == nil) || !errors.Is(got.Err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", got.Err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(result{}, "Err")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// normalize rewrites a request body into one form: content and system
// strings as text-block arrays, parsed objects everywhere, and the fields
// the recorded clients sent with default values (or that the API ignores
// on replay, like a tool_use's caller) removed.
func normalize(t *testing.T, body string) any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	blocks := func(c any) any {
		if s, ok := c.(string); ok {
			return []any{map[string]any{"type": "text", "text": s}}
		}
		return c
	}
	if s, ok := v["system"].([]any); ok && len(s) == 1 {
		v["system"] = s[0].(map[string]any)["text"]
	}
	if tc, ok := v["tool_choice"].(map[string]any); ok && tc["disable_parallel_tool_use"] == false {
		delete(tc, "disable_parallel_tool_use")
	}
	for _, m := range v["messages"].([]any) {
		m := m.(map[string]any)
		m["content"] = blocks(m["content"])
		for _, b := range m["content"].([]any) {
			b := b.(map[string]any)
			delete(b, "caller")
			if b["type"] == "tool_result" {
				b["content"] = blocks(b["content"])
				// The recorded client sent tool results without envelopes.
				for _, c := range b["content"].([]any) {
					if c := c.(map[string]any); c["type"] == "text" {
						c["text"] = wiretest.Unwrap(c["text"].(string))
					}
				}
			}
		}
	}
	return v
}

func toolCall(t *testing.T, id, name, args, result string, isError bool) dispatch.Entry {
	t.Helper()
	return wiretest.ToolCall(t, wiretest.CallSpec{ID: id, Tool: name, Args: args, Result: result, IsError: isError})
}

func thought(t *testing.T, p wireThought) dispatch.Entry {
	t.Helper()
	th, err := dispatch.NewThought(dispatch.RawThought{ID: "th", Content: forge.NewTokenizable(p.text),
		Payload: json.RawMessage(p.payload), ReplayCompatibility: p.compat})
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Entry{Thought: th}
}

type wireThought struct{ text, payload, compat string }

// checkRequests compares each sent body with the recorded one and with its
// golden file.
func checkRequests(t *testing.T, s interface{ Body(int) []byte }, ex []wiretest.Exchange, name string) {
	t.Helper()
	for i, e := range ex {
		sent := s.Body(i)
		if diff := cmp.Diff(normalize(t, wiretest.BodyText(e.Request.Body)), normalize(t, string(sent))); diff != "" {
			t.Errorf("request %d (-recorded +sent):\n%s", i, diff)
		}
		var out bytes.Buffer
		if err := json.Indent(&out, sent, "", "  "); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, name+"-request-"+string(rune('1'+i)), out.String()+"\n", *update)
	}
}

var weatherTool = forge.Definition{Name: "weather", Description: "Get weather information for a location",
	Parameters: json.RawMessage(`{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`)}

// TestThinkingRoundTrip replays a thinking, tool-calling conversation: the
// thinking block must go back verbatim, signature included.
func TestThinkingRoundTrip(t *testing.T) {
	ex, replies := wiretest.LoadExchanges(t, "anthropic-messages-thinking-tool-roundtrip.json")
	s := newServer(t, replies...)
	m := newModel(t, Config{BaseURL: s.URL, Model: "claude-sonnet-4-20250514", ThinkingBudget: 4000, ToolChoice: "auto"})
	req := &llm.Request{System: "You are a helpful assistant", Tools: []forge.Definition{weatherTool},
		Timeline: []dispatch.Entry{userMessage(t, "u1", "What's the weather in Florence, Italy?")}}
	first := run(t, m, req)
	if first.Err != nil || len(first.Calls) != 1 || len(first.Payloads) != 1 {
		t.Fatalf("first response: %v", first)
	}
	c := first.Calls[0]
	req.Timeline = append(req.Timeline,
		thought(t, wireThought{first.Reasoning, `{"type":"thinking","signature":"` + thinkingSignature + `"}`, ReplayThinking}),
		toolCall(t, c.ID, c.Name, `{"location":"Florence, Italy"}`, "40 C", false))
	second := run(t, m, req)
	if second.Err != nil || second.Text == "" || second.Stop != llm.StopEnd {
		t.Fatalf("second response: %v", second)
	}
	checkRequests(t, s, ex, "thinking-roundtrip")
}

// TestToolErrorRoundTrip replays a whole (non-streamed) tool call whose
// tool failed: the result goes back with is_error.
func TestToolErrorRoundTrip(t *testing.T) {
	ex, replies := wiretest.LoadExchanges(t, "anthropic-messages-tool-error-roundtrip.json")
	s := newServer(t, replies...)
	m := newModel(t, Config{BaseURL: s.URL, Model: "claude-haiku-4-5", NoStream: true, MaxTokens: 1024})
	tools := []forge.Definition{{Name: "get_weather", Description: "Lookup the weather for a given city in either celsius or fahrenheit",
		Parameters: json.RawMessage(`{"additionalProperties":false,"properties":{"location":{"description":"The city and state, e.g. San Francisco, CA","title":"Location","type":"string"},"units":{"description":"Unit for the output, either 'c' for celsius or 'f' for fahrenheit","enum":["c","f"],"title":"Units","type":"string"}},"required":["location","units"],"type":"object"}`)}}
	req := &llm.Request{Tools: tools, Timeline: []dispatch.Entry{userMessage(t, "u1", "What is the weather in SF?")}}
	first := run(t, m, req)
	want := result{Calls: []call{{ID: "toolu_01A9HHF5Ezy3oBrKmSgfASm9", Name: "get_weather", Args: `{"location":"San Francisco, CA","units":"f"}`}},
		Usage: &llm.Usage{InputTokens: 656, OutputTokens: 74, TotalTokens: 730}, Stop: llm.StopToolUse}
	if diff := cmp.Diff(want, first, cmpopts.IgnoreFields(result{}, "Err")); diff != "" || first.Err != nil {
		t.Fatalf("first response %v (-want +got):\n%s", first.Err, diff)
	}
	req.Timeline = append(req.Timeline, toolCall(t, "toolu_01A9HHF5Ezy3oBrKmSgfASm9", "get_weather",
		`{"location":"San Francisco, CA","units":"f"}`, "RuntimeError('Unexpected error, try again')", true))
	second := run(t, m, req)
	if second.Err != nil || second.Stop != llm.StopEnd || second.Text == "" {
		t.Fatalf("second response: %v", second)
	}
	checkRequests(t, s, ex, "tool-error-roundtrip")
}

// TestErrorBody replays a recorded 400.
func TestErrorBody(t *testing.T) {
	_, replies := wiretest.LoadExchanges(t, "anthropic-messages-error-400.json")
	replies[0].Header = http.Header{"X-Should-Retry": {"false"}}
	s := newServer(t, replies...)
	got := run(t, newModel(t, Config{BaseURL: s.URL}), nil)
	var api *llm.APIError
	if !errors.Is(got.Err, llm.ErrBadRequest) || !errors.As(got.Err, &api) {
		t.Fatalf("err = %v, want ErrBadRequest with an APIError", got.Err)
	}
	want := &llm.APIError{Provider: "anthropic", StatusCode: 400, Type: "invalid_request_error", RequestID: "req_011CYHyk9NPsBYeGbC9LuDNK",
		Message: "messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01GHndag5wQmbzNihYmV2UBj. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."}
	if diff := cmp.Diff(want, api); diff != "" {
		t.Errorf("APIError (-want +got):\n%s", diff)
	}
}
