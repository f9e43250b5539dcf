package dispatch

import "github.com/ebbforge/adk/forge"

// Sentinels for errors.Is. They use the kit's one error type, [forge.Error];
// each Code is stable (the events' wire form writes it).
var (
	// ErrAlreadySignalled is returned by a second Ack or Nack.
	ErrAlreadySignalled = &forge.Error{Code: "E_LLM_EXECUTION_ALREADY_SIGNALLED", Status: 500, Fatal: true}
	// ErrNacked is the error stored by Nack(nil).
	ErrNacked = &forge.Error{Code: "E_LLM_EXECUTION_NACKED", Status: 500, Message: "dispatch: nacked without an explicit error"}
	// ErrInvalidInitialMessage reports a bad [RawMessage].
	ErrInvalidInitialMessage = &forge.Error{Code: "E_INVALID_INITIAL_MESSAGE_VALUE", Status: 500, Fatal: true}
	// ErrInvalidInitialThought reports a bad [RawThought].
	ErrInvalidInitialThought = &forge.Error{Code: "E_INVALID_INITIAL_THOUGHT_VALUE", Status: 500, Fatal: true}
	// ErrStore wraps a failure of the persistence [Store].
	ErrStore = &forge.Error{Code: "E_DISPATCH_STORE_ERROR", Status: 500}
)

// ErrTurnNotFound reports a turn a [ConversationStore] does not hold.
var ErrTurnNotFound = &forge.Error{Code: "E_DISPATCH_TURN_NOT_FOUND", Status: 404}

// Errors of the runner's use of a Context, which a bad input to the turn
// runner reports under its own codes first.
var (
	// errInvalidContext reports a bad config given to newContext.
	errInvalidContext = &forge.Error{Code: "E_INVALID_LLM_EXECUTION_CONTEXT", Status: 529, Fatal: true}
	// errGateNotSupported is returned by WaitFor on a context built without a gate.
	errGateNotSupported = &forge.Error{Code: "E_LLM_EXECUTION_GATE_NOT_SUPPORTED", Status: 501}
)
