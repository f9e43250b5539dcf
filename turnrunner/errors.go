package turnrunner

import "github.com/ebbforge/adk/forge"

// Sentinels for errors.Is. They use the kit's one error type, [forge.Error];
// each Code is stable (the original's E_... code where one exists; the
// events' wire form writes it).
var (
	ErrInvalidConfig      = &forge.Error{Code: "E_INVALID_TURN_RUNNER_CONFIG", Status: 529, Fatal: true}
	ErrInvalidTurnContext = &forge.Error{Code: "E_INVALID_TURN_CONTEXT", Status: 529, Fatal: true}
	ErrInputPipeline      = &forge.Error{Code: "E_INPUT_PIPELINE_ERROR", Status: 500}
	ErrOutputPipeline     = &forge.Error{Code: "E_OUTPUT_PIPELINE_ERROR", Status: 500}
	ErrDispatchPipeline   = &forge.Error{Code: "E_DISPATCH_PIPELINE_ERROR", Status: 500}
	ErrShortCircuited     = &forge.Error{Code: "E_PIPELINE_SHORT_CIRCUITED", Status: 500}
	// ErrNextCalledTwice is what a middleware's second call of next returns.
	ErrNextCalledTwice = &forge.Error{Code: "E_PIPELINE_NEXT_CALLED_TWICE", Status: 500}
	// ErrNextCalledLate is what a next called after its middleware returned
	// (from a goroutine the middleware left running) returns; it does nothing.
	ErrNextCalledLate        = &forge.Error{Code: "E_PIPELINE_NEXT_CALLED_LATE", Status: 500}
	ErrModel                 = &forge.Error{Code: "E_LLM_EXECUTION_EXECUTOR_ERROR", Status: 500}
	ErrGateTimeout           = &forge.Error{Code: "E_TURN_GATE_TIMEOUT", Status: 408}
	ErrGateAborted           = &forge.Error{Code: "E_TURN_GATE_ABORTED", Status: 499}
	ErrGateRejected          = &forge.Error{Code: "E_TURN_GATE_REJECTED", Status: 403}
	ErrInvalidGateResolution = &forge.Error{Code: "E_INVALID_TURN_GATE_RESOLUTION", Status: 500, Fatal: true}
	ErrInvalidGate           = &forge.Error{Code: "E_INVALID_INITIAL_TURN_GATE_VALUE", Status: 500, Fatal: true}
	// ErrInvalidToolCallArgs is the error result of arguments that are not a JSON object.
	ErrInvalidToolCallArgs = &forge.Error{Code: "E_INVALID_TOOL_CALL_ARGS", Status: 422}
	// ErrToolNotFound is the error result of a call to an unknown tool.
	ErrToolNotFound = &forge.Error{Code: "E_TOOL_NOT_FOUND", Status: 404}
	// ErrToolCallCancelled marks a call the turn's cancellation interrupted.
	ErrToolCallCancelled = &forge.Error{Code: "E_TOOL_CALL_CANCELLED", Status: 499}
	// ErrToolCallNotExecuted marks a call the runner refused to run
	// (truncated response, final iteration, denied approval).
	ErrToolCallNotExecuted = &forge.Error{Code: "E_TOOL_CALL_NOT_EXECUTED", Status: 409}
	// ErrTruncatedResponse is the Warning for an answer cut at max_tokens.
	ErrTruncatedResponse = &forge.Error{Code: "E_MODEL_RESPONSE_TRUNCATED", Status: 502}
	// ErrToolCallArgsTooLarge is the error result (and Warning) of a response
	// whose tool-call arguments exceed Options.MaxToolCallArgBytes.
	ErrToolCallArgsTooLarge = &forge.Error{Code: "E_TOOL_CALL_ARGS_TOO_LARGE", Status: 413}
)

// The codes of the loop guard's error results, which the model reads.
var (
	errRepeatedToolCall = &forge.Error{Code: "E_LOOP_GUARD_REPEATED_TOOL_CALL", Status: 429}
	errIterationLimit   = &forge.Error{Code: "E_LOOP_GUARD_ITERATION_LIMIT", Status: 429}
)
