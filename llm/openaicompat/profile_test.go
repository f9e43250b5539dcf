package openaicompat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

// TestProfilesReplay sends the same history (a response that reasoned and
// called a tool, with OpenRouter reasoning_details and a Gemini thought
// signature) to each profile; the golden bodies show what each server gets
// back: reasoning_content for DeepSeek, reasoning_details for OpenRouter,
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
	sum, err := canonical.Checksum("weather", json.RawMessage(`{"city":"Paris"}`))
	if err != nil {
		t.Fatal(err)
	}
	call, err := forge.NewToolCall(forge.RawToolCall{ID: "call_1", Tool: "weather", Args: json.RawMessage(`{"city":"Paris"}`),
		Checksum: sum, Results: forge.NewTokenizable("sunny"), IsComplete: true, CreatedAt: now, CompletedAt: now,
		Payload: json.RawMessage(`{"google":{"thought_signature":"c2ln"}}`), ReplayCompatibility: ReplayExtraContent})
	if err != nil {
		t.Fatal(err)
	}
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

// TestAttachments: images go inline as data URLs; other media are named.
func TestAttachments(t *testing.T) {
	s := newServer(t, sseReply(`data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`+"\n\n"))
	req := &llm.Request{Timeline: []dispatch.Entry{wiretest.AttachmentMessage(t)}}
	if got := run(t, newModel(t, Config{BaseURL: s.URL}), req); got.Err != nil {
		t.Fatal(got.Err)
	}
	want := `{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,YWJj"}},{"type":"text","text":"[audio audio/wav b.wav]"},{"type":"text","text":"[document application/pdf c.pdf]"}]}`
	if body := string(s.Body(0)); !strings.Contains(body, want) {
		t.Errorf("body lacks %s:\n%s", want, body)
	}
}
