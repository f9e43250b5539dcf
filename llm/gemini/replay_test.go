package gemini

import (
	"bytes"
	"encoding/json"
	"flag"
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

const recordedSignature = "CloBvj72+4/aTlyeodvVsF6WQseQLaqynO0Ocu6hCxSIV1rJCGFv67dtpjtFqWaborKte+82ZXWG2DaoPZaL+k7ONU3tUVwUXH0yI3ADtb46NJAqGWp2V/Ht3uMKhQEBvj72+53r7rtJS2JS+RSr/gNHTgRy4DDPTPtEEj+K6F4GFNMQEXVmXPYPa87j/74GGwi14Qwvde1kfemWz/+cRwpf2EDDKELVYuZ56LWb6pmPj4kyXPBERjn3dCiTrAhaysdd21dD0/t3xSXCKNFbPTDjK6IeGzqAGRFeL5D37oKPrh2N"

// normalize parses a request body into one form: the recorded client gave
// the system instruction a role and named a function response's value
// "result" (the API's documented key is "output"), and sent tool results
// without envelopes.
func normalize(t *testing.T, body []byte) any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if si, ok := v["systemInstruction"].(map[string]any); ok {
		delete(si, "role")
	}
	for _, c := range v["contents"].([]any) {
		for _, p := range c.(map[string]any)["parts"].([]any) {
			fr, ok := p.(map[string]any)["functionResponse"].(map[string]any)
			if !ok {
				continue
			}
			resp := fr["response"].(map[string]any)
			if r, ok := resp["result"]; ok {
				delete(resp, "result")
				resp["output"] = r
			}
			if s, ok := resp["output"].(string); ok {
				resp["output"] = wiretest.Unwrap(s)
			}
		}
	}
	return v
}

var intArgs = `{"type":"object","properties":{"a":{"type":"integer","description":"first number"},"b":{"type":"integer","description":"second number"}},"required":["a","b"],"additionalProperties":false}`

// recordedTools are the tools of the recorded conversation.
var recordedTools = []forge.Definition{
	{Name: "add", Description: "Add two numbers", Parameters: json.RawMessage(intArgs)},
	{Name: "multiply", Description: "Multiply two numbers", Parameters: json.RawMessage(intArgs)},
}

const recordedSystem = "You are a helpful assistant. Always use both add and multiply at the same time."

// TestReplayRecording replays the recorded two-request conversation: two
// whole function calls without ids in one CRLF-framed chunk, the first
// signed; then the function responses and the signed calls go back, and
// the final answer streams in three chunks. The requests sent must match
// the recorded ones and their golden files.
func TestReplayRecording(t *testing.T) {
	ex, replies := wiretest.LoadExchanges(t, "gemini-stream-function-calls-roundtrip.json")
	s := newServer(t, replies...)
	m := newModel(t, Config{BaseURL: s.URL, Model: "gemini-2.5-flash", MaxTokens: 4000, ToolChoice: "auto"})
	req := &llm.Request{System: recordedSystem, Tools: recordedTools,
		Timeline: []dispatch.Entry{userMessage(t, "u1", "Add and multiply the number 2 and 3")}}

	first := run(t, m, req)
	signed := `{"thoughtSignature":"` + recordedSignature + `"}`
	want := result{
		Calls: []call{
			{ID: "1", Name: "add", Args: `{"a":2,"b":3}`, Payload: signed},
			{ID: "2", Name: "multiply", Args: `{"a":2,"b":3}`},
		},
		Usage: &llm.Usage{InputTokens: 121, OutputTokens: 74, TotalTokens: 195, ReasoningTokens: 38},
		Stop:  llm.StopToolUse,
	}
	if diff := cmp.Diff(want, first, cmpopts.IgnoreFields(result{}, "Err")); diff != "" || first.Err != nil {
		t.Fatalf("first response %v (-want +got):\n%s", first.Err, diff)
	}

	req.Timeline = append(req.Timeline,
		toolCall(t, "1", "add", `{"b":3,"a":2}`, "5", false, signed, ReplaySignature),
		toolCall(t, "2", "multiply", `{"a":2,"b":3}`, "6", false, "", ""))
	second := run(t, m, req)
	want = result{Text: "The sum of 2 and 3 is 5. The product of 2 and 3 is 6.",
		Usage: &llm.Usage{InputTokens: 218, OutputTokens: 22, TotalTokens: 240}, Stop: llm.StopEnd}
	if diff := cmp.Diff(want, second, cmpopts.IgnoreFields(result{}, "Err")); diff != "" || second.Err != nil {
		t.Fatalf("second response %v (-want +got):\n%s", second.Err, diff)
	}

	for i, e := range ex {
		sent := s.Body(i)
		if diff := cmp.Diff(normalize(t, []byte(wiretest.BodyText(e.Request.Body))), normalize(t, sent)); diff != "" {
			t.Errorf("request %d (-recorded +sent):\n%s", i, diff)
		}
		var out bytes.Buffer
		if err := json.Indent(&out, sent, "", "  "); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "roundtrip-request-"+string(rune('1'+i)), out.String()+"\n", *update)
	}
}
