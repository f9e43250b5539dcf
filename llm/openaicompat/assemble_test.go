package openaicompat

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ebbforge/adk/llm"
)

// frame frames data payloads as an event stream ending in [DONE].
func frame(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// TestToolDeltaAssembly covers the ways servers stream tool calls.
func TestToolDeltaAssembly(t *testing.T) {
	tc := func(s string) string { return `{"choices":[{"index":0,"delta":{"tool_calls":[` + s + `]}}]}` }
	finish := func(r string) string { return `{"choices":[{"index":0,"delta":{},"finish_reason":"` + r + `"}]}` }
	tests := []struct {
		name string
		in   string
		want []call
		stop llm.StopReason
	}{
		{"fragments by index", frame(
			tc(`{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}`),
			tc(`{"index":0,"function":{"arguments":"{\"x\""}}`),
			tc(`{"index":0,"function":{"arguments":":1}"}}`),
			finish("tool_calls")),
			[]call{{ID: "a", Name: "f", Args: `{"x":1}`}}, llm.StopToolUse},
		{"interleaved indexes", frame(
			tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}`),
			tc(`{"index":1,"id":"b","function":{"name":"g","arguments":"{\"y\":"}}`),
			tc(`{"index":0,"function":{"arguments":"1}"}}`),
			tc(`{"index":1,"function":{"arguments":"2}"}}`),
			finish("tool_calls")),
			[]call{{ID: "a", Name: "f", Args: `{"x":1}`}, {ID: "b", Name: "g", Args: `{"y":2}`}}, llm.StopToolUse},
		{"index reused with new ids", frame(
			tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":1}"}}`),
			tc(`{"index":0,"id":"b","function":{"name":"g","arguments":"{\"y\":"}}`),
			tc(`{"index":0,"function":{"arguments":"2}"}}`),
			finish("tool_calls")),
			[]call{{ID: "a", Name: "f", Args: `{"x":1}`}, {ID: "b", Name: "g", Args: `{"y":2}`}}, llm.StopToolUse},
		{"id repeated on later deltas", frame(
			tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}`),
			tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"1}"}}`),
			finish("tool_calls")),
			[]call{{ID: "a", Name: "f", Args: `{"x":1}`}}, llm.StopToolUse},
		{"no index, ids", frame(
			tc(`{"id":"a","function":{"name":"f","arguments":"{\"x\":1}"}}`),
			tc(`{"id":"b","function":{"name":"g","arguments":"{}"}}`),
			finish("stop")),
			[]call{{ID: "a", Name: "f", Args: `{"x":1}`}, {ID: "b", Name: "g", Args: `{}`}}, llm.StopToolUse},
		{"no index, bare fragments continue", frame(
			tc(`{"id":"a","function":{"name":"f","arguments":"{\"x\""}}`),
			tc(`{"function":{"arguments":":1}"}}`),
			finish("tool_calls")),
			[]call{{ID: "a", Name: "f", Args: `{"x":1}`}}, llm.StopToolUse},
		{"neither index nor id", frame(
			tc(`{"function":{"name":"f","arguments":"{}"}}`),
			tc(`{"function":{"name":"g","arguments":"{}"}}`),
			finish("tool_calls")),
			[]call{{ID: "gen0", Name: "f", Args: `{}`}, {ID: "gen1", Name: "g", Args: `{}`}}, llm.StopToolUse},
		{"empty arguments", frame(
			tc(`{"index":0,"id":"a","function":{"name":"f","arguments":""}}`),
			tc(`{"index":0,"function":{"arguments":""}}`),
			finish("tool_calls")),
			[]call{{ID: "a", Name: "f", Args: ``}}, llm.StopToolUse},
		{"arguments as an object", frame(
			tc(`{"index":0,"id":"a","function":{"name":"f","arguments":{"x":1}}}`),
			finish("tool_calls")),
			[]call{{ID: "a", Name: "f", Args: `{"x":1}`}}, llm.StopToolUse},
		{"cut off by length", frame(
			tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}}`),
			finish("length")),
			[]call{{ID: "a", Name: "f", Args: `INVALID {"x"`}}, llm.StopMaxTokens},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, sseReply(tt.in))
			m := newModel(t, Config{BaseURL: s.URL})
			got := run(t, m, nil)
			if got.Err != nil {
				t.Fatal(got.Err)
			}
			ignoreGenerated := cmp.Comparer(func(a, b string) bool {
				return a == b || strings.HasPrefix(a, "gen") && strings.HasPrefix(b, "call_") || strings.HasPrefix(b, "gen") && strings.HasPrefix(a, "call_")
			})
			if diff := cmp.Diff(tt.want, got.Calls, ignoreGenerated); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if len(got.Calls) == 2 && got.Calls[0].ID == got.Calls[1].ID {
				t.Errorf("two calls share id %q", got.Calls[0].ID)
			}
			if got.Stop != tt.stop {
				t.Errorf("stop = %q, want %q", got.Stop, tt.stop)
			}
		})
	}
}

// TestStreamShapes covers text, reasoning and usage quirks.
func TestStreamShapes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want result
	}{
		{"usage twice, last wins", frame(
			`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
			`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`),
			result{Text: "hi", Usage: &llm.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}, Stop: llm.StopEnd}},
		{"empty choices first, comments", ": keepalive\n\n" + frame(
			`{"id":"","choices":[],"prompt_filter_results":[]}`,
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"a"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}`),
			result{Text: "ab", Stop: llm.StopEnd}},
		{"reasoning_content wins over reasoning", frame(
			`{"choices":[{"index":0,"delta":{"reasoning_content":"r1","reasoning":"x"}}]}`,
			`{"choices":[{"index":0,"delta":{"reasoning":"r2"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
			result{Reasoning: "r1r2", Text: "ok", Stop: llm.StopEnd}},
		{"content filter", frame(`{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}`),
			result{Stop: llm.StopContentFilter}},
		{"gemini thought signature on a call", frame(
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"sig=="}}}]},"finish_reason":"tool_calls"}]}`),
			result{Calls: []call{{ID: "c1", Name: "f", Args: "{}", Payload: `{"google":{"thought_signature":"sig=="}}`}}, Stop: llm.StopToolUse}},
		{"finish without [DONE]", `data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}` + "\n\n",
			result{Text: "a", Stop: llm.StopEnd}},
		{"CRLF and CR", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\n\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\r\rdata: [DONE]\r\r",
			result{Text: "ab", Stop: llm.StopEnd}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, sseReply(tt.in))
			got := run(t, newModel(t, Config{BaseURL: s.URL}), nil)
			if got.Err != nil {
				t.Fatal(got.Err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(result{}, "Err")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
