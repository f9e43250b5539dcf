package anthropic

import (
	"context"
	"encoding/json"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wire"
)

// Wire types of a Messages request. Only what the adapter sends.
type msgRequest struct {
	Model       string          `json:"model"`
	MaxTokens   int             `json:"max_tokens"`
	System      string          `json:"system,omitempty"`
	Messages    []message       `json:"messages"`
	Tools       []tool          `json:"tools,omitempty"`
	ToolChoice  *toolChoice     `json:"tool_choice,omitempty"`
	Thinking    json.RawMessage `json:"thinking,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	Stream      bool            `json:"stream,omitempty"`
}

type message struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string      `json:"type"`
	ToolUseID string      `json:"tool_use_id"`
	Content   []textBlock `json:"content"`
	IsError   bool        `json:"is_error,omitempty"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type toolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

func (m *Model) encode(ctx context.Context, req *llm.Request, stream bool) ([]byte, error) {
	msgs, err := messages(ctx, req)
	if err != nil {
		return nil, err
	}
	body := msgRequest{Model: m.cfg.Model, MaxTokens: req.Options.MaxTokens, System: req.System,
		Messages: msgs, Temperature: req.Options.Temperature, Stream: stream}
	if body.MaxTokens <= 0 {
		body.MaxTokens = m.cfg.MaxTokens
	}
	if body.MaxTokens <= 0 {
		body.MaxTokens = DefaultMaxTokens
	}
	if n := m.cfg.ThinkingBudget; n > 0 {
		body.Thinking, _ = json.Marshal(map[string]any{"type": "enabled", "budget_tokens": n})
	}
	if !req.Final && len(req.Tools) > 0 {
		for _, t := range req.Tools {
			schema := t.Parameters
			if len(schema) == 0 || string(schema) == "null" {
				schema = emptySchema
			}
			body.Tools = append(body.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
		}
		if m.cfg.ToolChoice != "" || m.cfg.DisableParallelToolUse {
			tc := &toolChoice{Type: m.cfg.ToolChoice, DisableParallelToolUse: m.cfg.DisableParallelToolUse}
			switch tc.Type {
			case "", "auto", "any", "none":
				if tc.Type == "" {
					tc.Type = "auto"
				}
			default:
				tc.Type, tc.Name = "tool", m.cfg.ToolChoice
			}
			body.ToolChoice = tc
		}
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return wire.MergeExtra(out, req.Options.Extra), nil
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// messages renders the timeline: one assistant message per model response
// (thinking blocks replayed verbatim, then text, then tool_use blocks), and
// one user message holding every tool_result of the response before it,
// followed by the user's next text if it comes right after.
func messages(ctx context.Context, req *llm.Request) ([]message, error) {
	var msgs []message
	user := func(blocks ...json.RawMessage) {
		if n := len(msgs); n > 0 && msgs[n-1].Role == "user" {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			return
		}
		msgs = append(msgs, message{Role: "user", Content: blocks})
	}
	for _, t := range groupTimeline(req.Timeline) {
		if t.user != nil {
			user(raw(textBlock{"text", t.user.Text()}))
			continue
		}
		am := message{Role: "assistant"}
		for _, th := range t.thoughts {
			if b := thinking(th); b != nil {
				am.Content = append(am.Content, b)
			}
		}
		for _, msg := range t.texts {
			if s := msg.Text(); s != "" {
				am.Content = append(am.Content, raw(textBlock{"text", s}))
			}
		}
		for _, c := range t.calls {
			in := c.Args()
			if len(in) == 0 {
				in = json.RawMessage("{}")
			}
			am.Content = append(am.Content, raw(toolUseBlock{"tool_use", c.ID(), c.Tool(), in}))
		}
		if len(am.Content) == 0 {
			continue
		}
		msgs = append(msgs, am)
		var results []json.RawMessage
		for _, c := range t.calls {
			text, err := llm.RenderResult(ctx, c)
			if err != nil {
				return nil, err
			}
			results = append(results, raw(toolResultBlock{Type: "tool_result", ToolUseID: c.ID(),
				Content: []textBlock{{"text", text}}, IsError: c.IsError()}))
		}
		if len(results) > 0 {
			msgs = append(msgs, message{Role: "user", Content: results})
		}
	}
	return msgs, nil
}

// thinking is the block replaying th, or nil when it cannot be replayed
// here: only thinking this API produced (with its signature) goes back.
func thinking(th *dispatch.Thought) json.RawMessage {
	if th.ReplayCompatibility() != ReplayThinking || th.Payload() == nil {
		return nil
	}
	var p struct {
		Type      string `json:"type"`
		Signature string `json:"signature"`
		Data      string `json:"data"`
	}
	if json.Unmarshal(th.Payload(), &p) != nil {
		return nil
	}
	switch p.Type {
	case "thinking":
		return raw(thinkingBlock{"thinking", th.Content().String(), p.Signature})
	case "redacted_thinking":
		return raw(struct {
			Type string `json:"type"`
			Data string `json:"data"`
		}{p.Type, p.Data})
	}
	return nil
}

// turn is a user message, or one model response: its thoughts, texts and
// tool calls.
type turn struct {
	user     *dispatch.Message
	thoughts []*dispatch.Thought
	texts    []*dispatch.Message
	calls    []*forge.ToolCall
}

// groupTimeline groups entries into turns. A response is stored as its
// thoughts, then its text, then its calls, so an entry that goes back in
// that order starts a new response.
func groupTimeline(entries []dispatch.Entry) []turn {
	var out []turn
	stage := 0 // of the open response: 1 thoughts, 2 text, 3 calls; 0 none
	open := func(s int) *turn {
		if stage == 0 || s < stage || (s == 2 && stage == 2) {
			out = append(out, turn{})
		}
		stage = s
		return &out[len(out)-1]
	}
	for _, e := range entries {
		switch e.Kind() {
		case dispatch.EntryMessage:
			if e.Message.Role() == dispatch.RoleUser {
				out = append(out, turn{user: e.Message})
				stage = 0
				continue
			}
			t := open(2)
			t.texts = append(t.texts, e.Message)
		case dispatch.EntryThought:
			t := open(1)
			t.thoughts = append(t.thoughts, e.Thought)
		case dispatch.EntryToolCall:
			t := open(3)
			t.calls = append(t.calls, e.ToolCall)
		}
	}
	return out
}
