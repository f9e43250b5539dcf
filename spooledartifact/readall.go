package spooledartifact

import (
	"context"
	"errors"
	"io"
	"strings"
	"unsafe"
)

// textReader is a strings.Reader that remembers its string, so that a
// MemoryStore can keep the string instead of copying it.
type textReader struct {
	strings.Reader
	text string
}

func newTextReader(text string) *textReader {
	t := &textReader{text: text}
	t.Reset(text)
	return t
}

// readChunk is the first chunk size for a reader of unknown length; chunks
// double up to maxReadChunk.
const (
	readChunk    = 4 << 10
	maxReadChunk = 4 << 20
)

// readAllSized reads r to the end, failing once ctx is done, holding the
// content once: an unread textReader's string is returned as is (the bytes
// alias it: the stores' readers never write to their data), a reader with
// a Len method is read into one buffer of that size, and any other reader
// into a list of chunks copied once into a buffer of the total size.
func readAllSized(ctx context.Context, r io.Reader) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t, ok := r.(*textReader); ok && t.Len() == len(t.text) {
		_, _ = t.Seek(0, io.SeekEnd) // consumed, as if read
		return unsafe.Slice(unsafe.StringData(t.text), len(t.text)), nil
	}
	src := ctxReader{ctx, r}
	if l, ok := r.(interface{ Len() int }); ok {
		// One more byte than announced, to learn at once that it was all.
		buf := make([]byte, 0, l.Len()+1)
		return readInto(src, buf)
	}
	var chunks [][]byte
	total, size := 0, readChunk
	for {
		c := make([]byte, size)
		n, err := io.ReadFull(src, c)
		if n > 0 {
			chunks = append(chunks, c[:n])
			total += n
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, maxReadChunk)
	}
	if len(chunks) == 1 && len(chunks[0]) == cap(chunks[0]) {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil
	}
	return out, nil
}

// readInto appends the rest of r to buf, growing it only if r gives more
// than buf's capacity.
func readInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
