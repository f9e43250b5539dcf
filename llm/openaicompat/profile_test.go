package openaicompat

import (
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

// TestProfilesReplay sends the same history (a response that reasoned and
// called a tool, with OpenRouter reasoning_details and a Gemini thought
// signature) to each profile; the golden bodies show what each server gets
// back: reasoning_content for DeepSeek and llama.cpp, reasoning_details for OpenRouter,
// extra_content for Gemini, and none of them for the others (Groq rejects
// reasoning fields).
func TestProfilesReplay(t *testing.T) {
	thought := func(text, payload, compat string) dispatch.Entry {
		th, err := dispatch.NewThought(dispatch.RawThought{ID: "th-" + compat, Content: forge.NewTokenizable(text),
			Payload: json.RawMessage(payload), ReplayCompatibility: compat})
		if err != nil {
			t.Fatal(err)
		}
		return dispatch.Entry{Thought: th}
	}
	call := wiretest.ToolCall(t, wiretest.CallSpec{ID: "call_1", Tool: "weather", Args: `{"city":"Paris"}`, Result: "sunny",
		Payload: `{"google":{"thought_signature":"c2ln"}}`, Compat: ReplayExtraContent}).ToolCall
	timeline := []dispatch.Entry{
		userMessage(t, "u1", "Weather in Paris?"),
		thought("I should call the tool.", "", ""),
		thought("", `[{"type":"reasoning.text","text":"I should call the tool.","signature":"c2ln"}]`, ReplayReasoningDetails),
		{ToolCall: call},
	}
	for _, p := range []Profile{OpenAI, Ollama, VLLM, LlamaCpp, Groq, OpenRouter, DeepSeek, Gemini, Generic} {
		t.Run(p.Name, func(t *testing.T) {
			s := newServer(t, sseReply(`data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`+"\n\n"))
			m := newModel(t, Config{BaseURL: s.URL, Profile: &p})
			if got := run(t, m, &llm.Request{Timeline: timeline, Options: llm.ModelOptions{MaxTokens: 100}}); got.Err != nil {
				t.Fatal(got.Err)
			}
			checkGolden(t, "profile-"+p.Name, s.Body(0))
		})
	}
}

// TestAttachments: images go inline as data URLs inside their envelopes;
// other media are refused, or described under MediaDescribe.
func TestAttachments(t *testing.T) {
	s := newServer(t, sseReply(`data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`+"\n\n"))
	entry := wiretest.AttachmentMessage(t)
	req := &llm.Request{Timeline: []dispatch.Entry{entry}}
	if got := run(t, newModel(t, Config{BaseURL: s.URL}), req); !errors.Is(got.Err, llm.ErrUnsupportedMedia) {
		t.Fatalf("err = %v, want ErrUnsupportedMedia for the audio", got.Err)
	}
	if got := run(t, newModel(t, Config{BaseURL: s.URL, Renderer: llm.Renderer{Unsupported: llm.MediaDescribe}}), req); got.Err != nil {
		t.Fatal(got.Err)
	}
	var body struct {
		Messages []struct {
			Content []contentPart
		}
	}
	if err := json.Unmarshal(s.Body(0), &body); err != nil || len(body.Messages) != 1 {
		t.Fatalf("body: %v\n%s", err, s.Body(0))
	}
	atts := entry.Message.Attachments()
	want := []contentPart{
		{Type: "text", Text: "What is this?"},
		{Type: "text", Text: atts[0].Marker() + "\n<untrusted_content_N kind=\"message-media\" modality=\"image\" mime=\"image/png\">\n"},
		{Type: "image_url", ImageURL: &imageURL{URL: "data:image/png;base64,YWJj"}},
		{Type: "text", Text: "\n</untrusted_content_N>"},
		{Type: "text", Text: atts[1].Marker() + "\n[media: b.wav, audio/wav, 3 bytes]"},
		{Type: "text", Text: atts[2].Marker() + "\n[media: c.pdf, application/pdf, 3 bytes]"},
	}
	nonce := regexp.MustCompile(`content_[0-9a-f]{16}`)
	for i := range body.Messages[0].Content {
		p := &body.Messages[0].Content[i]
		p.Text = nonce.ReplaceAllString(p.Text, "content_N")
	}
	if diff := cmp.Diff(want, body.Messages[0].Content); diff != "" {
		t.Errorf("user content (-want +got):\n%s", diff)
	}
}

// TestNamedToolChoice: a choice naming a tool goes as a named tool_choice,
// except to llama.cpp, which reads only the string forms: it gets
// "required" with only that tool offered (unless the tool is not offered).
func TestNamedToolChoice(t *testing.T) {
	tools := []forge.Definition{{Name: "weather"}, {Name: "clock"}}
	tests := []struct {
		profile        Profile
		choice         string
		wantChoice     string
		wantToolsNamed []string
	}{
		{Generic, "clock", `{"function":{"name":"clock"},"type":"function"}`, []string{"weather", "clock"}},
		{VLLM, "clock", `{"function":{"name":"clock"},"type":"function"}`, []string{"weather", "clock"}},
		{LlamaCpp, "clock", `"required"`, []string{"clock"}},
		{LlamaCpp, "auto", `"auto"`, []string{"weather", "clock"}},
		{LlamaCpp, "gone", `{"function":{"name":"gone"},"type":"function"}`, []string{"weather", "clock"}},
	}
	for _, tt := range tests {
		t.Run(tt.profile.Name+" "+tt.choice, func(t *testing.T) {
			s := newServer(t, sseReply("data: [DONE]\n\n"))
			p := tt.profile
			m := newModel(t, Config{BaseURL: s.URL, Profile: &p, ToolChoice: tt.choice})
			run(t, m, &llm.Request{Tools: tools, Timeline: []dispatch.Entry{userMessage(t, "u1", "hi")}})
			var body struct {
				ToolChoice json.RawMessage `json:"tool_choice"`
				Tools      []struct{ Function struct{ Name string } }
			}
			if err := json.Unmarshal(s.Body(0), &body); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range body.Tools {
				names = append(names, tl.Function.Name)
			}
			if string(body.ToolChoice) != tt.wantChoice || !cmp.Equal(names, tt.wantToolsNamed) {
				t.Errorf("tool_choice %s, tools %v; want %s, %v", body.ToolChoice, names, tt.wantChoice, tt.wantToolsNamed)
			}
		})
	}
}

// TestReasoningFields: vLLM streams reasoning as "reasoning" since 0.11 and
// as "reasoning_content" before, llama.cpp as "reasoning_content"; both
// read as reasoning under their profiles.
func TestReasoningFields(t *testing.T) {
	for _, tt := range []struct {
		profile Profile
		field   string
	}{{VLLM, "reasoning"}, {VLLM, "reasoning_content"}, {LlamaCpp, "reasoning_content"}} {
		t.Run(tt.profile.Name+" "+tt.field, func(t *testing.T) {
			s := newServer(t, sseReply(
				`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null,"`+tt.field+`":"Think."}}]}`+"\n\n"+
					`data: {"choices":[{"index":0,"delta":{"content":"Hi."},"finish_reason":"stop"}]}`+"\n\n"+"data: [DONE]\n\n"))
			p := tt.profile
			got := run(t, newModel(t, Config{BaseURL: s.URL, Profile: &p}), nil)
			if got.Err != nil || got.Reasoning != "Think." || got.Text != "Hi." || got.Stop != llm.StopEnd {
				t.Errorf("got %v", got)
			}
		})
	}
}
