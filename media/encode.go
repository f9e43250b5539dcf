package media

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"
)

// maxPrealloc caps the buffer pre-allocated from a reader's Size: Size is
// only a hint (a server's Content-Length, a custom reader's claim), so a lie
// costs at most this much, and honest larger media simply grow past it.
const maxPrealloc = 64 << 20

// preallocHint is how many source bytes to pre-allocate for a stream whose
// reader claims size, read with limit (<= 0: none): 0 when size is unknown,
// never more than limit+1 or [maxPrealloc].
func preallocHint(size, limit int64) int {
	if size <= 0 {
		return 0
	}
	size = min(size, maxPrealloc)
	if limit > 0 && limit < size { // not min(size, limit+1): limit+1 can overflow
		size = limit + 1
	}
	return int(size)
}

// Bytes reads the whole media into memory. When limit is positive, media
// longer than limit bytes yields [ErrMediaTooLarge]; zero or less means no
// limit. The result depends only on the bytes read: the reader's Size is
// just a capped pre-allocation hint, so a wrong Size never fails or panics.
func (m *Media) Bytes(ctx context.Context, limit int64) ([]byte, error) {
	hint := preallocHint(m.Size(), limit)
	rc, err := m.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var src io.Reader = rc
	// Read one byte past limit to tell "exactly limit" from "longer". At
	// math.MaxInt64, limit+1 would overflow (and io.LimitReader would yield
	// nothing); no stream can exceed that limit, so read without one.
	if limit > 0 && limit < math.MaxInt64 {
		src = io.LimitReader(rc, limit+1)
	}
	b, err := readAll(src, hint)
	if err != nil {
		return nil, err
	}
	if limit > 0 && int64(len(b)) > limit {
		return nil, ErrMediaTooLarge.With(nil, "media: %s exceeds limit %d", m.id, limit)
	}
	return b, nil
}

// readAll is io.ReadAll starting from hint bytes of capacity; one spare byte
// lets a stream of exactly hint bytes reach EOF without a reallocation.
func readAll(r io.Reader, hint int) ([]byte, error) {
	b := make([]byte, 0, max(hint+1, 512))
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the growth
		}
	}
}

// WriteBase64 streams the media to w as standard, padded base64, holding one
// 48 KiB chunk (and its encoding) in memory.
func (m *Media) WriteBase64(ctx context.Context, w io.Writer) error {
	rc, err := m.Open(ctx)
	if err != nil {
		return err
	}
	e := newChunkEncoder(rc)
	for {
		out, err := e.next()
		if len(out) > 0 {
			if _, werr := w.Write(out); werr != nil {
				return errors.Join(werr, rc.Close())
			}
		}
		if err == io.EOF {
			return rc.Close()
		}
		if err != nil {
			return errors.Join(err, rc.Close())
		}
	}
}

// WriteDataURL streams "data:<mime>;base64,<bytes>" to w.
func (m *Media) WriteDataURL(ctx context.Context, w io.Writer) error {
	if _, err := io.WriteString(w, m.dataURLPrefix()); err != nil {
		return err
	}
	return m.WriteBase64(ctx, w)
}

// Base64 returns the media as a standard, padded base64 string. Like
// [Media.Bytes], it takes the reader's Size only as a capped hint.
func (m *Media) Base64(ctx context.Context) (string, error) {
	var sb strings.Builder
	sb.Grow(base64.StdEncoding.EncodedLen(preallocHint(m.Size(), 0)))
	if err := m.WriteBase64(ctx, &sb); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// DataURL returns "data:<mime>;base64,<bytes>", as the chat APIs accept for
// inline images. Like [Media.Bytes], it takes the reader's Size only as a
// capped hint.
func (m *Media) DataURL(ctx context.Context) (string, error) {
	prefix := m.dataURLPrefix()
	var sb strings.Builder
	sb.Grow(len(prefix) + base64.StdEncoding.EncodedLen(preallocHint(m.Size(), 0)))
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
	rc, err := m.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &base64Reader{src: rc, enc: newChunkEncoder(rc)}, nil
}

// base64Chunk is how many source bytes are encoded at a time: a multiple of
// 3, so only the final chunk needs padding.
const base64Chunk = 3 * 16 << 10

// chunkEncoder reads full chunks from src and encodes each in one call,
// which is several times faster than base64.NewEncoder's 768-byte steps.
type chunkEncoder struct {
	src     io.Reader
	in, out []byte
	done    bool
}

func newChunkEncoder(src io.Reader) *chunkEncoder {
	return &chunkEncoder{
		src: src,
		in:  make([]byte, base64Chunk),
		out: make([]byte, base64.StdEncoding.EncodedLen(base64Chunk)),
	}
}

// next returns the next encoded chunk (valid until the following call), and
// io.EOF with or after the last one.
func (e *chunkEncoder) next() ([]byte, error) {
	if e.done {
		return nil, io.EOF
	}
	// Not io.ReadFull: it reports a short final chunk as io.ErrUnexpectedEOF,
	// which would hide the same error from src (a truncated HTTP body).
	n := 0
	var err error
	for n < len(e.in) && err == nil {
		var k int
		k, err = e.src.Read(e.in[n:])
		n += k
	}
	switch err {
	case nil:
	case io.EOF:
		e.done = true
	default:
		return nil, err
	}
	out := e.out[:base64.StdEncoding.EncodedLen(n)]
	base64.StdEncoding.Encode(out, e.in[:n])
	return out, err
}

// base64Reader serves chunkEncoder's output through Read.
type base64Reader struct {
	src     io.Closer
	enc     *chunkEncoder
	pending []byte
	err     error // sticky: io.EOF after the last chunk, or a read failure
}

func (b *base64Reader) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.pending, b.err = b.enc.next()
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
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
