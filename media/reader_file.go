package media

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
)

// FileReader serves a regular file, re-opened (and re-statted) on every
// Open. Safe for concurrent use.
type FileReader struct {
	path string
	size atomic.Int64 // the latest stat's size
}

// NewFileReader stats path (made absolute, so a persisted descriptor
// survives a change of working directory) and returns a reader over it. A
// missing file yields [ErrMediaReadFailed]; a directory or other non-regular
// file yields [ErrInvalidReaderLocator].
func NewFileReader(path string) (*FileReader, error) {
	if path == "" {
		return nil, ErrInvalidReaderLocator.With(nil, "media: file reader: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, ErrInvalidReaderLocator.With(err, "media: file reader: %q", path)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, ErrMediaReadFailed.With(err, "media: file reader")
	}
	if !fi.Mode().IsRegular() {
		return nil, ErrInvalidReaderLocator.With(nil, "media: file reader: %q is not a regular file", abs)
	}
	r := &FileReader{path: abs}
	r.size.Store(fi.Size())
	return r, nil
}

// Path is the absolute path.
func (r *FileReader) Path() string { return r.path }

// Open opens the file afresh and stats it, updating Size. Reads fail with
// ctx's error once ctx is done. A file gone missing yields
// [ErrMediaReadFailed]; one replaced by a directory or other non-regular
// file yields [ErrInvalidReaderLocator].
func (r *FileReader) Open(ctx context.Context) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Stat before opening: opening a FIFO that replaced the file would
	// block (ignoring ctx) before the check after the open could refuse it.
	if fi, err := os.Stat(r.path); err == nil && !fi.Mode().IsRegular() {
		return nil, ErrInvalidReaderLocator.With(nil, "media: file reader: %q is not a regular file", r.path)
	}
	f, err := os.Open(r.path)
	if err != nil {
		return nil, ErrMediaReadFailed.With(err, "media: file reader")
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, ErrMediaReadFailed.With(err, "media: file reader")
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, ErrInvalidReaderLocator.With(nil, "media: file reader: %q is not a regular file", r.path)
	}
	r.size.Store(fi.Size())
	return &ctxFile{ctx: ctx, f: f}, nil
}

// Size is a hint: the file's size at the latest Open (or, before any, when
// the reader was built). The file can change between the stat and the
// reads, so a stream may yield more or fewer bytes.
func (r *FileReader) Size() int64 { return r.size.Load() }

// fileLocator is the persisted form.
type fileLocator struct {
	Path string `json:"path"`
}

// Describe returns [TagFile] and {"path": "/abs/path"}.
func (r *FileReader) Describe() (tag string, locator json.RawMessage, ok bool) {
	b, err := json.Marshal(fileLocator{Path: r.path})
	if err != nil {
		return "", nil, false
	}
	return TagFile, b, true
}

// ctxFile stops reading once its Open's context is done, like an HTTP body.
// Holding ctx here is the stream's lifetime, not the reader's.
type ctxFile struct {
	ctx    context.Context
	f      *os.File
	closed atomic.Bool
}

func (c *ctxFile) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.f.Read(p)
}

// Close closes the file; later calls do nothing and return nil, like an HTTP
// body's.
func (c *ctxFile) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	return c.f.Close()
}
