package openaicompat

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wire"
	"github.com/ebbforge/adk/media"
)

// Wire types of a Chat Completions request. Only what the adapter sends.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Tools               []chatTool      `json:"tools,omitempty"`
	ToolChoice          json.RawMessage `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a string, null (an assistant turn of tool calls only) or,
	// for a user message with images, an array of parts.
	Content          any             `json:"content"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
	ToolCalls        []chatToolCall  `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Function     chatFunction    `json:"function"`
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function chatToolDef `json:"function"`
}

type chatToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// encode builds the request body for req.
func (m *Model) encode(ctx context.Context, req *llm.Request, stream bool) ([]byte, error) {
	msgs, err := m.messages(ctx, req)
	if err != nil {
		return nil, err
	}
	body := chatRequest{Model: m.cfg.Model, Messages: msgs, Stream: stream, Temperature: req.Options.Temperature}
	if stream && !m.profile.NoStreamUsage {
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if n := req.Options.MaxTokens; n > 0 {
		if m.profile.MaxCompletionTokens {
			body.MaxCompletionTokens = n
		} else {
			body.MaxTokens = n
		}
	}
	if !req.Final && len(req.Tools) > 0 {
		tools, choice := m.toolsAndChoice(req.Tools)
		for _, t := range tools {
			params := t.Parameters
			if len(params) == 0 || string(params) == "null" {
				params = emptySchema
			}
			body.Tools = append(body.Tools, chatTool{Type: "function",
				Function: chatToolDef{Name: t.Name, Description: t.Description, Parameters: params}})
		}
		body.ToolChoice = choice
		body.ParallelToolCalls = m.cfg.ParallelToolCalls
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return wire.MergeExtra(out, req.Options.Extra), nil
}

// toolsAndChoice are the tools to offer and the tool_choice to send. A
// choice naming an offered tool goes, under a profile with
// NamedChoiceAsRequired, as "required" with only that tool offered.
func (m *Model) toolsAndChoice(tools []forge.Definition) ([]forge.Definition, json.RawMessage) {
	c := m.cfg.ToolChoice
	switch {
	case !m.profile.NamedChoiceAsRequired, c == "", c == "auto", c == "none", c == "required":
		return tools, toolChoice(c)
	}
	for _, t := range tools {
		if t.Name == c {
			return []forge.Definition{t}, toolChoice("required")
		}
	}
	return tools, toolChoice(c)
}

// toolChoice is the wire form of Config.ToolChoice: a mode as a string, any
// other value as the named function.
func toolChoice(c string) json.RawMessage {
	switch c {
	case "":
		return nil
	case "auto", "none", "required":
		return json.RawMessage(`"` + c + `"`)
	}
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": c}})
	return b
}

// messages renders the system prompt and the timeline as chat messages:
// one assistant message per model response (its text, reasoning and tool
// calls), followed by one tool message per call. The system prompt, user
// text and tool results go through the model's renderer.
func (m *Model) messages(ctx context.Context, req *llm.Request) ([]chatMessage, error) {
	var msgs []chatMessage
	if sys := m.render.System(req.System, req.Instructions); sys != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: ptr(sys)})
	}
	for _, turn := range llm.Turns(req.Timeline) {
		switch turn.Kind {
		case llm.TurnUser:
			for _, e := range turn.Entries {
				if e.Message != nil {
					content, err := m.userContent(ctx, e.Message)
					if err != nil {
						return nil, err
					}
					msgs = append(msgs, chatMessage{Role: "user", Content: content})
				}
			}
		case llm.TurnAssistant:
			msgs = append(msgs, m.assistant(turn))
		case llm.TurnToolResults:
			for _, c := range turn.ToolCalls() {
				blocks, err := m.render.ToolResult(ctx, c, req.Trusted(c.Tool()))
				if err != nil {
					return nil, err
				}
				msgs = append(msgs, chatMessage{Role: "tool", Content: ptr(toolText(blocks)), ToolCallID: c.ID()})
			}
		}
	}
	return msgs, nil
}

// toolText is a tool message's content: tool messages carry text only, so
// a media block is named inside its envelope, and the blocks of several
// media items go on separate lines.
func toolText(blocks []llm.Block) string {
	return wire.JoinText(blocks, func(bl llm.Block) string {
		if bl.Media != nil {
			return describe(bl.Media)
		}
		return bl.Text
	})
}

// assistant is one response as an assistant message. Its reasoning goes
// back only as the profile says.
func (m *Model) assistant(turn llm.Turn) chatMessage {
	am := chatMessage{Role: "assistant"}
	var text, reasoning strings.Builder
	calls := turn.ToolCalls()
	for _, e := range turn.Entries {
		switch {
		case e.Message != nil:
			text.WriteString(e.Message.Text())
		case e.Thought != nil:
			th := e.Thought
			if th.ReplayCompatibility() == ReplayReasoningDetails && th.Payload() != nil {
				if m.profile.ReasoningDetails {
					am.ReasoningDetails = th.Payload()
				}
			} else if th.Replayable() {
				reasoning.WriteString(th.Content().String())
			}
		}
	}
	if text.Len() > 0 || len(calls) == 0 {
		am.Content = ptr(text.String())
	}
	if m.profile.ReasoningContent && len(calls) > 0 {
		am.ReasoningContent = reasoning.String()
	}
	for _, c := range calls {
		args := string(c.Args())
		if args == "" {
			args = "{}"
		}
		tc := chatToolCall{ID: c.ID(), Type: "function", Function: chatFunction{Name: c.Tool(), Arguments: args}}
		if m.profile.ExtraContent && c.ReplayCompatibility() == ReplayExtraContent {
			tc.ExtraContent = c.Payload()
		}
		am.ToolCalls = append(am.ToolCalls, tc)
	}
	return am
}

func ptr[T any](v T) *T { return &v }

// contentPart is one part of a user message's content array.
type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// describe names a medium the server is not sent.
func describe(m *media.Media) string {
	return "[" + string(m.Kind()) + " " + m.MIMEType() + " " + m.Filename() + "]"
}

// userContent is a user message's content as the renderer gives it: its
// text as a string, or with attachments an array of parts, one per
// rendered block. Images go inline as data URLs, which every compatible
// server with vision takes; another medium the renderer passes through (a
// kind added to Renderer.Accepts) is named in a text part.
func (m *Model) userContent(ctx context.Context, msg *dispatch.Message) (any, error) {
	blocks, err := m.render.Message(ctx, msg)
	if err != nil {
		return nil, err
	}
	if len(blocks) <= 1 && (len(blocks) == 0 || blocks[0].Media == nil) {
		return llm.JoinText(blocks), nil
	}
	var parts []contentPart
	for _, bl := range blocks {
		switch a := bl.Media; {
		case a == nil:
			if bl.Text != "" {
				parts = append(parts, contentPart{Type: "text", Text: bl.Text})
			}
		case a.Kind() != media.KindImage:
			parts = append(parts, contentPart{Type: "text", Text: describe(a)})
		default:
			u, err := a.DataURL(ctx)
			if err != nil {
				return nil, err
			}
			parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: u}})
		}
	}
	return parts, nil
}
