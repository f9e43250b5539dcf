package gemini

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wire"
	"github.com/ebbforge/adk/media"
)

// Wire types of a generateContent request. Only what the adapter sends.
type genRequest struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []toolSet         `json:"tools,omitempty"`
	ToolConfig        *toolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is one content part; exactly one of Text, InlineData, FunctionCall
// and FunctionResponse is set.
type part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type toolSet struct {
	FunctionDeclarations []functionDecl `json:"functionDeclarations"`
}

type functionDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type toolConfig struct {
	FunctionCallingConfig callingConfig `json:"functionCallingConfig"`
}

type callingConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

func textPart(s string) part { return part{Text: &s} }

// encode builds the request body for req.
func (m *Model) encode(ctx context.Context, req *llm.Request) ([]byte, error) {
	contents, err := m.contents(ctx, req)
	if err != nil {
		return nil, err
	}
	body := genRequest{Contents: contents}
	if sys := m.render.System(req.System, req.Instructions); sys != "" {
		body.SystemInstruction = &content{Parts: []part{textPart(sys)}}
	}
	if err := m.tools(req, &body); err != nil {
		return nil, err
	}
	gc := generationConfig{MaxOutputTokens: req.Options.MaxTokens, Temperature: req.Options.Temperature}
	if gc.MaxOutputTokens <= 0 {
		gc.MaxOutputTokens = m.cfg.MaxTokens
	}
	if m.cfg.IncludeThoughts || m.cfg.ThinkingBudget != nil || m.cfg.ThinkingLevel != "" {
		gc.ThinkingConfig = &thinkingConfig{IncludeThoughts: m.cfg.IncludeThoughts,
			ThinkingBudget: m.cfg.ThinkingBudget, ThinkingLevel: m.cfg.ThinkingLevel}
	}
	if gc != (generationConfig{}) {
		body.GenerationConfig = &gc
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return wire.MergeExtra(out, req.Options.Extra), nil
}

// tools declares the request's tools and the calling mode. On a final
// iteration, the tools the history called are declared by name only, with
// calling turned off, so that their function calls stay meaningful.
func (m *Model) tools(req *llm.Request, body *genRequest) error {
	var decls []functionDecl
	mode := callingConfig{}
	if len(req.Tools) == 0 || req.Final {
		for _, n := range calledTools(req) {
			decls = append(decls, functionDecl{Name: n})
		}
		mode.Mode = "NONE"
	} else {
		for _, t := range req.Tools {
			params, err := convertSchema(t.Parameters)
			if err != nil {
				return llm.ErrBadRequest.With(err, "gemini: tool %q: parameters", t.Name)
			}
			decls = append(decls, functionDecl{Name: t.Name, Description: t.Description, Parameters: params})
		}
		mode = toolChoice(m.cfg.ToolChoice)
	}
	if len(decls) == 0 {
		return nil
	}
	body.Tools = []toolSet{{FunctionDeclarations: decls}}
	if mode.Mode != "" {
		body.ToolConfig = &toolConfig{FunctionCallingConfig: mode}
	}
	return nil
}

// toolChoice is the calling config for Config.ToolChoice.
func toolChoice(c string) callingConfig {
	switch strings.ToLower(c) {
	case "":
		return callingConfig{}
	case "auto", "any", "none", "validated":
		return callingConfig{Mode: strings.ToUpper(c)}
	case "required":
		return callingConfig{Mode: "ANY"}
	}
	return callingConfig{Mode: "ANY", AllowedFunctionNames: []string{c}}
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

// contents renders the timeline: a user content per run of user messages,
// a model content per model response (function calls and signed thoughts
// with their signatures, in the order they streamed), and a user content
// holding the function responses of the calls just before, in call order
// and with the calls' names and ids, as the API matches them.
func (m *Model) contents(ctx context.Context, req *llm.Request) ([]content, error) {
	var out []content
	for _, turn := range llm.Turns(req.Timeline) {
		switch turn.Kind {
		case llm.TurnUser:
			c := content{Role: "user"}
			for _, e := range turn.Entries {
				if e.Message == nil {
					continue
				}
				blocks, err := m.render.Message(ctx, e.Message)
				if err != nil {
					return nil, err
				}
				parts, err := mediaParts(ctx, blocks)
				if err != nil {
					return nil, err
				}
				c.Parts = append(c.Parts, parts...)
			}
			if len(c.Parts) == 0 {
				c.Parts = []part{textPart("")}
			}
			out = append(out, c)
		case llm.TurnAssistant:
			if c := modelContent(turn); len(c.Parts) > 0 {
				out = append(out, c)
			}
		case llm.TurnToolResults:
			c := content{Role: "user"}
			for _, call := range turn.ToolCalls() {
				blocks, err := m.render.ToolResult(ctx, call, req.Trusted(call.Tool()))
				if err != nil {
					return nil, err
				}
				key := "output"
				if call.IsError() {
					key = "error"
				}
				resp, _ := json.Marshal(map[string]string{key: wire.JoinText(blocks, blockText)})
				c.Parts = append(c.Parts, part{FunctionResponse: &functionResponse{ID: call.ID(), Name: call.Tool(), Response: resp}})
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// blockText is a block's text in a text-only field, media named.
func blockText(bl llm.Block) string {
	if bl.Media != nil {
		return describe(bl.Media)
	}
	return bl.Text
}

func describe(m *media.Media) string {
	return "[" + string(m.Kind()) + " " + m.MIMEType() + " " + m.Filename() + "]"
}

// mediaParts is rendered content as parts, one per block: text, or media
// inline as base64. The API takes images, audio, video, PDFs and plain
// text documents inline; another document is named in a text part.
// Empty text is dropped.
func mediaParts(ctx context.Context, blocks []llm.Block) ([]part, error) {
	var parts []part
	for _, bl := range blocks {
		a := bl.Media
		switch {
		case a == nil:
			if bl.Text != "" {
				parts = append(parts, textPart(bl.Text))
			}
			continue
		case a.Kind() == media.KindDocument && a.MIMEType() != "application/pdf" && !strings.HasPrefix(a.MIMEType(), "text/"):
			parts = append(parts, textPart(describe(a)))
			continue
		}
		data, err := a.Base64(ctx)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part{InlineData: &blob{MimeType: a.MIMEType(), Data: data}})
	}
	return parts, nil
}

// modelContent is one response as a model content. Function calls and
// thoughts go back with the signatures they came with; a signature that
// came on text goes back on the response's text; a thought without a
// signature is not sent (its text is a summary the model does not need).
func modelContent(turn llm.Turn) content {
	c := content{Role: "model"}
	for _, e := range turn.Entries {
		switch {
		case e.Thought != nil:
			sig, ok := signatureOf(e.Thought.ReplayCompatibility(), e.Thought.Payload())
			switch {
			case !ok:
			case !sig.OnText:
				text := e.Thought.Content().String()
				c.Parts = append(c.Parts, part{Text: &text, Thought: true, ThoughtSignature: sig.ThoughtSignature})
			default:
				if n := len(c.Parts); n > 0 && c.Parts[n-1].Text != nil && !c.Parts[n-1].Thought && c.Parts[n-1].ThoughtSignature == "" {
					c.Parts[n-1].ThoughtSignature = sig.ThoughtSignature
					continue
				}
				p := textPart("")
				p.ThoughtSignature = sig.ThoughtSignature
				c.Parts = append(c.Parts, p)
			}
		case e.Message != nil:
			if s := e.Message.Text(); s != "" {
				c.Parts = append(c.Parts, textPart(s))
			}
		case e.ToolCall != nil:
			call := e.ToolCall
			args := call.Args()
			if !isObject(args) {
				args = json.RawMessage("{}") // a call cut off, or stored with no arguments
			}
			p := part{FunctionCall: &functionCall{ID: call.ID(), Name: call.Tool(), Args: args}}
			if sig, ok := signatureOf(call.ReplayCompatibility(), call.Payload()); ok {
				p.ThoughtSignature = sig.ThoughtSignature
			}
			c.Parts = append(c.Parts, p)
		}
	}
	return c
}

// signatureOf reads a payload this adapter stored; false for any other.
func signatureOf(compat string, payload json.RawMessage) (signature, bool) {
	var s signature
	if compat != ReplaySignature || json.Unmarshal(payload, &s) != nil || s.ThoughtSignature == "" {
		return s, false
	}
	return s, true
}

func isObject(raw json.RawMessage) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal(raw, &v) == nil && v != nil
}
