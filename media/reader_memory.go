package media

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
)

// Reader tags written by the built-in readers' Describe methods.
const (
	TagInMemory = "media:in-memory"
	TagFile     = "media:file"
	TagHTTP     = "media:http"
)

// MemoryReader serves bytes held in memory. The zero value is an empty
// reader. Safe for concurrent use.
type MemoryReader struct {
	b []byte
}

// NewMemoryReader returns a reader over a copy of b.
func NewMemoryReader(b []byte) *MemoryReader {
	return &MemoryReader{b: bytes.Clone(b)}
}

// Open returns a fresh stream over the bytes, or ctx's error if it is done.
func (r *MemoryReader) Open(ctx context.Context) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// io.NopCloser keeps bytes.Reader's WriteTo, so io.Copy skips a buffer.
	return io.NopCloser(bytes.NewReader(r.b)), nil
}

// Size is the byte length, always exact.
func (r *MemoryReader) Size() int64 { return int64(len(r.b)) }

// memoryLocator is the persisted form: the bytes, base64-encoded.
type memoryLocator struct {
	BytesBase64 []byte `json:"bytesBase64"`
}

// Describe returns [TagInMemory] and {"bytesBase64": "..."}; the bytes are
// inlined, so persist large media with a file or HTTP reader instead.
func (r *MemoryReader) Describe() (tag string, locator json.RawMessage, ok bool) {
	b, err := json.Marshal(memoryLocator{BytesBase64: r.b})
	if err != nil {
		return "", nil, false
	}
	return TagInMemory, b, true
}
