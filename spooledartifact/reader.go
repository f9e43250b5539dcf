package spooledartifact

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// lineRanger is an optional Reader capability: stream lines [start, end) in
// order from one seek, so a range costs what it returns. The readers of this
// package's stores implement it; Artifact falls back to Reader.Line without it.
type lineRanger interface {
	// Lines calls fn for each line in [start, end) (clamped) in order; line
	// is only valid during the call and must not be modified (it may be
	// the stored text itself). It stops at fn's first error and
	// returns it, and stops with ctx's error when ctx is cancelled.
	Lines(ctx context.Context, start, end int, fn func(i int, line []byte) error) error
}

// spoolReader is the Reader of both stores: bytes in memory in one piece
// (data), or read at offsets (at) from a file (f) or from in-memory chunks,
// plus a sparse line index. It is a snapshot: replacing the id in the store
// never changes what it returns. A DiskStore closes the file of every
// reader of an id when it deletes the id; reads then fail with an error
// that matches ErrNotFound.
type spoolReader struct {
	data []byte      // the content in one piece, when at is nil
	at   io.ReaderAt // the content otherwise: f, or a *chunks
	f    *snapFile   // on-disk content, closed by Close
	idx  lineIndex

	closeOnce sync.Once
}

var (
	_ Reader     = (*spoolReader)(nil)
	_ lineRanger = (*spoolReader)(nil)
)

// errDeleted is what a read of a spilled reader returns once its store
// deleted the artifact (and closed the file).
var errDeleted = fmt.Errorf("%w: the artifact was deleted from its store", ErrNotFound)

// snapFile is a reader's open file; a read after the store closed it
// reports errDeleted rather than os.ErrClosed.
type snapFile struct{ f *os.File }

func (s *snapFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := s.f.ReadAt(p, off)
	if errors.Is(err, os.ErrClosed) {
		err = errDeleted
	}
	return n, err
}

func newMemoryReader(data []byte, shape indexShape) *spoolReader {
	b := newIndexBuilder(shape)
	_, _ = b.Write(data)
	return &spoolReader{data: data, idx: b.done()}
}

// newChunkedReader reads content kept in the chunks it was read in.
func newChunkedReader(parts [][]byte, shape indexShape) *spoolReader {
	b := newIndexBuilder(shape)
	c := &chunks{parts: parts, ends: make([]int64, len(parts))}
	var end int64
	for i, p := range parts {
		_, _ = b.Write(p)
		end += int64(len(p))
		c.ends[i] = end
	}
	return &spoolReader{at: c, idx: b.done()}
}

// chunks is content in memory in several pieces, read at offsets like a
// file.
type chunks struct {
	parts [][]byte
	ends  []int64 // ends[i] is the offset just past parts[i]
}

func (c *chunks) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("spooledartifact: negative offset")
	}
	i, _ := slices.BinarySearch(c.ends, off+1) // the first part ending after off
	n := 0
	for ; i < len(c.parts) && n < len(p); i++ {
		start := c.ends[i] - int64(len(c.parts[i]))
		n += copy(p[n:], c.parts[i][off+int64(n)-start:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (r *spoolReader) ByteLength() int64 { return r.idx.size }
func (r *spoolReader) LineCount() int    { return r.idx.lines }

// Close releases the file of an on-disk reader (a no-op in memory). Without
// it the descriptor is released when the reader is garbage collected or
// when the store deletes the artifact, whichever comes first.
func (r *spoolReader) Close() error {
	var err error
	r.closeOnce.Do(func() {
		if r.f != nil {
			err = r.f.f.Close()
			if errors.Is(err, os.ErrClosed) { // the store closed it first
				err = nil
			}
		}
	})
	return err
}

// Line returns a copy of line i.
func (r *spoolReader) Line(ctx context.Context, i int) ([]byte, bool, error) {
	if i < 0 || i >= r.idx.lines {
		return nil, false, nil
	}
	var out []byte
	err := r.Lines(ctx, i, i+1, func(_ int, line []byte) error {
		out = append([]byte{}, line...)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// Open streams the whole content.
func (r *spoolReader) Open(ctx context.Context) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.at == nil {
		return io.NopCloser(bytes.NewReader(r.data)), nil
	}
	return &fileStream{r: r, sr: io.NewSectionReader(r.at, 0, r.idx.size)}, nil
}

// fileStream keeps its spoolReader (and so its file) reachable while the
// stream is in use.
type fileStream struct {
	r  *spoolReader
	sr *io.SectionReader
}

func (s *fileStream) Read(p []byte) (int, error)              { return s.sr.Read(p) }
func (s *fileStream) ReadAt(p []byte, off int64) (int, error) { return s.sr.ReadAt(p, off) }
func (s *fileStream) Close() error                            { return nil }

// Lines streams [start, end) after one index seek.
func (r *spoolReader) Lines(ctx context.Context, start, end int, fn func(int, []byte) error) error {
	return r.lines(ctx, start, end, -1, func(i int, line []byte, _ bool) error { return fn(i, line) })
}

// lines is Lines with a cap: with limit >= 0 a line longer than limit bytes
// is cut to its first limit bytes (cut is true) and never held whole.
func (r *spoolReader) lines(ctx context.Context, start, end, limit int, fn func(i int, line []byte, cut bool) error) error {
	start = max(start, 0)
	end = min(end, r.idx.lines)
	if start >= end {
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	line, off := r.idx.checkpoint(start)
	if r.at == nil {
		return r.memLines(ctx, line, off, start, end, limit, fn)
	}
	return r.atLines(ctx, line, off, start, end, limit, fn)
}

func (r *spoolReader) memLines(ctx context.Context, line int, off int64, start, end, limit int, fn func(int, []byte, bool) error) error {
	rest := r.data[off:]
	if k := start - line; k > 0 {
		q, _ := skipLines(rest, k) // the index says line start exists
		rest, line = rest[q:], start
	}
	for ; line < end; line++ {
		q := bytes.IndexByte(rest, '\n')
		// Capacity ends with the line: an append to it cannot write into
		// the content (which may be a string's bytes) or the buffer's
		// unused end, which every reader of the artifact shares.
		cur := rest[:len(rest):len(rest)]
		if q >= 0 {
			cur, rest = rest[:q:q], rest[q+1:]
		} else {
			rest = nil
		}
		if line&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		cut := limit >= 0 && len(cur) > limit
		if cut {
			cur = cur[:limit]
		}
		if err := fn(line, cur, cut); err != nil {
			return err
		}
	}
	return nil
}

// fileSkipBuf is the read size when skipping from a checkpoint to a line.
const fileSkipBuf = 64 << 10

// atLines is memLines for content read at offsets, through a buffer.
func (r *spoolReader) atLines(ctx context.Context, line int, off int64, start, end, limit int, fn func(int, []byte, bool) error) error {
	if k := start - line; k > 0 {
		buf := make([]byte, min(int64(fileSkipBuf), r.idx.size-off))
		for k > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := r.at.ReadAt(buf, off)
			if n == 0 && err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
			q, seen := skipLines(buf[:n], k)
			if q >= 0 {
				off += int64(q)
				break
			}
			k -= seen
			off += int64(n)
		}
		line = start
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r.at, off, r.idx.size-off), 16<<10)
	var long []byte // a line longer than the buffer, assembled
	for ; line < end; line++ {
		if line&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		long = long[:0]
		var cur []byte
		cut := false
		for {
			chunk, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				if limit >= 0 && len(long)+len(chunk) > limit {
					chunk = chunk[:max(0, limit-len(long))]
					cut = true
				}
				long = append(long, chunk...)
				continue
			}
			if err != nil && err != io.EOF {
				return err
			}
			if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
				chunk = chunk[:len(chunk)-1]
			}
			cur = chunk
			if len(long) > 0 || cut {
				if limit >= 0 && len(long)+len(chunk) > limit {
					chunk = chunk[:max(0, limit-len(long))]
					cut = true
				}
				long = append(long, chunk...)
				cur = long
			} else if limit >= 0 && len(cur) > limit {
				cur, cut = cur[:limit], true
			}
			break
		}
		if err := fn(line, cur, cut); err != nil {
			return err
		}
	}
	return nil
}
