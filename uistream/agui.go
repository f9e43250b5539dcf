package uistream

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ebbforge/adk/turnrunner"
)

// agUI is the AG-UI protocol (events of @ag-ui/core 1.x over SSE).
type agUI struct{}

func (agUI) headers(http.Header) {}

// runAgentInput is the part of an AG-UI RunAgentInput the handler reads.
type runAgentInput struct {
	ThreadID *string          `json:"threadId"`
	RunID    *string          `json:"runId"`
	Messages *[]agMessage     `json:"messages"`
	Resume   []agResume       `json:"resume"`
	Tools    []map[string]any `json:"tools"`
}

type agMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type agResume struct {
	InterruptID string          `json:"interruptId"`
	Status      string          `json:"status"`
	Payload     json.RawMessage `json:"payload"`
}

// parse reads a RunAgentInput. Resume entries answer open approvals
// (status resolved with payload {"approved": bool, "reason"?: string} or a
// bare boolean; cancelled denies); otherwise the last message, a user
// message, starts a turn, with the earlier user and assistant text as
// history. The runner's own tools serve the turn: the input's tools,
// context and state are accepted and not used.
func (agUI) parse(body []byte) (request, error) {
	var in runAgentInput
	if err := json.Unmarshal(body, &in); err != nil {
		return request{}, fmt.Errorf("the body is not a RunAgentInput: %v", err)
	}
	if in.ThreadID == nil || in.RunID == nil || in.Messages == nil {
		return request{}, errors.New("a RunAgentInput needs threadId, runId and messages")
	}
	req := request{thread: *in.ThreadID, run: *in.RunID}
	if len(in.Resume) > 0 {
		for i, r := range in.Resume {
			if r.InterruptID == "" {
				return request{}, fmt.Errorf("resume[%d]: interruptId is required", i)
			}
			a := answer{gateID: r.InterruptID}
			switch r.Status {
			case "cancelled":
				a.reason = "cancelled by the user"
			case "resolved":
				var p struct {
					Approved *bool  `json:"approved"`
					Reason   string `json:"reason"`
				}
				var bare bool
				switch {
				case json.Unmarshal(r.Payload, &bare) == nil:
					a.approved = bare
				case json.Unmarshal(r.Payload, &p) == nil && p.Approved != nil:
					a.approved, a.reason = *p.Approved, p.Reason
				default:
					return request{}, fmt.Errorf(`resume[%d]: payload must be {"approved": true|false} or a boolean`, i)
				}
			default:
				return request{}, fmt.Errorf("resume[%d]: status %q, want resolved or cancelled", i, r.Status)
			}
			req.answers = append(req.answers, a)
		}
		return req, nil
	}
	msgs := *in.Messages
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" {
		return request{}, errors.New("the last message must be the user's")
	}
	var hist []msg
	for _, m := range msgs[:len(msgs)-1] {
		hist = append(hist, msg{role: m.Role, text: agText(m.Content)})
	}
	prompt := agText(msgs[len(msgs)-1].Content)
	if strings.TrimSpace(prompt) == "" {
		return request{}, errors.New("the last message has no text")
	}
	var err error
	req.in, err = turnInput(prompt, hist)
	return req, err
}

// agText is a message's text: a string content, or its text parts.
func agText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(content, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func (agUI) encoder(turnID string, req request) encoder {
	return &agEncoder{thread: req.thread, run: req.run, seen: map[string]bool{}, announced: map[string]bool{}}
}

// agEncoder writes AG-UI events. Each request is one run; a run that
// stops at an approval finishes with an interrupt outcome, and the run
// that answers it continues the turn.
type agEncoder struct {
	thread, run string
	buf         []byte
	text        string
	reasoning   string
	step        string          // the open step's name
	seen        map[string]bool // messages started, so a late end never restarts one
	announced   map[string]bool
}

func (e *agEncoder) begin(typ string) []byte {
	e.buf = append(e.buf[:0], `{"type":"`...)
	e.buf = append(e.buf, typ...)
	e.buf = append(e.buf, '"')
	return e.buf
}

func (e *agEncoder) put(emit func([]byte), b []byte) {
	e.buf = append(b, '}')
	emit(e.buf)
}

func (e *agEncoder) runIDs(b []byte) []byte {
	return appendField(appendField(b, "threadId", e.thread), "runId", e.run)
}

func (e *agEncoder) open(emit func([]byte), req request, resumed bool) {
	if resumed {
		e.thread, e.run = req.thread, req.run
	}
	e.put(emit, e.runIDs(e.begin("RUN_STARTED")))
	if resumed && e.step != "" {
		// The run that stopped at the approval closed the step; this one
		// continues it.
		e.put(emit, appendField(e.begin("STEP_STARTED"), "stepName", e.step))
	}
}

func (e *agEncoder) closeParts(emit func([]byte)) {
	if e.text != "" {
		e.put(emit, appendField(e.begin("TEXT_MESSAGE_END"), "messageId", e.text))
		e.text = ""
	}
	if e.reasoning != "" {
		e.put(emit, appendField(e.begin("REASONING_MESSAGE_END"), "messageId", e.reasoning))
		e.put(emit, appendField(e.begin("REASONING_END"), "messageId", e.reasoning))
		e.reasoning = ""
	}
}

func (e *agEncoder) custom(emit func([]byte), name string, ev turnrunner.Event) {
	b := appendField(e.begin("CUSTOM"), "name", name)
	b = append(b, `,"value":`...)
	e.put(emit, appendJSON(b, wire(ev)))
}

func (e *agEncoder) announce(emit func([]byte), id, tool string, args json.RawMessage) {
	if e.announced[id] {
		return
	}
	e.announced[id] = true
	e.put(emit, appendField(appendField(e.begin("TOOL_CALL_START"), "toolCallId", id), "toolCallName", tool))
	e.put(emit, appendField(appendField(e.begin("TOOL_CALL_ARGS"), "toolCallId", id), "delta", string(args)))
	e.put(emit, appendField(e.begin("TOOL_CALL_END"), "toolCallId", id))
}

func (e *agEncoder) event(emit func([]byte), ev turnrunner.Event) {
	switch x := ev.(type) {
	case turnrunner.IterationStart:
		e.closeParts(emit)
		e.endStep(emit)
		e.step = "iteration-" + itoa(x.Iteration)
		e.put(emit, appendField(e.begin("STEP_STARTED"), "stepName", e.step))
	case turnrunner.IterationEnd:
		e.closeParts(emit)
		e.endStep(emit)
	case turnrunner.ThoughtDelta:
		e.delta(emit, reasoningPart, &e.reasoning, x.ID, x.Delta, x.IsComplete || x.Err != nil)
	case turnrunner.MessageDelta:
		e.delta(emit, textPart, &e.text, x.ID, x.Delta, x.IsComplete || x.Err != nil)
	case turnrunner.ToolCallContent:
		e.closeParts(emit)
		e.announce(emit, x.ID, x.Tool, x.Args)
		if !x.IsComplete && !x.IsError && !x.Cancelled {
			return
		}
		b := appendField(appendField(e.begin("TOOL_CALL_RESULT"), "messageId", "result-"+x.ID), "toolCallId", x.ID)
		b = appendField(b, "content", resultText(wire(x)))
		e.put(emit, appendField(b, "role", "tool"))
	case turnrunner.LoopGuard:
		e.custom(emit, "adk.loopGuard", x)
	case turnrunner.Warning:
		e.custom(emit, "adk.warning", x)
	case turnrunner.GateOpen:
		e.custom(emit, "adk.gate", x)
	case turnrunner.TurnEnd:
		e.closeParts(emit)
		e.endStep(emit)
		switch x.Status {
		case turnrunner.TurnCompleted:
			e.put(emit, append(e.runIDs(e.begin("RUN_FINISHED")), `,"outcome":{"type":"success"}`...))
		case turnrunner.TurnAborted:
			e.put(emit, append(e.runIDs(e.begin("RUN_FINISHED")), `,"outcome":{"type":"cancelled"}`...))
		default:
			w := wire(x)
			b := appendField(e.begin("RUN_ERROR"), "message", errText(x.Err, "the turn failed"))
			e.put(emit, appendField(b, "code", jsonString(w, "error.code", "E_UNKNOWN")))
		}
	}
}

// agPart is how one kind of streamed message (text or reasoning) is
// written: the events that open it, the last carrying the role, and the
// event that carries a delta.
type agPart struct {
	seenKey string // prefix of the message's key in seen
	start   []string
	role    string
	content string
}

var (
	reasoningPart = agPart{"r", []string{"REASONING_START", "REASONING_MESSAGE_START"}, "reasoning", "REASONING_MESSAGE_CONTENT"}
	textPart      = agPart{"t", []string{"TEXT_MESSAGE_START"}, "assistant", "TEXT_MESSAGE_CONTENT"}
)

// delta writes one delta of message id of kind p, whose open id is *open:
// it starts the message once (one that ended stays ended), writes the
// delta, and ends the open parts when done (a failed response too).
func (e *agEncoder) delta(emit func([]byte), p agPart, open *string, id, delta string, done bool) {
	if *open != id {
		if e.seen[p.seenKey+id] {
			return // ended already
		}
		e.seen[p.seenKey+id] = true
		e.closeParts(emit)
		for i, typ := range p.start {
			b := appendField(e.begin(typ), "messageId", id)
			if i == len(p.start)-1 {
				b = appendField(b, "role", p.role)
			}
			e.put(emit, b)
		}
		*open = id
	}
	if delta != "" {
		e.put(emit, appendField(appendField(e.begin(p.content), "messageId", id), "delta", delta))
	}
	if done {
		e.closeParts(emit)
	}
}

func (e *agEncoder) endStep(emit func([]byte)) {
	if e.step != "" {
		e.put(emit, appendField(e.begin("STEP_FINISHED"), "stepName", e.step))
		e.step = ""
	}
}

func (e *agEncoder) interrupt(emit func([]byte), g *turnrunner.Gate, a turnrunner.ToolApproval) {
	e.closeParts(emit)
	e.announce(emit, a.ToolCallID, a.Tool, a.Args)
	if e.step != "" {
		// Closed for this run, reopened by the run that resumes it.
		e.put(emit, appendField(e.begin("STEP_FINISHED"), "stepName", e.step))
	}
	b := append(e.runIDs(e.begin("RUN_FINISHED")), `,"outcome":{"type":"interrupt","interrupts":[{"id":`...)
	b = appendString(b, g.ID())
	b = appendField(b, "reason", "tool_approval")
	b = appendField(b, "message", g.Reason())
	b = appendField(b, "toolCallId", a.ToolCallID)
	b = append(b, `,"responseSchema":{"type":"object","properties":{"approved":{"type":"boolean"},"reason":{"type":"string"}},"required":["approved"]}}]}`...)
	e.put(emit, b)
}

func (e *agEncoder) denied(string) {}
