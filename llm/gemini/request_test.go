package gemini

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
	"github.com/ebbforge/adk/media"
)

var weatherTool = forge.Definition{Name: "weather", Description: "Current weather",
	Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

// TestEndpoint: the method and alt=sse are in the URL, the key only in
// the x-goog-api-key header.
func TestEndpoint(t *testing.T) {
	var mu sync.Mutex
	var urls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		urls = append(urls, r.URL.String()+" key="+r.Header.Get("x-goog-api-key")+" accept="+r.Header.Get("Accept"))
		mu.Unlock()
		body := chunk(`{"text":"hi"}`, `,"finishReason":"STOP"`, "")
		if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "text/event-stream")
			body = "data: " + body + "\r\n\r\n"
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	for _, tt := range []struct {
		model    string
		noStream bool
	}{{"models/gemini-2.5-flash", false}, {"gemini-2.5-flash", true}, {"tunedModels/mine", false}} {
		m := newModel(t, Config{BaseURL: srv.URL + "/v1beta/", APIKey: "k", Model: tt.model, NoStream: tt.noStream})
		if got := run(t, m, nil); got.Err != nil || got.Text != "hi" || got.Stop != llm.StopEnd {
			t.Fatalf("%+v: %v", tt, got)
		}
	}
	want := []string{
		"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse key=k accept=text/event-stream",
		"/v1beta/models/gemini-2.5-flash:generateContent key=k accept=",
		"/v1beta/tunedModels/mine:streamGenerateContent?alt=sse key=k accept=text/event-stream",
	}
	if diff := cmp.Diff(want, urls); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if _, err := New(Config{}); !errors.Is(err, ErrConfig) {
		t.Errorf("New without a model: %v", err)
	}
}

// TestDecode checks what responses assemble to.
func TestDecode(t *testing.T) {
	sig := func(s string, onText bool) string {
		return string(payload(signature{ThoughtSignature: s, OnText: onText}))
	}
	tests := []struct {
		name   string
		chunks []string
		want   result
	}{
		{"thoughts then text, signature on an empty text part", []string{
			chunk(`{"text":"Let me ","thought":true}`, "", ""),
			chunk(`{"text":"think.","thought":true},{"text":"Hello"}`, "", ""),
			chunk(`{"text":" there"}`, "", ""),
			chunk(`{"text":"","thoughtSignature":"dGV4dA=="}`, `,"finishReason":"STOP"`,
				`,"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"thoughtsTokenCount":7,"cachedContentTokenCount":3,"totalTokenCount":14}`),
		}, result{Text: "Hello there", Reasoning: "Let me think.", Payloads: []string{"gemini " + sig("dGV4dA==", true)},
			Usage: &llm.Usage{InputTokens: 5, OutputTokens: 9, TotalTokens: 14, CachedTokens: 3, ReasoningTokens: 7}, Stop: llm.StopEnd}},
		{"a signed thought, a call with an id and one with no args", []string{
			chunk(`{"text":"Plan.","thought":true,"thoughtSignature":"dGg="},{"functionCall":{"id":"fc_9","name":"weather","args":{"city":"Rome"}}},{"functionCall":{"name":"clock"}}`, `,"finishReason":"STOP"`, ""),
		}, result{Reasoning: "Plan.", Payloads: []string{"gemini " + sig("dGg=", false)},
			Calls: []call{{ID: "fc_9", Name: "weather", Args: `{"city":"Rome"}`}, {ID: "1", Name: "clock", Args: `{}`}}, Stop: llm.StopToolUse}},
		{"max tokens", []string{chunk(`{"text":"Once upon"}`, `,"finishReason":"MAX_TOKENS"`, "")},
			result{Text: "Once upon", Stop: llm.StopMaxTokens}},
		{"safety", []string{chunk(`{"text":"Well"}`, "", ""), `{"candidates":[{"finishReason":"SAFETY","index":0,"safetyRatings":[]}]}`},
			result{Text: "Well", Stop: llm.StopContentFilter}},
		{"malformed function call", []string{`{"candidates":[{"content":{},"finishReason":"MALFORMED_FUNCTION_CALL"}]}`},
			result{Stop: llm.StopOther}},
		{"usage: the last wins", []string{
			chunk(`{"text":"a"}`, "", `,"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6}`),
			chunk(`{"text":"b"}`, `,"finishReason":"STOP"`, `,"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2}`),
		}, result{Text: "ab", Usage: &llm.Usage{InputTokens: 5, OutputTokens: 2, TotalTokens: 7}, Stop: llm.StopEnd}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, sseReply(frame(tt.chunks...)))
			got := run(t, newModel(t, Config{BaseURL: s.URL}), nil)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(result{}, "Err")); diff != "" || got.Err != nil {
				t.Errorf("%v (-want +got):\n%s", got.Err, diff)
			}
		})
	}
}

// TestReplay: signatures go back on the part they came with, thoughts
// without one (and other providers' opaque data) do not, and a call with
// arguments that are not an object goes back with {}.
func TestReplay(t *testing.T) {
	s := newServer(t, sseReply(frame(chunk(`{"text":"ok"}`, `,"finishReason":"STOP"`, ""))))
	req := &llm.Request{Tools: []forge.Definition{weatherTool}, Timeline: []dispatch.Entry{
		userMessage(t, "u1", "hi"),
		inResponse("r1", thought(t, "Unsigned summary.", "", "")),
		inResponse("r1", thought(t, "Signed.", `{"thoughtSignature":"dGg="}`, ReplaySignature)),
		inResponse("r1", thought(t, "", `{"type":"thinking","signature":"x"}`, "anthropic.thinking")),
		inResponse("r1", assistantMessage(t, "a1", "Hello")),
		inResponse("r1", thought(t, "", `{"thoughtSignature":"dGV4dA==","onText":true}`, ReplaySignature)),
		userMessage(t, "u2", "weather?"),
		inResponse("r2", toolCall(t, "1", "weather", `{"city":"Rome"}`, "sunny", false, `{"thoughtSignature":"Y2FsbA=="}`, ReplaySignature)),
		inResponse("r2", toolCall(t, "2", "weather", `{}`, "failed", true, "", "")),
		userMessage(t, "u3", "and now?"),
		inResponse("r3", thought(t, "", `{"thoughtSignature":"b25seQ==","onText":true}`, ReplaySignature)),
	}}
	if got := run(t, newModel(t, Config{BaseURL: s.URL, ToolChoice: "weather"}), req); got.Err != nil {
		t.Fatal(got.Err)
	}
	var body struct {
		Contents   []json.RawMessage
		ToolConfig json.RawMessage
	}
	if err := json.Unmarshal(s.Body(0), &body); err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(body.Contents))
	for i, c := range body.Contents {
		got[i] = regexp.MustCompile(`content_[0-9a-f]{16}`).ReplaceAllString(string(c), "content_N")
	}
	envelope := func(tool, text string) string {
		return `\u003cuntrusted_content_N kind=\"tool-result\" tool=\"` + tool + `\"\u003e\n` + text + `\n\u003c/untrusted_content_N\u003e`
	}
	want := []string{
		`{"role":"user","parts":[{"text":"hi"}]}`,
		`{"role":"model","parts":[{"text":"Signed.","thought":true,"thoughtSignature":"dGg="},{"text":"Hello","thoughtSignature":"dGV4dA=="}]}`,
		`{"role":"user","parts":[{"text":"weather?"}]}`,
		`{"role":"model","parts":[{"functionCall":{"id":"1","name":"weather","args":{"city":"Rome"}},"thoughtSignature":"Y2FsbA=="},{"functionCall":{"id":"2","name":"weather","args":{}}}]}`,
		`{"role":"user","parts":[{"functionResponse":{"id":"1","name":"weather","response":{"output":"` + envelope("weather", "sunny") + `"}}},{"functionResponse":{"id":"2","name":"weather","response":{"error":"` + envelope("weather", "failed") + `"}}}]}`,
		`{"role":"user","parts":[{"text":"and now?"}]}`,
		`{"role":"model","parts":[{"text":"","thoughtSignature":"b25seQ=="}]}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
	if s := string(body.ToolConfig); s != `{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["weather"]}}` {
		t.Errorf("toolConfig = %s", s)
	}
}

func inResponse(id string, e dispatch.Entry) dispatch.Entry {
	e.ResponseID = id
	return e
}

// TestFinalRequestDeclaresCalledTools: on the last iteration no tools are
// offered, yet the history holds function calls: they are declared by
// name with calling off.
func TestFinalRequestDeclaresCalledTools(t *testing.T) {
	s := newServer(t, sseReply(frame(chunk(`{"text":"ok"}`, `,"finishReason":"STOP"`, ""))))
	req := &llm.Request{Final: true, Tools: []forge.Definition{weatherTool}, Timeline: []dispatch.Entry{userMessage(t, "u1", "hi"),
		toolCall(t, "1", "weather", `{"city":"Paris"}`, "sunny", false, "", "")}}
	temp := 0.5
	req.Options = llm.ModelOptions{MaxTokens: 100, Temperature: &temp, Extra: json.RawMessage(`{"safetySettings":[]}`)}
	budget := 0
	if got := run(t, newModel(t, Config{BaseURL: s.URL, MaxTokens: 9, ThinkingBudget: &budget}), req); got.Err != nil {
		t.Fatal(got.Err)
	}
	body := string(s.Body(0))
	for _, want := range []string{
		`"tools":[{"functionDeclarations":[{"name":"weather"}]}],"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}`,
		`"generationConfig":{"maxOutputTokens":100,"temperature":0.5,"thinkingConfig":{"thinkingBudget":0}}`,
		`"safetySettings":[]`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s:\n%s", want, body)
		}
	}
}

// TestAttachments: images, audio and PDFs go inline inside their
// envelopes; a model without audio refuses it, or describes it under
// MediaDescribe.
func TestAttachments(t *testing.T) {
	s := newServer(t, sseReply(frame(chunk(`{"text":"ok"}`, `,"finishReason":"STOP"`, ""))),
		sseReply(frame(chunk(`{"text":"ok"}`, `,"finishReason":"STOP"`, ""))))
	entry := wiretest.AttachmentMessage(t)
	req := &llm.Request{Timeline: []dispatch.Entry{entry}}
	if got := run(t, newModel(t, Config{BaseURL: s.URL}), req); got.Err != nil {
		t.Fatal(got.Err)
	}
	atts := entry.Message.Attachments()
	text := func(s string) string { b, _ := json.Marshal(textPart(s)); return string(b) }
	open := func(kind, mime string) string {
		return `<untrusted_content_N kind="message-media" modality="` + kind + `" mime="` + mime + `">` + "\n"
	}
	inline := func(mime string) string { return `{"inlineData":{"mimeType":"` + mime + `","data":"YWJj"}}` }
	closing := text("\n</untrusted_content_N>")
	want := "[" + strings.Join([]string{
		text("What is this?"),
		text(atts[0].Marker() + "\n" + open("image", "image/png")), inline("image/png"), closing,
		text(atts[1].Marker() + "\n" + open("audio", "audio/wav")), inline("audio/wav"), closing,
		text(atts[2].Marker() + "\n" + open("document", "application/pdf")), inline("application/pdf"), closing,
	}, ",") + "]"
	var body struct {
		Contents []struct{ Parts json.RawMessage }
	}
	if err := json.Unmarshal(s.Body(0), &body); err != nil || len(body.Contents) != 1 {
		t.Fatalf("body: %v\n%s", err, s.Body(0))
	}
	got := regexp.MustCompile(`content_[0-9a-f]{16}`).ReplaceAllString(string(body.Contents[0].Parts), "content_N")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user parts (-want +got):\n%s", diff)
	}
	noAudio := llm.Renderer{Accepts: []media.Kind{media.KindImage}}
	if got := run(t, newModel(t, Config{BaseURL: s.URL, Renderer: noAudio}), req); !errors.Is(got.Err, llm.ErrUnsupportedMedia) {
		t.Fatalf("err = %v, want ErrUnsupportedMedia for the audio", got.Err)
	}
	noAudio.Unsupported = llm.MediaDescribe
	if got := run(t, newModel(t, Config{BaseURL: s.URL, Renderer: noAudio}), req); got.Err != nil {
		t.Fatal(got.Err)
	}
	if !strings.Contains(string(s.Body(1)), `[media: b.wav, audio/wav, 3 bytes]`) {
		t.Errorf("the audio is not described:\n%s", s.Body(1))
	}
}
