package media

import (
	"strconv"
	"strings"

	"github.com/ebbforge/adk/internal/errcode"
)

// Code is a stable error code shared with the TypeScript original (E_...).
type Code = errcode.Code

// Error codes owned by media.
const (
	CodeInvalidInitialMediaValue Code = "E_INVALID_INITIAL_MEDIA_VALUE"
	CodeNotAMediaReader          Code = "E_NOT_A_MEDIA_READER"
	CodeReaderNotDescribable     Code = "E_READER_NOT_DESCRIBABLE"
	CodeNoReaderResolver         Code = "E_NO_READER_RESOLVER"
	CodeInvalidReaderLocator     Code = "E_INVALID_MEDIA_READER_LOCATOR"
	CodeMediaFetchFailed         Code = "E_MEDIA_FETCH_FAILED"
	CodeMediaTooLarge            Code = "E_MEDIA_TOO_LARGE"
	CodeMediaReadFailed          Code = "E_MEDIA_READ_FAILED"
)

// Error is the kit's coded error (see [errcode.Error]): errors.Is(err,
// sentinel) matches on Code; errors.As with *media.Error reads Code, Status
// and Fatal.
type Error = errcode.Error

// Sentinels for errors.Is.
var (
	// ErrInvalidInitialMediaValue: [New] or a factory was given bad input.
	// The cause is a *[ValidationError] naming every field at fault.
	ErrInvalidInitialMediaValue = &Error{Code: CodeInvalidInitialMediaValue, Status: 500, Fatal: true}
	// ErrNotAMediaReader: the Reader was nil (or a nil pointer).
	ErrNotAMediaReader = &Error{Code: CodeNotAMediaReader, Status: 500, Fatal: true}
	// ErrReaderNotDescribable: persisting a reader that cannot describe itself.
	ErrReaderNotDescribable = &Error{Code: CodeReaderNotDescribable, Status: 422}
	// ErrNoReaderResolver: resolving a descriptor whose tag is unknown or not
	// enabled in the [ResolveOptions].
	ErrNoReaderResolver = &Error{Code: CodeNoReaderResolver, Status: 422}
	// ErrInvalidReaderLocator: a descriptor's locator does not decode, or a
	// reader constructor was given an unusable path or URL.
	ErrInvalidReaderLocator = &Error{Code: CodeInvalidReaderLocator, Status: 422}
	// ErrMediaFetchFailed: an HTTP reader's request failed or answered with a
	// non-2xx status (the cause is then a *[StatusError]).
	ErrMediaFetchFailed = &Error{Code: CodeMediaFetchFailed, Status: 502}
	// ErrMediaTooLarge: the bytes exceed a size limit (an [HTTPReader]'s
	// MaxBytes or the limit given to [Media.Bytes]).
	ErrMediaTooLarge = &Error{Code: CodeMediaTooLarge, Status: 413}
	// ErrMediaReadFailed: a file reader could not stat or open its file (the
	// cause is the *fs.PathError, so errors.Is(err, fs.ErrNotExist) works).
	ErrMediaReadFailed = &Error{Code: CodeMediaReadFailed, Status: 500}
)

// Problem is one field at fault in a [ValidationError].
type Problem struct {
	Field  string // e.g. "kind", "stash[text:caption].trustTier"
	Reason string
	// Err, when set, is a more specific sentinel for this problem (e.g.
	// [ErrNotAMediaReader] for the reader field); errors.Is reaches it.
	Err error
}

// ValidationError lists every field at fault in a constructor input. It is
// the cause of [ErrInvalidInitialMediaValue].
type ValidationError struct {
	Problems []Problem
}

// Error joins the problems with " and ", like the TypeScript original.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Field + ": " + p.Reason
	}
	return strings.Join(parts, " and ")
}

// Unwrap returns the problems' specific sentinels, so errors.Is(err,
// ErrNotAMediaReader) holds when the reader was one of several faults.
func (e *ValidationError) Unwrap() []error {
	var errs []error
	for _, p := range e.Problems {
		if p.Err != nil {
			errs = append(errs, p.Err)
		}
	}
	return errs
}

// Fields lists the fields at fault, in the order found.
func (e *ValidationError) Fields() []string {
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p.Field
	}
	return out
}

// StatusError is the cause of [ErrMediaFetchFailed] when the server answered
// with a non-2xx status.
type StatusError struct {
	StatusCode int
	URL        string
}

// Error renders "media: GET <url>: status <code>".
func (e *StatusError) Error() string {
	return "media: GET " + e.URL + ": status " + strconv.Itoa(e.StatusCode)
}
