package mdartifact

import "github.com/ebbforge/adk/forge"

// Error codes owned by mdartifact. Errors are *forge.Error values; match
// them with errors.Is against the sentinels below.
const (
	CodeTooLarge           forge.Code = "E_MD_ARTIFACT_TOO_LARGE"
	CodeInvalidFrontMatter forge.Code = "E_MD_ARTIFACT_INVALID_FRONT_MATTER"
	CodeTooDeep            forge.Code = "E_MD_ARTIFACT_TOO_DEEP"
	CodeTooComplex         forge.Code = "E_MD_ARTIFACT_TOO_COMPLEX"
)

// Sentinels for errors.Is.
var (
	// ErrTooLarge: a line range to parse is above Kind.MaxParseBytes.
	ErrTooLarge = &forge.Error{Code: CodeTooLarge, Status: 413}
	// ErrInvalidFrontMatter: the front matter is not valid YAML (or expands
	// beyond the alias budget).
	ErrInvalidFrontMatter = &forge.Error{Code: CodeInvalidFrontMatter, Status: 422}
	// ErrTooDeep: a line of a range to parse is nested in more than
	// MaxNesting block quotes and list items.
	ErrTooDeep = &forge.Error{Code: CodeTooDeep, Status: 422}
	// ErrTooComplex: parsing a line range spent its work budget
	// (Kind.MaxParseWork) before it ended, as Markdown crafted to make
	// inline parsing quadratic does.
	ErrTooComplex = &forge.Error{Code: CodeTooComplex, Status: 422}
)
