package media

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// FileReader serves a regular file, re-opened on every Open. Its Size is the
// file's size when the reader was built. Safe for concurrent use.
type FileReader struct {
	path string
	size int64
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
	return &FileReader{path: abs, size: fi.Size()}, nil
}

// Path is the absolute path.
func (r *FileReader) Path() string { return r.path }

// Open opens the file afresh. Reads fail with ctx's error once ctx is done.
func (r *FileReader) Open(ctx context.Context) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(r.path)
	if err != nil {
		return nil, ErrMediaReadFailed.With(err, "media: file reader")
	}
	return &ctxFile{ctx: ctx, f: f}, nil
}

// Size is the file's size when the reader was built.
func (r *FileReader) Size() int64 { return r.size }

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
	ctx context.Context
	f   *os.File
}

func (c *ctxFile) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.f.Read(p)
}

func (c *ctxFile) Close() error { return c.f.Close() }
