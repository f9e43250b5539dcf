package forge

import "github.com/ebbforge/adk/internal/errcode"

// Code is a stable error code shared with the TypeScript original (E_...), so
// logs and docs line up across languages.
type Code = errcode.Code

// Error codes owned by forge. Other packages (dispatch, turnrunner) define
// their own codes with the same [Error] type.
const (
	CodeInvalidInitialToolCallValue  Code = "E_INVALID_INITIAL_TOOL_CALL_VALUE"
	CodeInvalidInitialToolValue      Code = "E_INVALID_INITIAL_TOOL_VALUE"
	CodeInvalidToolArgs              Code = "E_INVALID_TOOL_ARGS"
	CodeToolDownstreamError          Code = "E_TOOL_DOWNSTREAM_ERROR"
	CodeToolAlreadyRegistered        Code = "E_TOOL_ALREADY_REGISTERED"
	CodeTokenizableEvaluatorInvalid  Code = "E_TOKENIZABLE_EVALUATOR_INVALID"
	CodeTokenEstimatorShadowsBuiltin Code = "E_TOKEN_ESTIMATOR_SHADOWS_BUILTIN"
	CodeUnknownTokenEncoding         Code = "E_UNKNOWN_TOKEN_ENCODING"
	CodeChecksumMismatch             Code = "E_TOOL_CALL_CHECKSUM_MISMATCH"
)

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
	ErrInvalidInitialToolCallValue  = &Error{Code: CodeInvalidInitialToolCallValue, Status: 500, Fatal: true}
	ErrInvalidInitialToolValue      = &Error{Code: CodeInvalidInitialToolValue, Status: 500, Fatal: true}
	ErrInvalidToolArgs              = &Error{Code: CodeInvalidToolArgs, Status: 422}
	ErrToolDownstreamError          = &Error{Code: CodeToolDownstreamError, Status: 500}
	ErrToolAlreadyRegistered        = &Error{Code: CodeToolAlreadyRegistered, Status: 409, Fatal: true}
	ErrTokenizableEvaluatorInvalid  = &Error{Code: CodeTokenizableEvaluatorInvalid, Status: 500, Fatal: true}
	ErrTokenEstimatorShadowsBuiltin = &Error{Code: CodeTokenEstimatorShadowsBuiltin, Status: 409, Fatal: true}
	ErrUnknownTokenEncoding         = &Error{Code: CodeUnknownTokenEncoding, Status: 422}
	ErrChecksumMismatch             = &Error{Code: CodeChecksumMismatch, Status: 422}
)
