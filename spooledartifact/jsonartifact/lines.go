package jsonartifact

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
)

// lineScanner streams '\n'-separated lines with bounded memory: a line is
// either a slice of the bufio buffer or of one reusable overflow buffer, and
// a line longer than max is ErrTooLarge rather than an unbounded allocation.
type lineScanner struct {
	br   *bufio.Reader
	long []byte
	max  int
	n    int // 0-based number of the next line
	done bool
}

const scanBufferSize = 256 << 10

func newLineScanner(r io.Reader, max int) *lineScanner {
	return &lineScanner{br: bufio.NewReaderSize(r, scanBufferSize), max: max}
}

// next returns the next line without its '\n' (valid until the next call)
// and its 0-based number; io.EOF after the last one.
func (s *lineScanner) next() ([]byte, int, error) {
	if s.done {
		return nil, 0, io.EOF
	}
	s.long = s.long[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		switch {
		case err == nil:
			n := s.n
			s.n++
			chunk = chunk[:len(chunk)-1]
			if len(s.long) == 0 {
				return chunk, n, s.check(len(chunk), n)
			}
			s.long = append(s.long, chunk...)
			return s.long, n, s.check(len(s.long), n)
		case errors.Is(err, bufio.ErrBufferFull):
			if len(s.long)+len(chunk) > s.max {
				return nil, s.n, s.check(len(s.long)+len(chunk), s.n)
			}
			s.long = append(s.long, chunk...)
		case errors.Is(err, io.EOF):
			s.done = true
			n := s.n
			s.n++
			if len(s.long) == 0 {
				return chunk, n, s.check(len(chunk), n)
			}
			s.long = append(s.long, chunk...)
			return s.long, n, s.check(len(s.long), n)
		default:
			return nil, s.n, err
		}
	}
}

func (s *lineScanner) check(size, line int) error {
	if size > s.max {
		return ErrTooLarge.With(nil, "jsonartifact: line %d exceeds %d bytes (Kind.MaxRecordBytes)", line, s.max)
	}
	return nil
}

// each calls fn for every non-empty (after trimming whitespace) line, with
// the trimmed bytes (valid only during the call). fn returns false to stop.
func (s *lineScanner) each(ctx context.Context, fn func(line []byte, lineNo int) (bool, error)) error {
	for i := 0; ; i++ {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, n, err := s.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		more, err := fn(line, n)
		if err != nil || !more {
			return err
		}
	}
}
