package jsonartifact

import "github.com/ebbforge/adk/forge"

// Error codes owned by jsonartifact. Errors are *forge.Error values; match
// them with errors.Is against the sentinels below.
const (
	CodeUnsupportedFormat forge.Code = "E_JSON_ARTIFACT_UNSUPPORTED_FORMAT"
	CodeTooLarge          forge.Code = "E_JSON_ARTIFACT_TOO_LARGE"
	CodeInvalidRecord     forge.Code = "E_JSON_ARTIFACT_INVALID_RECORD"
	CodeInvalidPath       forge.Code = "E_JSON_ARTIFACT_INVALID_PATH"
	CodeTooDeep           forge.Code = "E_JSON_ARTIFACT_TOO_DEEP"
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
	// ErrInvalidPath: a path uses JSONPath syntax (brackets such as
	// items[0] or [*], or recursive descent ..) that gjson would read as
	// literal keys matching nothing; the message gives the gjson spelling.
	// The forged tools report it as forge.ErrInvalidToolArgs.
	ErrInvalidPath = &forge.Error{Code: CodeInvalidPath, Status: 422}
	// ErrTooDeep: a json/json5 document or a JSON Lines record nests arrays
	// and objects more than MaxDepth deep; the parsers recurse per level, so
	// it is refused before any parses it.
	ErrTooDeep = &forge.Error{Code: CodeTooDeep, Status: 422}
)
