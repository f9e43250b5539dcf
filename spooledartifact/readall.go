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

// readLimits shapes how a reader of unknown length is read: in chunks of
// first bytes, doubling up to max; content up to join bytes is then copied
// into one buffer, anything longer is kept in its chunks. Zero fields take
// the defaults.
type readLimits struct{ first, max, join int }

func (l readLimits) norm() readLimits {
	if l.first <= 0 {
		l.first = 4 << 10
	}
	if l.max <= 0 {
		l.max = 4 << 20
	}
	if l.join <= 0 {
		l.join = l.max
	}
	return l
}

// readAllSized reads r to the end, failing once ctx is done, holding the
// content once. It returns the content in one piece (data), or in several
// (chunks, data nil) for a long reader of unknown length: an unread
// textReader's string is returned
// as is (the bytes alias it: the stores' readers never write to their
// data), a reader with a Len method is read into one buffer of that size,
// and any other reader is read in chunks of up to lim.max bytes, which are
// copied into one buffer of the content's size when they hold at most
// lim.join bytes and kept as they are otherwise (the last one copied to its
// size when it is mostly unused).
func readAllSized(ctx context.Context, r io.Reader, lim readLimits) (data []byte, chunks [][]byte, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if t, ok := r.(*textReader); ok && t.Len() == len(t.text) {
		_, _ = t.Seek(0, io.SeekEnd) // consumed, as if read
		return unsafe.Slice(unsafe.StringData(t.text), len(t.text)), nil, nil
	}
	src := ctxReader{ctx, r}
	if l, ok := r.(interface{ Len() int }); ok {
		// One more byte than announced, to learn at once that it was all.
		data, err := readInto(src, make([]byte, 0, l.Len()+1))
		return data, nil, err
	}
	lim = lim.norm()
	total, size := 0, lim.first
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
			return nil, nil, err
		}
		size = min(2*size, lim.max)
	}
	if len(chunks) > 1 && total > lim.join {
		// Kept as they are: only the last chunk may be mostly unused, and
		// it is at most lim.max bytes to copy.
		if last := chunks[len(chunks)-1]; len(last) < cap(last)/2 {
			chunks[len(chunks)-1] = append(make([]byte, 0, len(last)), last...)
		}
		return nil, chunks, nil
	}
	if len(chunks) == 1 && len(chunks[0]) == cap(chunks[0]) {
		return chunks[0], nil, nil
	}
	data = make([]byte, 0, total)
	for i, c := range chunks {
		data = append(data, c...)
		chunks[i] = nil
	}
	return data, nil, nil
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
