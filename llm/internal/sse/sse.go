package sse

import (
	"bytes"
	"errors"
	"io"
)

// DefaultMaxEvent bounds one event's fields when Reader.MaxEvent is zero.
const DefaultMaxEvent = 32 << 20

// ErrTooLong means a line or an event exceeded the reader's bound.
var ErrTooLong = errors.New("sse: event too long")

// Event is one dispatched event. Its slices are valid until the next call to
// [Reader.Next]; copy what must outlive it.
type Event struct {
	// Name is the event field, empty when the event had none.
	Name []byte
	// Data is the event's data lines joined with LF.
	Data []byte
}

// Reader reads events from an underlying reader. The zero value is not
// usable; build one with [NewReader]. A Reader is not safe for concurrent use.
type Reader struct {
	// MaxEvent bounds a line and an event's data, in bytes; zero means
	// DefaultMaxEvent.
	MaxEvent int

	src     io.Reader
	buf     []byte // buffered input: buf[start:end] is unread
	start   int
	end     int
	srcErr  error // sticky error of src, returned once the buffer drains
	skipLF  bool  // the last line ended in CR: a following LF belongs to it
	name    []byte
	data    []byte
	hasData bool
}

// NewReader returns a reader of the events in r.
func NewReader(r io.Reader) *Reader {
	return &Reader{src: r, buf: make([]byte, 4096)}
}

// Next returns the next event. At the end of the input it returns io.EOF
// (after dispatching a last event not followed by a blank line); any other
// error is the underlying reader's, or ErrTooLong. Errors are sticky.
func (r *Reader) Next() (Event, error) {
	r.name, r.data = r.name[:0], r.data[:0]
	r.hasData = false
	for {
		line, err := r.line()
		if err != nil {
			if err == io.EOF && r.hasData {
				return r.event(), nil
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if r.hasData {
				return r.event(), nil
			}
			r.name = r.name[:0]
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if r.hasData {
				r.data = append(r.data, '\n')
			}
			if len(r.data)+len(value) > r.max() {
				return Event{}, r.fail(ErrTooLong)
			}
			r.data = append(r.data, value...)
			r.hasData = true
		case "event":
			r.name = append(r.name[:0], value...)
		}
		// id and retry are not used by model streams; unknown fields are
		// ignored as the format requires.
	}
}

func (r *Reader) event() Event {
	r.hasData = false
	return Event{Name: r.name, Data: r.data}
}

func (r *Reader) max() int {
	if r.MaxEvent > 0 {
		return r.MaxEvent
	}
	return DefaultMaxEvent
}

func (r *Reader) fail(err error) error {
	r.srcErr = err
	r.start, r.end = 0, 0
	return err
}

// line returns the next line without its terminator, valid until the next
// call. At the end of the input, an unterminated last line is returned
// first, then io.EOF.
func (r *Reader) line() ([]byte, error) {
	scanned := 0 // bytes of buf[start:end] known to hold no terminator
	for {
		if r.skipLF && r.start < r.end {
			r.skipLF = false
			if r.buf[r.start] == '\n' {
				r.start++
			}
		}
		unread := r.buf[r.start:r.end]
		if i := terminator(unread[scanned:]); i >= 0 {
			i += scanned
			line := unread[:i]
			r.start += i + 1
			r.skipLF = unread[i] == '\r'
			return line, nil
		}
		scanned = len(unread)
		if r.srcErr != nil {
			if len(unread) > 0 && r.srcErr == io.EOF {
				r.start = r.end
				return unread, nil
			}
			return nil, r.srcErr
		}
		if len(unread) > r.max() {
			return nil, r.fail(ErrTooLong)
		}
		r.fill()
	}
}

// fill reads more input, compacting or growing the buffer first.
func (r *Reader) fill() {
	if r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.start, r.end = 0, n
	}
	if r.end == len(r.buf) {
		r.buf = append(r.buf, make([]byte, len(r.buf))...)
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.srcErr = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.srcErr = io.ErrNoProgress
}

// terminator is the index of the first CR or LF in b, or -1.
func terminator(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}
