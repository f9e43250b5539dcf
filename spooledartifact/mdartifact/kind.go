package mdartifact

import (
	"context"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/internal/method"
)

// Name is the kind's name, shown as the artifact's kind in handles.
const Name = "SpooledMarkdownArtifact"

// Defaults for the zero Kind's limits.
const (
	// DefaultMaxParseBytes caps the line range parsed for links, images,
	// text and the syntax tree (it is held in memory while parsed).
	DefaultMaxParseBytes = 8 << 20
	// DefaultMaxAnswerBytes caps the text of one forged-tool answer.
	DefaultMaxAnswerBytes = 64 << 10
)

// FrontMatterLines is how far front matter may reach: its closing "---"
// must be on one of the first FrontMatterLines lines.
const FrontMatterLines = 200

// Kind is the Markdown artifact kind ("SpooledMarkdownArtifact"). The zero
// value uses the default limits. Kind is comparable.
type Kind struct {
	// MaxParseBytes caps the bytes of a line range parsed with goldmark; 0
	// means DefaultMaxParseBytes. A larger range is ErrTooLarge.
	MaxParseBytes int
	// MaxParseWork is the work budget of one parse of a line range, in
	// units of about a byte scanned (see DefaultMaxParseWork); 0 means
	// DefaultMaxParseWork. A parse that spends it is ErrTooComplex.
	MaxParseWork int64
	// MaxAnswerBytes caps one forged-tool answer; 0 means
	// DefaultMaxAnswerBytes. A longer answer is cut and ends with a
	// "(truncated: ...)" note.
	MaxAnswerBytes int
}

// Name returns "SpooledMarkdownArtifact".
func (Kind) Name() string { return Name }

// Wrap returns New(id, r, k). Nothing is read until the first query.
func (k Kind) Wrap(ctx context.Context, id string, r spooledartifact.Reader) (forge.Artifact, error) {
	return New(id, r, k), nil
}

// Methods returns the eight forged Markdown query methods (artifact_md_*).
func (k Kind) Methods() []spooledartifact.Method { return methods() }

// The limits in effect: a field of 0 means its default.
func (k Kind) maxParseBytes() int {
	return method.LimitOr(k.MaxParseBytes, DefaultMaxParseBytes)
}

func (k Kind) maxParseWork() int64 {
	return method.LimitOr(k.MaxParseWork, DefaultMaxParseWork)
}

func (k Kind) maxAnswerBytes() int {
	return method.LimitOr(k.MaxAnswerBytes, DefaultMaxAnswerBytes)
}

var _ spooledartifact.Kind = Kind{}
