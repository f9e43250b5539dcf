package jsonartifact

import "github.com/ebbforge/adk/forge"

// Error codes owned by jsonartifact. Errors are *forge.Error values; match
// them with errors.Is against the sentinels below.
const (
	CodeUnsupportedFormat forge.Code = "E_JSON_ARTIFACT_UNSUPPORTED_FORMAT"
	CodeTooLarge          forge.Code = "E_JSON_ARTIFACT_TOO_LARGE"
	CodeInvalidRecord     forge.Code = "E_JSON_ARTIFACT_INVALID_RECORD"
)

// Sentinels for errors.Is.
var (
	// ErrUnsupportedFormat: the bytes are neither JSON, JSON Lines nor JSON5
	// (or the Format hint is unknown, or the bytes do not match it).
	ErrUnsupportedFormat = &forge.Error{Code: CodeUnsupportedFormat, Status: 422}
	// ErrTooLarge: a single document above Kind.MaxDocumentBytes, or a JSON
	// Lines record above Kind.MaxRecordBytes.
	ErrTooLarge = &forge.Error{Code: CodeTooLarge, Status: 413}
	// ErrInvalidRecord: a JSON Lines record (a non-empty line) is not valid
	// JSON. Inference validates every line of artifacts up to
	// MaxDocumentBytes; above that, a bad line is found when a query reaches it.
	ErrInvalidRecord = &forge.Error{Code: CodeInvalidRecord, Status: 422}
)
