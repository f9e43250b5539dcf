package forge

import "github.com/ebbforge/adk/internal/errcode"

// Code is a stable error code shared with the TypeScript original (E_...), so
// logs and docs line up across languages. Each sentinel below carries one;
// other packages (dispatch, turnrunner) define their own sentinels with the
// same [Error] type.
type Code = errcode.Code

// Error is the kit's error value: a stable code, an HTTP-like status, a fatal
// flag (programming error rather than runtime failure) and an optional cause.
// errors.Is(err, sentinel) matches on Code, so callers branch on
// errors.Is(err, forge.ErrInvalidToolArgs) and never on message text; use
// errors.As with *forge.Error to read Code, Status and Fatal. A typed-nil
// *Error target matches nothing.
type Error = errcode.Error

// Sentinels for errors.Is. They are read-only identities compared by Code:
// branch with errors.Is(err, ErrInvalidToolArgs) and build a concrete error
// with ErrX.With(cause, format, ...), which returns a copy. Never assign to
// a sentinel's fields: every importer shares the pointer.
var (
	ErrInvalidInitialToolCallValue  = &Error{Code: "E_INVALID_INITIAL_TOOL_CALL_VALUE", Status: 500, Fatal: true}
	ErrInvalidInitialToolValue      = &Error{Code: "E_INVALID_INITIAL_TOOL_VALUE", Status: 500, Fatal: true}
	ErrInvalidToolArgs              = errcode.InvalidToolArgs
	ErrToolDownstreamError          = &Error{Code: "E_TOOL_DOWNSTREAM_ERROR", Status: 500}
	ErrToolAlreadyRegistered        = &Error{Code: "E_TOOL_ALREADY_REGISTERED", Status: 409, Fatal: true}
	ErrTokenizableEvaluatorInvalid  = &Error{Code: "E_TOKENIZABLE_EVALUATOR_INVALID", Status: 500, Fatal: true}
	ErrTokenEstimatorShadowsBuiltin = &Error{Code: "E_TOKEN_ESTIMATOR_SHADOWS_BUILTIN", Status: 409, Fatal: true}
	ErrUnknownTokenEncoding         = &Error{Code: "E_UNKNOWN_TOKEN_ENCODING", Status: 422}
	ErrChecksumMismatch             = &Error{Code: "E_TOOL_CALL_CHECKSUM_MISMATCH", Status: 422}
)
