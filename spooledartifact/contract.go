package spooledartifact

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/ebbforge/adk/forge"
)

// ErrNotFound is returned when a store holds no entry under an id.
var ErrNotFound = errors.New("spooledartifact: not found")

// Reader is random access to one spooled, line-indexed byte sequence.
// Line semantics: split on '\n' only ('\r' stays), 0-based; "" has 0 lines;
// a final '\n' ends the last line rather than starting another, so "a\nb"
// and "a\nb\n" have 2 ("a", "b") and "a\n\n" has 2 ("a", ""). Safe for
// concurrent use.
type Reader interface {
	// ByteLength is the size in bytes.
	ByteLength() int64
	// LineCount is the number of lines; stable for the reader's lifetime.
	LineCount() int
	// Line returns line i without its '\n'; ok is false out of range.
	Line(ctx context.Context, i int) (line []byte, ok bool, err error)
	// Open streams the whole content, byte-faithful; the caller closes it.
	Open(ctx context.Context) (io.ReadCloser, error)
}

// Store keeps spooled bytes under ids. Writing an id again replaces it.
// Ids are sanitised: no path traversal.
type Store interface {
	// Write streams r into the store under id and returns a reader over it.
	Write(ctx context.Context, id string, r io.Reader) (Reader, error)
	// Read returns the reader for id, or ErrNotFound.
	Read(ctx context.Context, id string) (Reader, error)
	// Delete removes id; it reports whether it existed.
	Delete(ctx context.Context, id string) (bool, error)
	// List returns the ids with the given prefix, sorted.
	List(ctx context.Context, prefix string) ([]string, error)
}

// Method is one model-callable query of an artifact kind, forged into an
// artifact_* tool.
type Method struct {
	// Tool is the forged tool's name, e.g. "artifact_head".
	Tool string
	// Description is shown to the model (and listed in handles).
	Description string
	// Params is the JSON Schema "properties" object of the extra arguments
	// (callId is added by the Forger), and Required lists the required ones.
	Params   json.RawMessage
	Required []string
	// Call runs the query on a and renders the model-facing text.
	Call func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error)
}

// Kind is an artifact type: it wraps spooled bytes and adds query methods on
// top of the base seven. The JSON and Markdown kinds live in subpackages.
type Kind interface {
	forge.ArtifactKind
	// Wrap builds the kind's artifact over r, stored under id.
	Wrap(ctx context.Context, id string, r Reader) (forge.Artifact, error)
	// Methods lists the kind's own methods (not the base seven).
	Methods() []Method
}
