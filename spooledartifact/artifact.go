package spooledartifact

import (
	"context"

	"github.com/ebbforge/adk/forge"
)

// PlainKind is the base artifact kind ("SpooledArtifact"): the seven base
// query tools and nothing more. The zero value is ready to use.
type PlainKind struct{}

// Name returns "SpooledArtifact".
func (PlainKind) Name() string { return "SpooledArtifact" }

// Wrap returns New(id, r).
func (PlainKind) Wrap(ctx context.Context, id string, r Reader) (forge.Artifact, error) {
	return New(id, r), nil
}

// Methods returns no methods beyond the base seven.
func (PlainKind) Methods() []Method { return nil }

// Kinded is implemented by artifacts that know their Kind; every artifact
// built by a Kind's Wrap does. Richer kinds embed *Artifact and override
// ArtifactKind and Kind.
type Kinded interface {
	forge.Artifact
	ArtifactKind() Kind
}

// Artifact is a read-only, line-indexed view over spooled bytes. Safe for
// concurrent use.
type Artifact struct {
	id string
	r  Reader
}

// New returns the base artifact over r, stored under id.
func New(id string, r Reader) *Artifact { return &Artifact{id: id, r: r} }

// ID is the store id.
func (a *Artifact) ID() string { return a.id }

// Kind returns "SpooledArtifact".
func (a *Artifact) Kind() string { return PlainKind{}.Name() }

// ArtifactKind returns PlainKind.
func (a *Artifact) ArtifactKind() Kind { return PlainKind{} }

// Reader returns the underlying reader.
func (a *Artifact) Reader() Reader { return a.r }

// ByteLength is the size in bytes.
func (a *Artifact) ByteLength(ctx context.Context) (int64, error) { return a.r.ByteLength(), nil }

// LineCount is the number of lines.
func (a *Artifact) LineCount(ctx context.Context) (int, error) { return a.r.LineCount(), nil }

// Head returns lines [0, min(n, count)); n <= 0 means 10.
func (a *Artifact) Head(ctx context.Context, n int) ([]string, error) { return nil, nil }

// Tail returns lines [max(0, count-n), count); n <= 0 means 10.
func (a *Artifact) Tail(ctx context.Context, n int) ([]string, error) { return nil, nil }

// Cat returns lines [start, end), clamped; end < 0 means to the last line.
func (a *Artifact) Cat(ctx context.Context, start, end int) ([]string, error) { return nil, nil }

// ReadAll returns the whole content, byte-faithful.
func (a *Artifact) ReadAll(ctx context.Context) ([]byte, error) { return nil, nil }

// EstimateTokens estimates the tokens of the whole content under enc.
func (a *Artifact) EstimateTokens(ctx context.Context, enc forge.Encoding) (int, error) {
	return 0, nil
}
