package turnrunner

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/media"
)

// The JSON wire form of the events.
//
// MarshalEvent writes every event as one object with a "type" field naming it in
// lowerCamelCase ("turnStart", "messageDelta", "toolCall", ...) and
// camelCase fields. Times are RFC 3339 with nanoseconds and are left out
// when zero; durations are "…Ms" fields in milliseconds (fractions keep the
// precision); errors are {"code","message"}: the E_... code of a coded
// error (E_ABORTED for a cancelled context, E_TIMEOUT for a deadline,
// E_UNKNOWN otherwise) and the full text of the error, cause included.
// A gate is {"gateId","turnId","reason","payload","createdAt"}; the payload
// of a tool approval is {"toolCallId","tool","args","checksum"}. A tool call
// is {"id","tool","checksum","args","status","result"} where status is
// running (announced), completed, failed or cancelled, and result is what
// a UI renders: {"kind":"text","text"} for text and inline artifacts,
// {"kind":"handle","handle","artifacts":[{"id","kind","byteLength","lineCount"}]}
// for a spooled artifact the model reads through artifact tools, and
// {"kind":"media","media":[media metadata]} for media. The golden files
// under testdata/golden pin the form of every event.

// maxResultText bounds the result text of a tool call's wire form, so an
// inline artifact cannot flood a page; the form then says truncated.
const maxResultText = 256 << 10

// MarshalEvent writes ev's JSON wire form (described above), with ctx
// bounding the artifact reads a completed tool call's result text needs
// (inline artifacts, handles). It is the one way to marshal an event:
// json.Marshal of an event writes its Go fields, errors included as {}.
func MarshalEvent(ctx context.Context, ev Event) ([]byte, error) {
	return json.Marshal(eventJSON(ctx, ev))
}

// wireError is an error's wire form.
type wireError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// errorJSON is err's wire form, nil for a nil error.
func errorJSON(err error) *wireError {
	if err == nil {
		return nil
	}
	return &wireError{Code: errorCode(err), Message: safetext.String(err.Error())}
}

// errorCode is the stable code of err as the wire form writes it: the
// E_... code of a coded error (forge.Error), E_ABORTED for a cancelled
// context, E_TIMEOUT for a deadline and E_UNKNOWN for anything else.
func errorCode(err error) string {
	var fe *forge.Error
	switch {
	case errors.As(err, &fe) && fe != nil && fe.Code != "":
		return string(fe.Code)
	case errors.Is(err, context.Canceled):
		return "E_ABORTED"
	case errors.Is(err, context.DeadlineExceeded):
		return "E_TIMEOUT"
	}
	return "E_UNKNOWN"
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// eventJSON is the value ev's wire form marshals from.
func eventJSON(ctx context.Context, ev Event) any {
	switch e := ev.(type) {
	case TurnStart:
		return struct {
			Type      string    `json:"type"`
			TurnID    string    `json:"turnId"`
			StartedAt time.Time `json:"startedAt,omitzero"`
		}{"turnStart", e.TurnID, e.StartedAt}
	case TurnEnd:
		return struct {
			Type       string     `json:"type"`
			TurnID     string     `json:"turnId"`
			Status     TurnStatus `json:"status"`
			Error      *wireError `json:"error,omitempty"`
			StartedAt  time.Time  `json:"startedAt,omitzero"`
			EndedAt    time.Time  `json:"endedAt,omitzero"`
			DurationMs float64    `json:"durationMs"`
		}{"turnEnd", e.TurnID, e.Status, errorJSON(e.Err), e.StartedAt, e.EndedAt, ms(e.Duration)}
	case DispatchStart:
		return struct {
			Type       string    `json:"type"`
			TurnID     string    `json:"turnId"`
			DispatchID string    `json:"dispatchId"`
			StartedAt  time.Time `json:"startedAt,omitzero"`
		}{"dispatchStart", e.TurnID, e.DispatchID, e.StartedAt}
	case DispatchEnd:
		return struct {
			Type       string     `json:"type"`
			TurnID     string     `json:"turnId"`
			DispatchID string     `json:"dispatchId"`
			Status     TurnStatus `json:"status"`
			Error      *wireError `json:"error,omitempty"`
			Iterations int        `json:"iterations"`
			StartedAt  time.Time  `json:"startedAt,omitzero"`
			EndedAt    time.Time  `json:"endedAt,omitzero"`
			DurationMs float64    `json:"durationMs"`
		}{"dispatchEnd", e.TurnID, e.DispatchID, e.Status, errorJSON(e.Err), e.Iterations, e.StartedAt, e.EndedAt, ms(e.Duration)}
	case IterationStart:
		return struct {
			Type       string    `json:"type"`
			DispatchID string    `json:"dispatchId"`
			Iteration  int       `json:"iteration"`
			StartedAt  time.Time `json:"startedAt,omitzero"`
		}{"iterationStart", e.DispatchID, e.Iteration, e.StartedAt}
	case IterationEnd:
		return struct {
			Type       string    `json:"type"`
			DispatchID string    `json:"dispatchId"`
			Iteration  int       `json:"iteration"`
			StartedAt  time.Time `json:"startedAt,omitzero"`
			EndedAt    time.Time `json:"endedAt,omitzero"`
			DurationMs float64   `json:"durationMs"`
		}{"iterationEnd", e.DispatchID, e.Iteration, e.StartedAt, e.EndedAt, ms(e.Duration)}
	case MessageDelta:
		return struct {
			Type        string     `json:"type"`
			ID          string     `json:"id"`
			Delta       string     `json:"delta"`
			Full        string     `json:"full"`
			IsComplete  bool       `json:"isComplete"`
			Error       *wireError `json:"error,omitempty"`
			CreatedAt   time.Time  `json:"createdAt,omitzero"`
			CompletedAt time.Time  `json:"completedAt,omitzero"`
		}{"messageDelta", e.ID, e.Delta, e.Full, e.IsComplete, errorJSON(e.Err), e.CreatedAt, e.CompletedAt}
	case ThoughtDelta:
		return struct {
			Type                string          `json:"type"`
			ID                  string          `json:"id"`
			Delta               string          `json:"delta"`
			Full                string          `json:"full"`
			Payload             json.RawMessage `json:"payload,omitempty"`
			ReplayCompatibility string          `json:"replayCompatibility,omitempty"`
			IsComplete          bool            `json:"isComplete"`
			Error               *wireError      `json:"error,omitempty"`
			CreatedAt           time.Time       `json:"createdAt,omitzero"`
			CompletedAt         time.Time       `json:"completedAt,omitzero"`
		}{"thoughtDelta", e.ID, e.Delta, e.Full, validJSON(e.Payload), e.ReplayCompatibility, e.IsComplete, errorJSON(e.Err), e.CreatedAt, e.CompletedAt}
	case ToolCallContent:
		return struct {
			Type        string          `json:"type"`
			ID          string          `json:"id"`
			Tool        string          `json:"tool"`
			Checksum    string          `json:"checksum"`
			Args        json.RawMessage `json:"args"`
			Status      string          `json:"status"`
			Result      *wireResult     `json:"result,omitempty"`
			CreatedAt   time.Time       `json:"createdAt,omitzero"`
			UpdatedAt   time.Time       `json:"updatedAt,omitzero"`
			CompletedAt time.Time       `json:"completedAt,omitzero"`
		}{"toolCall", e.ID, e.Tool, e.Checksum, argsJSON(e.Args), toolCallStatus(e), resultJSON(ctx, e),
			e.CreatedAt, e.UpdatedAt, e.CompletedAt}
	case ToolExecutionStart:
		return struct {
			Type       string         `json:"type"`
			TurnID     string         `json:"turnId"`
			DispatchID string         `json:"dispatchId"`
			Tool       string         `json:"tool"`
			ToolCallID string         `json:"toolCallId"`
			Checksum   string         `json:"checksum"`
			Args       map[string]any `json:"args"`
			StartedAt  time.Time      `json:"startedAt,omitzero"`
		}{"toolExecutionStart", e.TurnID, e.DispatchID, e.ToolName, e.ToolCallID, e.Checksum, e.Args, e.StartedAt}
	case ToolExecutionEnd:
		return struct {
			Type       string     `json:"type"`
			TurnID     string     `json:"turnId"`
			DispatchID string     `json:"dispatchId"`
			Tool       string     `json:"tool"`
			ToolCallID string     `json:"toolCallId"`
			Checksum   string     `json:"checksum"`
			IsError    bool       `json:"isError"`
			Error      *wireError `json:"error,omitempty"`
			StartedAt  time.Time  `json:"startedAt,omitzero"`
			EndedAt    time.Time  `json:"endedAt,omitzero"`
			DurationMs float64    `json:"durationMs"`
		}{"toolExecutionEnd", e.TurnID, e.DispatchID, e.ToolName, e.ToolCallID, e.Checksum, e.IsError, errorJSON(e.Err), e.StartedAt, e.EndedAt, ms(e.Duration)}
	case LoopGuard:
		return struct {
			Type       string `json:"type"`
			DispatchID string `json:"dispatchId"`
			Iteration  int    `json:"iteration"`
			Decision   string `json:"decision"`
			Tool       string `json:"tool,omitempty"`
			ToolCallID string `json:"toolCallId,omitempty"`
			Checksum   string `json:"checksum,omitempty"`
			Count      int    `json:"count"`
			Limit      int    `json:"limit"`
			Message    string `json:"message"`
		}{"loopGuard", e.DispatchID, e.Iteration, string(e.Decision), e.Tool, e.ToolCallID, e.Checksum, e.Count, e.Limit, e.Message}
	case GateOpen:
		g := e.Gate
		if g == nil {
			g = &Gate{}
		}
		payload, perr := gatePayload(g.payload)
		return struct {
			Type         string          `json:"type"`
			GateID       string          `json:"gateId"`
			TurnID       string          `json:"turnId"`
			Reason       string          `json:"reason"`
			Payload      json.RawMessage `json:"payload"`
			PayloadError string          `json:"payloadError,omitempty"`
			CreatedAt    time.Time       `json:"createdAt,omitzero"`
		}{"gateOpen", g.id, g.turnID, g.reason, payload, perr, g.createdAt}
	case GateClosed:
		return struct {
			Type      string     `json:"type"`
			GateID    string     `json:"gateId"`
			TurnID    string     `json:"turnId"`
			Result    GateResult `json:"result"`
			SettledAt time.Time  `json:"settledAt,omitzero"`
		}{"gateClosed", e.GateID, e.TurnID, e.Result, e.SettledAt}
	case Log:
		payload, perr := gatePayload(e.Payload)
		if e.Payload == nil {
			payload = nil
		}
		return struct {
			Type         string          `json:"type"`
			DispatchID   string          `json:"dispatchId,omitempty"`
			Iteration    int             `json:"iteration"`
			Level        string          `json:"level"`
			Kind         string          `json:"kind"`
			Message      string          `json:"message"`
			Payload      json.RawMessage `json:"payload,omitempty"`
			PayloadError string          `json:"payloadError,omitempty"`
			EmittedAt    time.Time       `json:"emittedAt,omitzero"`
		}{"log", e.DispatchID, e.Iteration, e.Level.String(), e.Kind, e.Message, payload, perr, e.EmittedAt}
	case Warning:
		return struct {
			Type       string     `json:"type"`
			DispatchID string     `json:"dispatchId,omitempty"`
			Iteration  int        `json:"iteration"`
			Kind       string     `json:"kind"`
			Message    string     `json:"message"`
			Error      *wireError `json:"error,omitempty"`
			EmittedAt  time.Time  `json:"emittedAt,omitzero"`
		}{"warning", e.DispatchID, e.Iteration, e.Kind, e.Message, errorJSON(e.Err), e.EmittedAt}
	case Error:
		err := errorJSON(e.Err)
		if err == nil {
			err = &wireError{Code: "E_UNKNOWN"}
		}
		return struct {
			Type       string     `json:"type"`
			DispatchID string     `json:"dispatchId,omitempty"`
			Iteration  int        `json:"iteration"`
			Error      *wireError `json:"error"`
			EmittedAt  time.Time  `json:"emittedAt,omitzero"`
		}{"error", e.DispatchID, e.Iteration, err, e.EmittedAt}
	case GenerationStats:
		type usage struct {
			InputTokens     int `json:"inputTokens"`
			OutputTokens    int `json:"outputTokens"`
			TotalTokens     int `json:"totalTokens"`
			CachedTokens    int `json:"cachedTokens"`
			ReasoningTokens int `json:"reasoningTokens"`
		}
		var u *usage
		if e.HasUsage {
			x := usage(e.Usage)
			u = &x
		}
		return struct {
			Type       string         `json:"type"`
			DispatchID string         `json:"dispatchId"`
			Iteration  int            `json:"iteration"`
			ResponseID string         `json:"responseId,omitempty"`
			Usage      *usage         `json:"usage,omitempty"`
			StopReason llm.StopReason `json:"stopReason,omitempty"`
			DurationMs float64        `json:"durationMs"`
		}{"generationStats", e.DispatchID, e.Iteration, e.ResponseID, u, e.StopReason, ms(e.Duration)}
	}
	return struct {
		Type string `json:"type"`
	}{"unknown"}
}

// toolCallStatus is the status a tool call's wire form reports: running
// (announced, not settled), completed, failed (an error result) or
// cancelled.
func toolCallStatus(e ToolCallContent) string {
	switch {
	case e.Cancelled:
		return "cancelled"
	case e.IsError:
		return "failed"
	case e.IsComplete:
		return "completed"
	}
	return "running"
}

// wireResult is a settled tool call's renderable result.
type wireResult struct {
	Kind      string           `json:"kind"` // text, handle or media
	Text      string           `json:"text,omitempty"`
	Handle    string           `json:"handle,omitempty"`
	Truncated bool             `json:"truncated,omitempty"`
	Artifacts []wireArtifact   `json:"artifacts,omitempty"`
	Media     []media.Metadata `json:"media,omitempty"`
}

type wireArtifact struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	ByteLength int64  `json:"byteLength"`
	LineCount  int    `json:"lineCount"`
}

// resultJSON is the renderable result of a settled call, nil while it runs.
func resultJSON(ctx context.Context, e ToolCallContent) *wireResult {
	if !e.IsComplete && !e.IsError && !e.Cancelled {
		return nil
	}
	res, call := e.Results, e.Call
	if call != nil {
		res = call.Results()
	}
	switch {
	case len(res.Media()) > 0:
		w := &wireResult{Kind: "media"}
		for _, m := range res.Media() {
			if m != nil {
				w.Media = append(w.Media, m.Metadata())
			}
		}
		return w
	case len(res.Artifacts()) > 0:
		if call == nil {
			return &wireResult{Kind: "text", Text: llm.ArtifactExpiredText}
		}
		if len(res.Artifacts()) == 1 && !call.Inline() {
			w := &wireResult{Kind: "handle"}
			h, err := llm.RenderResult(ctx, call) // the handle, or llm.ArtifactExpiredText
			if err != nil {
				h = "(handle unavailable: " + safetext.String(err.Error()) + ")"
			}
			w.Handle = h
			a := res.Artifacts()[0]
			n, _ := a.ByteLength(ctx)
			lines, _ := a.LineCount(ctx)
			w.Artifacts = []wireArtifact{{ID: a.ID(), Kind: a.Kind(), ByteLength: n, LineCount: lines}}
			return w
		}
		text, err := llm.RenderResult(ctx, call)
		if err != nil {
			text = "(result unavailable: " + safetext.String(err.Error()) + ")"
		}
		return textResult(text)
	case res.Text() != nil:
		text, err := res.Text().Render(nil)
		if err != nil {
			text = res.Text().String()
		}
		return textResult(text)
	}
	return &wireResult{Kind: "text"}
}

func textResult(s string) *wireResult {
	w := &wireResult{Kind: "text", Text: s}
	if len(s) > maxResultText {
		cut := maxResultText
		for cut > 0 && s[cut]&0xC0 == 0x80 { // never split a UTF-8 sequence
			cut--
		}
		w.Text, w.Truncated = s[:cut], true
	}
	return w
}

// argsJSON keeps valid argument text, else writes it as a JSON string so
// the event still marshals.
func argsJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// validJSON drops raw that is not valid JSON (an opaque payload a
// provider sent broken must not break the event).
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return nil
	}
	return raw
}

// gatePayload marshals a gate's or log's payload; one that cannot be
// marshalled is null with the reason beside it.
func gatePayload(p any) (json.RawMessage, string) {
	if a, ok := p.(ToolApproval); ok {
		p = struct {
			ToolCallID string          `json:"toolCallId"`
			Tool       string          `json:"tool"`
			Args       json.RawMessage `json:"args"`
			Checksum   string          `json:"checksum"`
		}{a.ToolCallID, a.Tool, argsJSON(a.Args), a.Checksum}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return json.RawMessage("null"), safetext.String(err.Error())
	}
	return b, ""
}
