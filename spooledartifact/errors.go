package spooledartifact

import "github.com/ebbforge/adk/forge"

// Sentinels for errors.Is. The values are *forge.Error with stable codes, so
// callers branch with errors.Is(err, spooledartifact.ErrInvalidID) and read
// Code and Status with errors.As.
var (
	// ErrInvalidID is returned for an id that is empty, too long, not valid
	// UTF-8 or holds a NUL or another control character.
	ErrInvalidID = &forge.Error{Code: "E_INVALID_ARTIFACT_ID", Status: 422}
	// ErrInvalidRegex is returned for a grep pattern or flag set RE2 cannot
	// parse; the message tells the model what to fix.
	ErrInvalidRegex = &forge.Error{Code: "E_INVALID_REGEX", Status: 422}
	// ErrUnsupportedRegex is returned for JavaScript-only regex features
	// (lookaround, backreferences, atomic groups) that RE2 does not have.
	ErrUnsupportedRegex = &forge.Error{Code: "E_UNSUPPORTED_REGEX", Status: 422}
	// ErrNotAnArtifactKind is returned by Spool when the kind given is not a
	// spooledartifact.Kind (for example a media type).
	ErrNotAnArtifactKind = &forge.Error{Code: "E_NOT_AN_ARTIFACT_KIND", Status: 500, Fatal: true}
	// ErrWriteInterrupted is returned by DiskStore.Write when the temporary
	// file it was writing disappeared before it could be renamed into
	// place (another process swept the directory). Nothing is stored and
	// the previous version, if any, stays; writing again may succeed.
	ErrWriteInterrupted = &forge.Error{Code: "E_ARTIFACT_WRITE_INTERRUPTED", Status: 500}
)
