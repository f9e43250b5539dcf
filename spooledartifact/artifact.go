package spooledartifact

import (
	"bytes"
	"context"
	"io"

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
// concurrent use. Every query takes a context and stops when it is
// cancelled; over this package's stores, Head, Tail and Cat cost what they
// return.
type Artifact struct {
	id string
	r  Reader
}

var _ Kinded = (*Artifact)(nil)

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
func (a *Artifact) ByteLength(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return a.r.ByteLength(), nil
}

// LineCount is the number of lines.
func (a *Artifact) LineCount(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return a.r.LineCount(), nil
}

// DefaultLines is the n of Head and Tail when n <= 0.
const DefaultLines = 10

// Head returns lines [0, min(n, count)); n <= 0 means 10.
func (a *Artifact) Head(ctx context.Context, n int) ([]string, error) {
	if n <= 0 {
		n = DefaultLines
	}
	return a.Cat(ctx, 0, n)
}

// Tail returns lines [max(0, count-n), count); n <= 0 means 10. It seeks
// through the line index and never scans the content.
func (a *Artifact) Tail(ctx context.Context, n int) ([]string, error) {
	if n <= 0 {
		n = DefaultLines
	}
	count := a.r.LineCount()
	return a.Cat(ctx, max(0, count-n), count)
}

// ToEnd as the end of Cat or EachLine means "through the last line": the
// original's default when end is omitted.
const ToEnd = -1

// Cat returns lines [start, end): start is clamped to >= 0 and end to <= the
// line count, and end <= start (after clamping) gives an empty result, as
// in the original. One exception: any negative end means the line count
// (write ToEnd), so Cat(ctx, 0, ToEnd) returns every line where the
// original's cat(0, -1) gives []; the artifact_cat tool relies on it for an
// omitted end (its schema refuses a negative one).
func (a *Artifact) Cat(ctx context.Context, start, end int) ([]string, error) {
	var out []string
	err := a.EachLine(ctx, start, end, func(_ int, line []byte) error {
		out = append(out, string(line))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// EachLine calls fn with each line in [start, end) (clamped as Cat does, a
// negative end meaning ToEnd), in
// order, without collecting them; line is valid only during the call and
// must not be modified (it may be the stored text itself). It
// stops at fn's first error and returns it.
func (a *Artifact) EachLine(ctx context.Context, start, end int, fn func(i int, line []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	count := a.r.LineCount()
	if end < 0 || end > count {
		end = count
	}
	start = max(start, 0)
	if start >= end {
		return nil
	}
	if lr, ok := a.r.(lineRanger); ok {
		return lr.Lines(ctx, start, end, fn)
	}
	for i := start; i < end; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, ok, err := a.r.Line(ctx, i)
		if err != nil {
			return err
		}
		if !ok { // a reader gap is skipped, as in the original
			continue
		}
		if err := fn(i, line); err != nil {
			return err
		}
	}
	return nil
}

// ReadAll returns the whole content, byte-faithful. It holds the whole
// artifact in memory; prefer Copy for big artifacts.
func (a *Artifact) ReadAll(ctx context.Context) ([]byte, error) {
	var buf bytes.Buffer
	if n := a.r.ByteLength(); n > 0 && n < 1<<30 {
		buf.Grow(int(n))
	}
	if _, err := a.Copy(ctx, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Copy streams the whole content to w, byte-faithful, in bounded memory, and
// returns the bytes written.
func (a *Artifact) Copy(ctx context.Context, w io.Writer) (int64, error) {
	rc, err := a.r.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return io.CopyBuffer(w, ctxReader{ctx, rc}, make([]byte, 256<<10))
}
