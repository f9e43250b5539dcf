package uistream_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
	"github.com/ebbforge/adk/uistream"
)

// The AI SDK's own client code (chunk schema, readUIMessageStream,
// validateUIMessages) accepts both responses of a turn with an approval,
// and the message it builds holds what the turn did.
func TestAISDKConformance(t *testing.T) {
	url := serve(t, uistream.NewAISDK(scenario(t), nil))
	user := `{"id":"u1","role":"user","parts":[{"type":"text","text":"clean up"}]}`
	res, first := post(t, url, `{"id":"chat-1","trigger":"submit-message","messages":[`+user+`]}`)
	if got := res.Header.Get("x-vercel-ai-ui-message-stream"); got != "v1" {
		t.Errorf("protocol header %q", got)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	if strings.Contains(first, "<script>") {
		t.Error("tool output reached the stream unescaped")
	}
	if !strings.Contains(first, `"type":"tool-approval-request"`) {
		t.Fatalf("no approval request in\n%s", first)
	}
	// The client answers the approval as useChat's addToolApprovalResponse does.
	answered := runNode(t, "ai", "aisdk_check.cjs", "approve", file(t, "first.sse", first))
	msg := gjson.GetBytes(answered, "message").Raw
	_, second := post(t, url, `{"id":"chat-1","trigger":"submit-message","messages":[`+user+`,`+msg+`]}`)

	final := runNode(t, "ai", "aisdk_check.cjs", "approve", file(t, "first.sse", first), file(t, "second.sse", second))
	var got struct {
		Message struct {
			Role  string `json:"role"`
			Parts []struct {
				Type   string          `json:"type"`
				Text   string          `json:"text"`
				State  string          `json:"state"`
				Output json.RawMessage `json:"output"`
				Error  string          `json:"errorText"`
			} `json:"parts"`
		} `json:"message"`
	}
	if err := json.Unmarshal(final, &got); err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, p := range got.Message.Parts {
		s := p.Type
		switch {
		case p.Type == "text" || p.Type == "reasoning":
			s += " " + p.Text
		case strings.HasPrefix(p.Type, "tool-"):
			s += " " + p.State + " " + gjson.GetBytes(p.Output, "kind").String() + " " + firstLine(gjson.GetBytes(p.Output, "text").String()+gjson.GetBytes(p.Output, "handle").String())
		case p.Type == "data-loop-guard":
			s += " " + p.Type
		}
		summary = append(summary, strings.TrimSpace(s))
	}
	want := []string{
		"step-start",
		"reasoning Let me look.",
		"text Checking now.",
		"tool-lookup output-available text found a",
		"tool-evil output-available text <script>alert(1)</script>",
		"tool-dump output-available handle This result was too large to place here, so it was stored as an artifact.",
		"step-start",
		"tool-lookup output-error",
		"data-loop-guard data-loop-guard",
		"tool-rm output-available text removed /tmp/x",
		"step-start",
		"text All done.",
	}
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Errorf("message parts (-want +got):\n%s", diff)
	}
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// @ag-ui/core's schemas accept both runs of a turn with an approval: the
// first ends with an interrupt, the resume run completes the turn.
func TestAGUIConformance(t *testing.T) {
	url := serve(t, uistream.NewAGUI(scenario(t), nil))
	body1 := `{"threadId":"th-1","runId":"run-1","messages":[{"id":"u1","role":"user","content":"clean up"}],"tools":[],"context":[],"state":{}}`
	_, first := post(t, url, body1)
	if strings.Contains(first, "<script>") {
		t.Error("tool output reached the stream unescaped")
	}
	var interrupt string
	for _, line := range strings.Split(first, "\n") {
		if strings.HasPrefix(line, "data: ") && gjson.Get(line[6:], "type").String() == "RUN_FINISHED" {
			interrupt = gjson.Get(line[6:], "outcome.interrupts.0.id").String()
		}
	}
	if interrupt == "" {
		t.Fatalf("no interrupt in\n%s", first)
	}
	body2 := `{"threadId":"th-1","runId":"run-2","messages":[{"id":"u1","role":"user","content":"clean up"}],"tools":[],"context":[],` +
		`"resume":[{"interruptId":"` + interrupt + `","status":"resolved","payload":{"approved":true}}]}`
	_, second := post(t, url, body2)
	out := runNode(t, "@ag-ui/core", "agui_check.cjs", "--input", file(t, "b1.json", body1), "--input", file(t, "b2.json", body2),
		file(t, "first.sse", first), file(t, "second.sse", second))
	res := gjson.ParseBytes(out)
	if got := res.Get("finals.0.outcome.type").String(); got != "interrupt" {
		t.Errorf("first run ends with %s", res.Get("finals.0").Raw)
	}
	if got := res.Get("finals.1.outcome.type").String(); got != "success" {
		t.Errorf("second run ends with %s", res.Get("finals.1").Raw)
	}
	types := res.Get("events.0").Raw + res.Get("events.1").Raw
	for _, want := range []string{"REASONING_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TOOL_CALL_START", "TOOL_CALL_RESULT", "CUSTOM", "STEP_STARTED"} {
		if !strings.Contains(types, want) {
			t.Errorf("no %s among %s", want, types)
		}
	}
	if !strings.Contains(second, `removed /tmp/x`) || !strings.Contains(second, `"delta":"All "`) {
		t.Errorf("the resumed run did not finish the turn:\n%s", second)
	}
	if !strings.Contains(first, `\u003cscript\u003ealert(1)\u003c/script\u003e`) {
		t.Errorf("the evil result is missing or not escaped:\n%s", first)
	}
}

// A failing turn ends as a protocol error that both packages accept.
func TestErrorsAsProtocolEvents(t *testing.T) {
	failing := func(t *testing.T) *turnrunner.Runner {
		r, err := turnrunner.New(scripted.New(scripted.Step{Text: []string{"partial <i>"}, Err: errors.New("upstream reset")}),
			&turnrunner.Options{Retry: llm.RetryPolicy{MaxAttempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Run("aisdk", func(t *testing.T) {
		_, body := post(t, serve(t, uistream.NewAISDK(failing(t), nil)), chat)
		if !strings.Contains(body, `"type":"error","errorText":"E_`) || !strings.Contains(body, "upstream reset") || !strings.Contains(body, `"finishReason":"error"`) {
			t.Fatalf("stream:\n%s", body)
		}
		// The failed response's text part is ended before the error.
		if end, errAt := strings.Index(body, `"type":"text-end"`), strings.Index(body, `"type":"error"`); end < 0 || end > errAt {
			t.Errorf("text-end at %d, error at %d:\n%s", end, errAt, body)
		}
		out := runNode(t, "ai", "aisdk_check.cjs", "error", file(t, "s.sse", body))
		if errs := gjson.GetBytes(out, "errors").String(); !strings.Contains(errs, "upstream reset") {
			t.Errorf("client errors %s", errs)
		}
	})
	t.Run("agui", func(t *testing.T) {
		_, body := post(t, serve(t, uistream.NewAGUI(failing(t), nil)), run)
		if end, errAt := strings.Index(body, `"TEXT_MESSAGE_END"`), strings.Index(body, `"RUN_ERROR"`); end < 0 || end > errAt {
			t.Errorf("TEXT_MESSAGE_END at %d, RUN_ERROR at %d:\n%s", end, errAt, body)
		}
		out := runNode(t, "@ag-ui/core", "agui_check.cjs", file(t, "s.sse", body))
		final := gjson.GetBytes(out, "finals.0")
		if final.Get("type").String() != "RUN_ERROR" || !strings.HasPrefix(final.Get("code").String(), "E_") || !strings.Contains(final.Get("message").String(), "upstream reset") {
			t.Fatalf("final event %s", final.Raw)
		}
	})
}
