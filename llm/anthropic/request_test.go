package anthropic

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
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

// TestRedactedThinkingRoundTrip: a redacted_thinking block arrives whole
// and goes back verbatim, in its place before the tool call.
func TestRedactedThinkingRoundTrip(t *testing.T) {
	s := newServer(t,
		sseReply(events(
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"}}`,
			"content_block_stop", `{"type":"content_block_stop","index":0}`,
			"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}}`,
			"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
			"content_block_stop", `{"type":"content_block_stop","index":1}`,
			"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`,
			"message_stop", `{"type":"message_stop"}`)),
		sseReply(events("message_stop", `{"type":"message_stop"}`)))
	m := newModel(t, Config{BaseURL: s.URL, ThinkingBudget: 1024})
	req := &llm.Request{Tools: []forge.Definition{weatherTool}, Timeline: []dispatch.Entry{userMessage(t, "u1", "hi")}}
	first := run(t, m, req)
	if first.Err != nil || len(first.Payloads) != 1 || len(first.Calls) != 1 || first.Calls[0].Args != "" {
		t.Fatalf("first: %v", first)
	}
	payload := first.Payloads[0][len(ReplayThinking)+1:]
	req.Timeline = append(req.Timeline, thought(t, wireThought{"", payload, ReplayThinking}),
		toolCall(t, "toolu_1", "weather", `{}`, "sunny", false))
	if got := run(t, m, req); got.Err != nil {
		t.Fatal(got.Err)
	}
	want := `{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"},{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}]}`
	if body := string(s.Body(1)); !strings.Contains(body, want) {
		t.Errorf("second request lacks %s:\n%s", want, body)
	}
}

func events(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString("event: " + pairs[i] + "\ndata: " + pairs[i+1] + "\n\n")
	}
	return b.String()
}

// TestAttachments: images and PDFs go inline as base64 inside their
// envelopes; other media are refused, or described under MediaDescribe.
func TestAttachments(t *testing.T) {
	s := newServer(t, sseReply(events("message_stop", `{"type":"message_stop"}`)))
	entry := wiretest.AttachmentMessage(t)
	req := &llm.Request{Timeline: []dispatch.Entry{entry}}
	if got := run(t, newModel(t, Config{BaseURL: s.URL}), req); !errors.Is(got.Err, llm.ErrUnsupportedMedia) {
		t.Fatalf("err = %v, want ErrUnsupportedMedia for the audio", got.Err)
	}
	if got := run(t, newModel(t, Config{BaseURL: s.URL, Renderer: llm.Renderer{Unsupported: llm.MediaDescribe}}), req); got.Err != nil {
		t.Fatal(got.Err)
	}
	atts := entry.Message.Attachments()
	text := func(s string) string { return string(raw(textBlock{"text", s})) }
	open := func(kind, mime string) string {
		return `<untrusted_content_N kind="message-media" modality="` + kind + `" mime="` + mime + `">` + "\n"
	}
	want := "[" + strings.Join([]string{
		text("What is this?"),
		text(atts[0].Marker() + "\n" + open("image", "image/png")),
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"YWJj"}}`,
		text("\n</untrusted_content_N>"),
		text(atts[1].Marker() + "\n[media: b.wav, audio/wav, 3 bytes]"),
		text(atts[2].Marker() + "\n" + open("document", "application/pdf")),
		`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"YWJj"}}`,
		text("\n</untrusted_content_N>"),
	}, ",") + "]"
	var body struct {
		Messages []struct{ Content json.RawMessage }
	}
	if err := json.Unmarshal(s.Body(0), &body); err != nil || len(body.Messages) != 1 {
		t.Fatalf("body: %v\n%s", err, s.Body(0))
	}
	got := regexp.MustCompile(`content_[0-9a-f]{16}`).ReplaceAllString(string(body.Messages[0].Content), "content_N")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user content (-want +got):\n%s", diff)
	}
}
