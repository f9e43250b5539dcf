package dispatch

import "github.com/ebbforge/adk/forge"

// Error codes owned by dispatch. They use the kit's one error type,
// [forge.Error], so errors.Is(err, dispatch.ErrAlreadySignalled) works.
const (
	CodeAlreadySignalled      forge.Code = "E_LLM_EXECUTION_ALREADY_SIGNALLED"
	CodeInvalidContext        forge.Code = "E_INVALID_LLM_EXECUTION_CONTEXT"
	CodeGateNotSupported      forge.Code = "E_LLM_EXECUTION_GATE_NOT_SUPPORTED"
	CodeNacked                forge.Code = "E_LLM_EXECUTION_NACKED"
	CodeInvalidInitialMessage forge.Code = "E_INVALID_INITIAL_MESSAGE_VALUE"
	CodeInvalidInitialThought forge.Code = "E_INVALID_INITIAL_THOUGHT_VALUE"
	CodeInvalidLoopPolicy     forge.Code = "E_INVALID_LOOP_POLICY"
	CodeRepeatedToolCall      forge.Code = "E_LOOP_GUARD_REPEATED_TOOL_CALL"
	CodeIterationLimit        forge.Code = "E_LOOP_GUARD_ITERATION_LIMIT"
	CodeStoreFailed           forge.Code = "E_DISPATCH_STORE_ERROR"
)

// Sentinels for errors.Is.
var (
	// ErrAlreadySignalled is returned by a second Ack or Nack.
	ErrAlreadySignalled = &forge.Error{Code: CodeAlreadySignalled, Status: 500, Fatal: true}
	// ErrInvalidContext reports a bad [Config] given to [New].
	ErrInvalidContext = &forge.Error{Code: CodeInvalidContext, Status: 529, Fatal: true}
	// ErrGateNotSupported is returned by WaitFor on a context built without a gate.
	ErrGateNotSupported = &forge.Error{Code: CodeGateNotSupported, Status: 501}
	// ErrNacked is the error stored by Nack(nil).
	ErrNacked = &forge.Error{Code: CodeNacked, Status: 500, Message: "dispatch: nacked without an explicit error"}
	// ErrInvalidInitialMessage reports a bad [RawMessage].
	ErrInvalidInitialMessage = &forge.Error{Code: CodeInvalidInitialMessage, Status: 500, Fatal: true}
	// ErrInvalidInitialThought reports a bad [RawThought].
	ErrInvalidInitialThought = &forge.Error{Code: CodeInvalidInitialThought, Status: 500, Fatal: true}
	// ErrInvalidLoopPolicy reports a negative limit in a [LoopPolicy].
	ErrInvalidLoopPolicy = &forge.Error{Code: CodeInvalidLoopPolicy, Status: 529, Fatal: true}
	// ErrRepeatedToolCall is the code of the error result a blocked repeat gets.
	ErrRepeatedToolCall = &forge.Error{Code: CodeRepeatedToolCall, Status: 429}
	// ErrIterationLimit marks a dispatch that reached LoopPolicy.MaxIterations.
	ErrIterationLimit = &forge.Error{Code: CodeIterationLimit, Status: 429}
	// ErrStore wraps a failure of the persistence [Store].
	ErrStore = &forge.Error{Code: CodeStoreFailed, Status: 500}
)

// CodeTurnNotFound is the code of [ErrTurnNotFound].
const CodeTurnNotFound forge.Code = "E_DISPATCH_TURN_NOT_FOUND"

// ErrTurnNotFound reports a turn a [ConversationStore] does not hold.
var ErrTurnNotFound = &forge.Error{Code: CodeTurnNotFound, Status: 404}
