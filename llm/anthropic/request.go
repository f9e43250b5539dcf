package anthropic

import (
	"context"
	"encoding/json"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wire"
	"github.com/ebbforge/adk/media"
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
	Type      string            `json:"type"`
	ToolUseID string            `json:"tool_use_id"`
	Content   []json.RawMessage `json:"content"`
	IsError   bool              `json:"is_error,omitempty"`
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
	msgs, err := m.messages(ctx, req)
	if err != nil {
		return nil, err
	}
	body := msgRequest{Model: m.cfg.Model, MaxTokens: req.Options.MaxTokens, System: m.render.System(req.System, req.Instructions),
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
	if len(req.Tools) == 0 || req.Final {
		// The API refuses tool_use blocks in a request without tools: name
		// the tools the history used, and let the model call none.
		if names := calledTools(req); len(names) > 0 {
			for _, n := range names {
				body.Tools = append(body.Tools, tool{Name: n, InputSchema: emptySchema})
			}
			body.ToolChoice = &toolChoice{Type: "none"}
		}
	} else {
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

// calledTools names the tools the timeline's calls used, in first-use order.
func calledTools(req *llm.Request) []string {
	var names []string
	seen := map[string]bool{}
	for _, e := range req.Timeline {
		if c := e.ToolCall; c != nil && !seen[c.Tool()] {
			seen[c.Tool()] = true
			names = append(names, c.Tool())
		}
	}
	return names
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// messages renders the timeline: one assistant message per model response
// (its thinking blocks replayed verbatim, text and tool_use blocks in the
// order they streamed), and one user message holding every tool_result of
// the response before it, followed by the user's next text if it comes
// right after. User text and tool results go through the model's renderer.
func (m *Model) messages(ctx context.Context, req *llm.Request) ([]message, error) {
	var msgs []message
	user := func(blocks ...json.RawMessage) {
		if n := len(msgs); n > 0 && msgs[n-1].Role == "user" {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			return
		}
		msgs = append(msgs, message{Role: "user", Content: blocks})
	}
	for _, turn := range llm.Turns(req.Timeline) {
		switch turn.Kind {
		case llm.TurnUser:
			for _, e := range turn.Entries {
				if e.Message != nil {
					rendered, err := m.render.Message(ctx, e.Message)
					if err != nil {
						return nil, err
					}
					blocks, err := contentBlocks(ctx, rendered, true)
					if err != nil {
						return nil, err
					}
					user(blocks...)
				}
			}
		case llm.TurnAssistant:
			if am := assistant(turn); len(am.Content) > 0 {
				msgs = append(msgs, am)
			}
		case llm.TurnToolResults:
			for _, c := range turn.ToolCalls() {
				rendered, err := m.render.ToolResult(ctx, c, req.Trusted(c.Tool()))
				if err != nil {
					return nil, err
				}
				content, err := contentBlocks(ctx, rendered, false)
				if err != nil {
					return nil, err
				}
				user(raw(toolResultBlock{Type: "tool_result", ToolUseID: c.ID(),
					Content: content, IsError: c.IsError()}))
			}
		}
	}
	return msgs, nil
}

// mediaBlock is an image or document block with inline base64 data.
type mediaBlock struct {
	Type   string      `json:"type"`
	Source mediaSource `json:"source"`
}

type mediaSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// contentBlocks is rendered content as content blocks, one per rendered
// block. Images and PDF documents go inline as base64; the API takes no
// other media, so those are named in a text block. Empty text is dropped,
// except that a user message (keepEmpty) always has a block.
func contentBlocks(ctx context.Context, rendered []llm.Block, keepEmpty bool) ([]json.RawMessage, error) {
	var blocks []json.RawMessage
	for _, bl := range rendered {
		a := bl.Media
		typ := ""
		switch {
		case a == nil:
			if bl.Text != "" {
				blocks = append(blocks, raw(textBlock{"text", bl.Text}))
			}
			continue
		case a.Kind() == media.KindImage:
			typ = "image"
		case a.MIMEType() == "application/pdf":
			typ = "document"
		default:
			blocks = append(blocks, raw(textBlock{"text", "[" + string(a.Kind()) + " " + a.MIMEType() + " " + a.Filename() + "]"}))
			continue
		}
		data, err := a.Base64(ctx)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, raw(mediaBlock{typ, mediaSource{"base64", a.MIMEType(), data}}))
	}
	if len(blocks) == 0 && keepEmpty {
		blocks = append(blocks, raw(textBlock{"text", ""}))
	}
	return blocks, nil
}

func assistant(turn llm.Turn) message {
	am := message{Role: "assistant"}
	for _, e := range turn.Entries {
		switch {
		case e.Thought != nil:
			if b := thinking(e.Thought); b != nil {
				am.Content = append(am.Content, b)
			}
		case e.Message != nil:
			if s := e.Message.Text(); s != "" {
				am.Content = append(am.Content, raw(textBlock{"text", s}))
			}
		case e.ToolCall != nil:
			in := e.ToolCall.Args()
			if len(in) == 0 {
				in = json.RawMessage("{}")
			}
			am.Content = append(am.Content, raw(toolUseBlock{"tool_use", e.ToolCall.ID(), e.ToolCall.Tool(), in}))
		}
	}
	return am
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
