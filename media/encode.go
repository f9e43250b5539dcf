package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Bytes reads the whole media into memory. When limit is positive, media
// longer than limit bytes yields [ErrMediaTooLarge] (early when the size is
// known); zero or less means no limit.
func (m *Media) Bytes(ctx context.Context, limit int64) ([]byte, error) {
	size := m.reader.Size()
	if limit > 0 && size > limit {
		return nil, ErrMediaTooLarge.With(nil, "media: %s is %d bytes, limit %d", m.id, size, limit)
	}
	rc, err := m.reader.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var src io.Reader = rc
	if limit > 0 {
		src = io.LimitReader(rc, limit+1)
	}
	var buf bytes.Buffer
	if size > 0 {
		buf.Grow(int(size))
	}
	if _, err := buf.ReadFrom(src); err != nil {
		return nil, err
	}
	if limit > 0 && int64(buf.Len()) > limit {
		return nil, ErrMediaTooLarge.With(nil, "media: %s exceeds limit %d", m.id, limit)
	}
	return buf.Bytes(), nil
}

// WriteBase64 streams the media to w as standard, padded base64, holding at
// most one copy buffer in memory.
func (m *Media) WriteBase64(ctx context.Context, w io.Writer) error {
	rc, err := m.reader.Open(ctx)
	if err != nil {
		return err
	}
	enc := base64.NewEncoder(base64.StdEncoding, w)
	_, err = io.Copy(enc, rc)
	err = errors.Join(err, enc.Close(), rc.Close())
	return err
}

// WriteDataURL streams "data:<mime>;base64,<bytes>" to w.
func (m *Media) WriteDataURL(ctx context.Context, w io.Writer) error {
	if _, err := io.WriteString(w, m.dataURLPrefix()); err != nil {
		return err
	}
	return m.WriteBase64(ctx, w)
}

// Base64 returns the media as a standard, padded base64 string.
func (m *Media) Base64(ctx context.Context) (string, error) {
	var sb strings.Builder
	if size := m.reader.Size(); size > 0 {
		sb.Grow(base64.StdEncoding.EncodedLen(int(size)))
	}
	if err := m.WriteBase64(ctx, &sb); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// DataURL returns "data:<mime>;base64,<bytes>", as the chat APIs accept for
// inline images.
func (m *Media) DataURL(ctx context.Context) (string, error) {
	prefix := m.dataURLPrefix()
	var sb strings.Builder
	if size := m.reader.Size(); size > 0 {
		sb.Grow(len(prefix) + base64.StdEncoding.EncodedLen(int(size)))
	}
	if err := m.WriteDataURL(ctx, &sb); err != nil {
		return "", err
	}
	return sb.String(), nil
}

func (m *Media) dataURLPrefix() string { return "data:" + m.mimeType + ";base64," }

// Base64Reader returns a stream of the media as standard, padded base64,
// encoded as it is read (no goroutine, one chunk in memory). The caller
// closes it, which closes the underlying stream.
func (m *Media) Base64Reader(ctx context.Context) (io.ReadCloser, error) {
	rc, err := m.reader.Open(ctx)
	if err != nil {
		return nil, err
	}
	b := &base64Reader{src: rc, chunk: make([]byte, base64Chunk)}
	b.enc = base64.NewEncoder(base64.StdEncoding, &b.out)
	return b, nil
}

// base64Chunk is how many source bytes base64Reader pulls at a time.
const base64Chunk = 32 << 10

// base64Reader pulls a chunk from src, encodes it into out, and serves out.
type base64Reader struct {
	src   io.ReadCloser
	chunk []byte
	enc   io.WriteCloser // writes to out
	out   bytes.Buffer
	err   error // sticky: io.EOF once src and enc are drained, or a failure
}

func (b *base64Reader) Read(p []byte) (int, error) {
	for b.out.Len() == 0 {
		if b.err != nil {
			return 0, b.err
		}
		n, err := b.src.Read(b.chunk)
		if n > 0 {
			b.enc.Write(b.chunk[:n]) // writes to a bytes.Buffer cannot fail
		}
		switch {
		case err == io.EOF:
			b.enc.Close() // flush the final partial group and padding
			b.err = io.EOF
		case err != nil:
			b.err = err
		}
	}
	return b.out.Read(p)
}

func (b *base64Reader) Close() error { return b.src.Close() }

// Metadata is the JSON form of a Media: everything but the bytes. Reader,
// when set, is the persisted reader (see [Media.Record]).
type Metadata struct {
	ID             string                `json:"id"`
	Kind           Kind                  `json:"kind"`
	MIMEType       string                `json:"mimeType"`
	Filename       string                `json:"filename"`
	Source         string                `json:"source,omitempty"`
	TrustTier      TrustTier             `json:"trustTier"`
	ModalityHazard Hazard                `json:"modalityHazard"`
	Stash          map[string]StashEntry `json:"stash"`
	Reader         *Descriptor           `json:"reader,omitempty"`
}

// Metadata returns the media's metadata (Reader left nil).
func (m *Media) Metadata() Metadata {
	stash := m.StashAll()
	if stash == nil {
		stash = map[string]StashEntry{}
	}
	return Metadata{
		ID: m.id, Kind: m.kind, MIMEType: m.mimeType, Filename: m.filename, Source: m.source,
		TrustTier: m.tier, ModalityHazard: m.hazard, Stash: stash,
	}
}

// MarshalJSON writes {id, kind, mimeType, filename, source, trustTier,
// modalityHazard, stash}: metadata only, never the bytes.
func (m *Media) MarshalJSON() ([]byte, error) { return json.Marshal(m.Metadata()) }

// Record returns the metadata with the reader's descriptor, for persistence;
// a reader that cannot describe itself yields [ErrReaderNotDescribable].
func (m *Media) Record() (Metadata, error) {
	d, err := DescribeReader(m.reader)
	if err != nil {
		return Metadata{}, err
	}
	md := m.Metadata()
	md.Reader = &d
	return md, nil
}

// FromRecord rebuilds a Media from [Media.Record]'s output, resolving the
// reader with [ResolveReader] and validating everything again with [New]. A
// record without a reader yields [ErrNotAMediaReader].
func FromRecord(rec Metadata, opts *ResolveOptions) (*Media, error) {
	if rec.Reader == nil {
		return nil, ErrNotAMediaReader.With(nil, "media: record %q has no reader", rec.ID)
	}
	r, err := ResolveReader(*rec.Reader, opts)
	if err != nil {
		return nil, err
	}
	return New(Raw{
		ID: rec.ID, Kind: rec.Kind, MIMEType: rec.MIMEType, Filename: rec.Filename, Reader: r,
		TrustTier: rec.TrustTier, Hazard: rec.ModalityHazard, Source: rec.Source, Stash: rec.Stash,
	})
}
