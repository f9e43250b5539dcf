package turnrunner

import (
	"encoding/json"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/rs/zerolog"
)

// Event is one thing that happened during a turn. The set is closed: switch
// on the concrete types below. Functional events (MessageDelta,
// ThoughtDelta, ToolCallContent) carry the answer; the rest are telemetry.
type Event interface{ isEvent() }

// TurnStatus is how a turn, or its dispatch, ended.
type TurnStatus string

// Turn and dispatch statuses.
const (
	// TurnCompleted: the dispatch acked and no error ended it; for a turn,
	// the output pipeline ran too.
	TurnCompleted TurnStatus = "completed"
	// TurnFailed: it was nacked, or an error ended it (even after an Ack;
	// see the Err of TurnEnd or DispatchEnd).
	TurnFailed TurnStatus = "failed"
	// TurnAborted: ctx was cancelled.
	TurnAborted TurnStatus = "aborted"
	// TurnSuspended: it stopped to wait on approvals
	// (Options.SuspendOnApproval); Runner.Resume continues it.
	TurnSuspended TurnStatus = "suspended"
)

// TurnStart is the first event of every turn.
type TurnStart struct {
	TurnID    string
	StartedAt time.Time
}

// TurnEnd is the last event of every turn.
type TurnEnd struct {
	TurnID    string
	Status    TurnStatus
	Err       error
	StartedAt time.Time
	EndedAt   time.Time
	Duration  time.Duration
}

// DispatchStart opens the dispatch (the model/tool loop).
type DispatchStart struct {
	TurnID, DispatchID string
	StartedAt          time.Time
}

// DispatchEnd closes it. Iterations is the number of iterations that ran
// (model calls made).
type DispatchEnd struct {
	TurnID, DispatchID string
	Status             TurnStatus
	Err                error
	Iterations         int
	StartedAt          time.Time
	EndedAt            time.Time
	Duration           time.Duration
}

// IterationStart opens one iteration: forge tools, input pipeline, model
// call, tools, output pipeline. An iteration after the first starts when
// the one before it ended: its StartedAt is that one's EndedAt.
type IterationStart struct {
	DispatchID string
	Iteration  int
	StartedAt  time.Time
}

// IterationEnd closes an iteration that ran to its end.
type IterationEnd struct {
	DispatchID string
	Iteration  int
	StartedAt  time.Time
	EndedAt    time.Time
	Duration   time.Duration
}

// MessageDelta streams the assistant's answer. Full is everything so far.
// A message whose response failed part way is closed by an event with Err
// set, IsComplete false and CompletedAt the time of the failure; it is not
// stored.
type MessageDelta struct {
	ID          string
	Delta       string
	Full        string
	IsComplete  bool
	Err         error
	CreatedAt   time.Time
	CompletedAt time.Time // zero until IsComplete or Err
}

// ThoughtDelta streams reasoning; Payload and ReplayCompatibility carry
// opaque replay data (set on the completing event). A failed response
// closes its thoughts as it closes its message (see [MessageDelta]).
type ThoughtDelta struct {
	ID                  string
	Delta               string
	Full                string
	Payload             json.RawMessage
	ReplayCompatibility string
	IsComplete          bool
	Err                 error
	CreatedAt           time.Time
	CompletedAt         time.Time
}

// ToolCallContent is a tool call on the functional stream: first announced
// (IsComplete false, no results), then completed with the same ID (Results,
// IsError, CompletedAt, and Call, the stored record). Checksum equals
// Checksum on the ToolExecution events, ID their ToolCallID. CreatedAt is
// when the response that made the call ended; CompletedAt is when its
// handler returned (for output read from a stream, when the stream was
// read), or when the runner refused the call.
type ToolCallContent struct {
	ID         string
	Tool       string
	Args       json.RawMessage
	Checksum   string
	Results    forge.Results
	IsError    bool
	IsComplete bool
	// Cancelled marks a call the turn's cancellation interrupted or kept
	// from running; its completing event has IsComplete false and IsError
	// true, and the result text carries E_TOOL_CALL_CANCELLED.
	Cancelled   bool
	Call        *forge.ToolCall
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CompletedAt time.Time
}

// ToolExecutionStart is reported when a handler starts. ToolCallID is
// the call's id (ToolCallContent.ID), which tells apart two identical calls
// of one response; Checksum is the call's checksum.
type ToolExecutionStart struct {
	TurnID, DispatchID string
	ToolName           string
	ToolCallID         string
	Checksum           string
	Args               map[string]any
	StartedAt          time.Time
}

// ToolExecutionEnd is reported when a handler settles. Like every event's
// times, StartedAt (the start event's) and EndedAt come from Options.Now;
// Duration is EndedAt - StartedAt, or 0 if a clock stepped back.
type ToolExecutionEnd struct {
	TurnID, DispatchID string
	ToolName           string
	ToolCallID         string
	Checksum           string
	StartedAt          time.Time
	EndedAt            time.Time
	Duration           time.Duration
	IsError            bool
	Err                error
}

// LoopDecision is a loop-guard decision a [LoopGuard] event reports.
type LoopDecision string

// Loop-guard decisions.
const (
	// LoopBlockedRepeat: the call was not executed; the model got an error
	// result saying it already made it, and what it returned.
	LoopBlockedRepeat LoopDecision = "blocked-repeat"
	// LoopFinalize: the model repeated a blocked call; one last no-tools
	// iteration follows.
	LoopFinalize LoopDecision = "finalize"
	// LoopIterationLimit: the iteration cap is reached; this iteration is
	// the final no-tools one.
	LoopIterationLimit LoopDecision = "iteration-limit"
)

// LoopGuard reports a loop-guard decision: a repeated call the guard did
// not run, or the last iteration it asked for.
type LoopGuard struct {
	DispatchID string
	Iteration  int
	Decision   LoopDecision
	Tool       string // "" for iteration-limit
	ToolCallID string
	Checksum   string
	Count      int
	Limit      int
	Message    string
}

// GateOpen reports a suspended turn: resolve or reject Gate.
type GateOpen struct {
	Gate *Gate
}

// GateResult is how a gate settled.
type GateResult string

// Gate results.
const (
	GateResolved GateResult = "resolved"
	GateRejected GateResult = "rejected"
	GateTimeout  GateResult = "timeout"
	GateAborted  GateResult = "aborted"
	// GateDenied is an approval gate resolved with a denial (false).
	GateDenied GateResult = "denied"
	// GateSuspended is an approval gate left open when its turn was
	// suspended (Options.SuspendOnApproval); Runner.Resume answers it.
	GateSuspended GateResult = "suspended"
)

// GateClosed reports a settled gate.
type GateClosed struct {
	GateID, TurnID string
	Result         GateResult
	SettledAt      time.Time
}

// Log is a note logged by middleware or a tool handler with
// dispatch.Context.Log or TurnContext.Log. It arrives in order with the
// events of the goroutine that logged it. DispatchID is "" and Iteration 0
// for a note logged by turn middleware before the dispatch starts.
type Log struct {
	DispatchID string
	Iteration  int
	Level      zerolog.Level
	Kind       string
	Message    string
	Payload    any
	EmittedAt  time.Time
}

// Warning is a recoverable problem (e.g. a truncated answer).
type Warning struct {
	DispatchID string
	Iteration  int
	Kind       string
	Message    string
	Err        error
	EmittedAt  time.Time
}

// Error reports an error as it happens (the same error also ends up on
// DispatchEnd or TurnEnd when it ends them).
type Error struct {
	DispatchID string
	Iteration  int
	Err        error
	EmittedAt  time.Time
}

// GenerationStats reports one model call's usage and stop reason.
// ResponseID is the id the response's timeline entries carry
// (dispatch.Entry.ResponseID).
type GenerationStats struct {
	DispatchID string
	Iteration  int
	ResponseID string
	Usage      llm.Usage
	HasUsage   bool
	StopReason llm.StopReason
	Duration   time.Duration
}

func (TurnStart) isEvent()          {}
func (TurnEnd) isEvent()            {}
func (DispatchStart) isEvent()      {}
func (DispatchEnd) isEvent()        {}
func (IterationStart) isEvent()     {}
func (IterationEnd) isEvent()       {}
func (MessageDelta) isEvent()       {}
func (ThoughtDelta) isEvent()       {}
func (ToolCallContent) isEvent()    {}
func (ToolExecutionStart) isEvent() {}
func (ToolExecutionEnd) isEvent()   {}
func (LoopGuard) isEvent()          {}
func (GateOpen) isEvent()           {}
func (GateClosed) isEvent()         {}
func (Log) isEvent()                {}
func (Warning) isEvent()            {}
func (Error) isEvent()              {}
func (GenerationStats) isEvent()    {}
