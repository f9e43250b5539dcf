package dispatch

import "github.com/ebbforge/adk/forge"

// Sentinels for errors.Is. They use the kit's one error type, [forge.Error];
// each Code is stable (the events' wire form writes it).
var (
	// ErrAlreadySignalled is returned by a second Ack or Nack.
	ErrAlreadySignalled = &forge.Error{Code: "E_LLM_EXECUTION_ALREADY_SIGNALLED", Status: 500, Fatal: true}
	// ErrInvalidContext reports a bad [Config] given to [New].
	ErrInvalidContext = &forge.Error{Code: "E_INVALID_LLM_EXECUTION_CONTEXT", Status: 529, Fatal: true}
	// ErrGateNotSupported is returned by WaitFor on a context built without a gate.
	ErrGateNotSupported = &forge.Error{Code: "E_LLM_EXECUTION_GATE_NOT_SUPPORTED", Status: 501}
	// ErrNacked is the error stored by Nack(nil).
	ErrNacked = &forge.Error{Code: "E_LLM_EXECUTION_NACKED", Status: 500, Message: "dispatch: nacked without an explicit error"}
	// ErrInvalidInitialMessage reports a bad [RawMessage].
	ErrInvalidInitialMessage = &forge.Error{Code: "E_INVALID_INITIAL_MESSAGE_VALUE", Status: 500, Fatal: true}
	// ErrInvalidInitialThought reports a bad [RawThought].
	ErrInvalidInitialThought = &forge.Error{Code: "E_INVALID_INITIAL_THOUGHT_VALUE", Status: 500, Fatal: true}
	// ErrInvalidLoopPolicy reports a negative limit in a [LoopPolicy].
	ErrInvalidLoopPolicy = &forge.Error{Code: "E_INVALID_LOOP_POLICY", Status: 529, Fatal: true}
	// ErrRepeatedToolCall is the code of the error result a blocked repeat gets.
	ErrRepeatedToolCall = &forge.Error{Code: "E_LOOP_GUARD_REPEATED_TOOL_CALL", Status: 429}
	// ErrIterationLimit marks a dispatch that reached LoopPolicy.MaxIterations.
	ErrIterationLimit = &forge.Error{Code: "E_LOOP_GUARD_ITERATION_LIMIT", Status: 429}
	// ErrStore wraps a failure of the persistence [Store].
	ErrStore = &forge.Error{Code: "E_DISPATCH_STORE_ERROR", Status: 500}
)

// ErrTurnNotFound reports a turn a [ConversationStore] does not hold.
var ErrTurnNotFound = &forge.Error{Code: "E_DISPATCH_TURN_NOT_FOUND", Status: 404}
