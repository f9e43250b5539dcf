package uistream

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/turnrunner"
)

// aiSDK is the Vercel AI SDK UI message stream, protocol v1.
type aiSDK struct{}

func (aiSDK) headers(h http.Header) { h.Set("x-vercel-ai-ui-message-stream", "v1") }

// uiMessage is the part of an AI SDK UIMessage the handler reads.
type uiMessage struct {
	ID    string   `json:"id"`
	Role  string   `json:"role"`
	Parts []uiPart `json:"parts"`
}

type uiPart struct {
	Type       string `json:"type"`
	Text       string `json:"text"`
	ToolCallID string `json:"toolCallId"`
	State      string `json:"state"`
	Approval   *struct {
		ID       string `json:"id"`
		Approved *bool  `json:"approved"`
		Reason   string `json:"reason"`
	} `json:"approval"`
}

// parse reads the body useChat's default transport posts: {id, messages,
// trigger, ...}. A last user message starts a turn with its text; a last
// assistant message whose tool parts carry approval responses answers them.
func (aiSDK) parse(body []byte) (request, error) {
	var in struct {
		Messages []uiMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return request{}, fmt.Errorf("the body is not a chat request: %v", err)
	}
	if len(in.Messages) == 0 {
		return request{}, errors.New(`the body has no "messages"`)
	}
	last := in.Messages[len(in.Messages)-1]
	switch last.Role {
	case "user":
		prompt := uiText(last)
		if strings.TrimSpace(prompt) == "" {
			return request{}, errors.New("the last message has no text")
		}
		var hist []msg
		for _, m := range in.Messages[:len(in.Messages)-1] {
			hist = append(hist, msg{role: m.Role, text: uiText(m)})
		}
		in, err := turnInput(prompt, hist)
		return request{in: in}, err
	case "assistant":
		var req request
		for i, p := range last.Parts {
			if p.State != "approval-responded" {
				continue
			}
			if p.Approval == nil || p.Approval.ID == "" || p.Approval.Approved == nil {
				return request{}, fmt.Errorf("messages[%d].parts[%d]: an approval response needs approval.id and approval.approved", len(in.Messages)-1, i)
			}
			req.answers = append(req.answers, answer{gateID: p.Approval.ID, approved: *p.Approval.Approved, reason: p.Approval.Reason})
		}
		if len(req.answers) == 0 {
			return request{}, errors.New("the last message is the assistant's and answers no approval")
		}
		return req, nil
	}
	return request{}, fmt.Errorf("the last message has role %q, want user (or assistant answering an approval)", last.Role)
}

func uiText(m uiMessage) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func (aiSDK) encoder(turnID string, _ request) encoder {
	return &aiEncoder{messageID: "msg-" + turnID, seen: map[string]bool{}, announced: map[string]bool{}, deniedCalls: map[string]bool{}}
}

// aiEncoder writes UI message chunks. The whole turn is one assistant
// message; each iteration is a step.
type aiEncoder struct {
	messageID   string
	buf         []byte
	step        bool
	parts       []string        // open text and reasoning parts, as "text\x00id"
	seen        map[string]bool // parts started, so a late end never restarts one
	announced   map[string]bool
	deniedCalls map[string]bool
}

func (e *aiEncoder) begin(typ string) []byte {
	e.buf = append(e.buf[:0], `{"type":`...)
	e.buf = appendString(e.buf, typ)
	return e.buf
}

func (e *aiEncoder) open(emit func([]byte), _ request, _ bool) {
	b := appendField(e.begin("start"), "messageId", e.messageID)
	emit(append(b, '}'))
}

func (e *aiEncoder) simple(emit func([]byte), typ, key, value string) {
	b := e.begin(typ)
	if key != "" {
		b = appendField(b, key, value)
	}
	e.buf = append(b, '}')
	emit(e.buf)
}

func (e *aiEncoder) closeParts(emit func([]byte)) {
	for _, k := range e.parts {
		kind, id, _ := strings.Cut(k, "\x00")
		e.simple(emit, kind+"-end", "id", id)
	}
	e.parts = e.parts[:0]
}

// delta writes the start (the first time), delta and end chunks of a text
// or reasoning part. Text and reasoning parts may be open together.
func (e *aiEncoder) delta(emit func([]byte), kind, id, delta string, complete bool) {
	k := kind + "\x00" + id
	if !e.seen[k] {
		e.seen[k] = true
		e.simple(emit, kind+"-start", "id", id)
		e.parts = append(e.parts, k)
	}
	i := slices.Index(e.parts, k)
	if i < 0 {
		return // ended already
	}
	if delta != "" {
		b := appendField(appendField(e.begin(kind+"-delta"), "id", id), "delta", delta)
		e.buf = append(b, '}')
		emit(e.buf)
	}
	if complete {
		e.simple(emit, kind+"-end", "id", id)
		e.parts = slices.Delete(e.parts, i, i+1)
	}
}

func (e *aiEncoder) announce(emit func([]byte), id, tool string, args json.RawMessage) {
	if e.announced[id] {
		return
	}
	e.announced[id] = true
	b := appendField(appendField(e.begin("tool-input-start"), "toolCallId", id), "toolName", tool)
	e.buf = append(b, '}')
	emit(e.buf)
	b = appendField(appendField(e.begin("tool-input-delta"), "toolCallId", id), "inputTextDelta", string(args))
	e.buf = append(b, '}')
	emit(e.buf)
	b = appendField(appendField(e.begin("tool-input-available"), "toolCallId", id), "toolName", tool)
	b = append(b, `,"input":`...)
	b = appendJSON(b, args)
	e.buf = append(b, '}')
	emit(e.buf)
}

func (e *aiEncoder) data(emit func([]byte), name string, ev turnrunner.Event) {
	b := e.begin("data-" + name)
	b = append(b, `,"data":`...)
	b = appendJSON(b, wire(ev))
	e.buf = append(b, '}')
	emit(e.buf)
}

func (e *aiEncoder) event(emit func([]byte), ev turnrunner.Event) {
	switch x := ev.(type) {
	case turnrunner.IterationStart:
		e.closeParts(emit)
		if e.step {
			e.simple(emit, "finish-step", "", "")
		}
		e.simple(emit, "start-step", "", "")
		e.step = true
	case turnrunner.IterationEnd:
		e.closeParts(emit)
		if e.step {
			e.simple(emit, "finish-step", "", "")
			e.step = false
		}
	case turnrunner.ThoughtDelta:
		// A part whose response failed (Err) ends here too; the turn's
		// error follows as its own chunk.
		e.delta(emit, "reasoning", x.ID, x.Delta, x.IsComplete || x.Err != nil)
	case turnrunner.MessageDelta:
		e.delta(emit, "text", x.ID, x.Delta, x.IsComplete || x.Err != nil)
	case turnrunner.ToolCallContent:
		e.announce(emit, x.ID, x.Tool, x.Args)
		if !x.IsComplete && !x.IsError && !x.Cancelled {
			return
		}
		switch {
		case e.deniedCalls[x.ID] && x.IsError:
			e.simple(emit, "tool-output-denied", "toolCallId", x.ID)
		case x.IsError || x.Cancelled:
			b := appendField(appendField(e.begin("tool-output-error"), "toolCallId", x.ID), "errorText", resultText(wire(x)))
			e.buf = append(b, '}')
			emit(e.buf)
		default:
			b := appendField(e.begin("tool-output-available"), "toolCallId", x.ID)
			b = append(b, `,"output":`...)
			b = appendJSON(b, resultOf(wire(x)))
			e.buf = append(b, '}')
			emit(e.buf)
		}
	case turnrunner.LoopGuard:
		e.data(emit, "loop-guard", x)
	case turnrunner.Warning:
		e.data(emit, "warning", x)
	case turnrunner.GateOpen:
		e.data(emit, "gate", x)
	case turnrunner.TurnEnd:
		e.closeParts(emit)
		if e.step {
			e.simple(emit, "finish-step", "", "")
			e.step = false
		}
		switch x.Status {
		case turnrunner.TurnCompleted:
			e.simple(emit, "finish", "finishReason", "stop")
		case turnrunner.TurnAborted:
			e.simple(emit, "abort", "reason", errText(x.Err, "the turn was cancelled"))
		default:
			e.simple(emit, "error", "errorText", errText(x.Err, "the turn failed"))
			e.simple(emit, "finish", "finishReason", "error")
		}
	}
}

func (e *aiEncoder) interrupt(emit func([]byte), g *turnrunner.Gate, a turnrunner.ToolApproval) {
	e.closeParts(emit)
	e.announce(emit, a.ToolCallID, a.Tool, a.Args)
	b := appendField(appendField(e.begin("tool-approval-request"), "approvalId", g.ID()), "toolCallId", a.ToolCallID)
	e.buf = append(b, '}')
	emit(e.buf)
	e.simple(emit, "finish", "finishReason", "tool-calls")
	e.done(emit)
}

func (e *aiEncoder) denied(id string) { e.deniedCalls[id] = true }

func (e *aiEncoder) done(emit func([]byte)) { emit([]byte("[DONE]")) }

func errText(err error, fallback string) string {
	if err == nil {
		return fallback
	}
	return safetext.String(err.Error())
}

// itoa is strconv.Itoa, kept short for the encoders.
func itoa(n int) string { return strconv.Itoa(n) }
