package turnrunner

import "github.com/ebbforge/adk/forge"

// Error codes owned by turnrunner (the original's E_... codes where one
// exists). They use the kit's one error type, [forge.Error].
const (
	CodeInvalidConfig         forge.Code = "E_INVALID_TURN_RUNNER_CONFIG"
	CodeInvalidTurnContext    forge.Code = "E_INVALID_TURN_CONTEXT"
	CodeInputPipeline         forge.Code = "E_INPUT_PIPELINE_ERROR"
	CodeOutputPipeline        forge.Code = "E_OUTPUT_PIPELINE_ERROR"
	CodeDispatchPipeline      forge.Code = "E_DISPATCH_PIPELINE_ERROR"
	CodeShortCircuited        forge.Code = "E_PIPELINE_SHORT_CIRCUITED"
	CodeModel                 forge.Code = "E_LLM_EXECUTION_EXECUTOR_ERROR"
	CodeGateTimeout           forge.Code = "E_TURN_GATE_TIMEOUT"
	CodeGateAborted           forge.Code = "E_TURN_GATE_ABORTED"
	CodeGateRejected          forge.Code = "E_TURN_GATE_REJECTED"
	CodeInvalidGateResolution forge.Code = "E_INVALID_TURN_GATE_RESOLUTION"
	CodeInvalidGate           forge.Code = "E_INVALID_INITIAL_TURN_GATE_VALUE"
	CodeInvalidToolCallArgs   forge.Code = "E_INVALID_TOOL_CALL_ARGS"
	CodeToolNotFound          forge.Code = "E_TOOL_NOT_FOUND"
	CodeToolCallCancelled     forge.Code = "E_TOOL_CALL_CANCELLED"
	CodeToolCallNotExecuted   forge.Code = "E_TOOL_CALL_NOT_EXECUTED"
	CodeTruncatedResponse     forge.Code = "E_MODEL_RESPONSE_TRUNCATED"
	CodeToolCallArgsTooLarge  forge.Code = "E_TOOL_CALL_ARGS_TOO_LARGE"
	CodeNextCalledTwice       forge.Code = "E_PIPELINE_NEXT_CALLED_TWICE"
	CodeNextCalledLate        forge.Code = "E_PIPELINE_NEXT_CALLED_LATE"
)

// Sentinels for errors.Is.
var (
	ErrInvalidConfig      = &forge.Error{Code: CodeInvalidConfig, Status: 529, Fatal: true}
	ErrInvalidTurnContext = &forge.Error{Code: CodeInvalidTurnContext, Status: 529, Fatal: true}
	ErrInputPipeline      = &forge.Error{Code: CodeInputPipeline, Status: 500}
	ErrOutputPipeline     = &forge.Error{Code: CodeOutputPipeline, Status: 500}
	ErrDispatchPipeline   = &forge.Error{Code: CodeDispatchPipeline, Status: 500}
	ErrShortCircuited     = &forge.Error{Code: CodeShortCircuited, Status: 500}
	// ErrNextCalledTwice is what a middleware's second call of next returns.
	ErrNextCalledTwice = &forge.Error{Code: CodeNextCalledTwice, Status: 500}
	// ErrNextCalledLate is what a next called after its middleware returned
	// (from a goroutine the middleware left running) returns; it does nothing.
	ErrNextCalledLate        = &forge.Error{Code: CodeNextCalledLate, Status: 500}
	ErrModel                 = &forge.Error{Code: CodeModel, Status: 500}
	ErrGateTimeout           = &forge.Error{Code: CodeGateTimeout, Status: 408}
	ErrGateAborted           = &forge.Error{Code: CodeGateAborted, Status: 499}
	ErrGateRejected          = &forge.Error{Code: CodeGateRejected, Status: 403}
	ErrInvalidGateResolution = &forge.Error{Code: CodeInvalidGateResolution, Status: 500, Fatal: true}
	ErrInvalidGate           = &forge.Error{Code: CodeInvalidGate, Status: 500, Fatal: true}
	// ErrInvalidToolCallArgs is the error result of arguments that are not a JSON object.
	ErrInvalidToolCallArgs = &forge.Error{Code: CodeInvalidToolCallArgs, Status: 422}
	// ErrToolNotFound is the error result of a call to an unknown tool.
	ErrToolNotFound = &forge.Error{Code: CodeToolNotFound, Status: 404}
	// ErrToolCallCancelled marks a call the turn's cancellation interrupted.
	ErrToolCallCancelled = &forge.Error{Code: CodeToolCallCancelled, Status: 499}
	// ErrToolCallNotExecuted marks a call the runner refused to run
	// (truncated response, final iteration, denied approval).
	ErrToolCallNotExecuted = &forge.Error{Code: CodeToolCallNotExecuted, Status: 409}
	// ErrTruncatedResponse is the Warning for an answer cut at max_tokens.
	ErrTruncatedResponse = &forge.Error{Code: CodeTruncatedResponse, Status: 502}
	// ErrToolCallArgsTooLarge is the error result (and Warning) of a response
	// whose tool-call arguments exceed Options.MaxToolCallArgBytes.
	ErrToolCallArgsTooLarge = &forge.Error{Code: CodeToolCallArgsTooLarge, Status: 413}
)
