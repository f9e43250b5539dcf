package spooledartifact

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
)

// maxPumpChunk bounds the buffer a pumped read uses.
const maxPumpChunk = 64 << 10

// cancelableReader returns a reader over r whose Read returns ctx's error
// as soon as ctx ends, even while r's own Read is blocked (an io.Pipe
// nobody writes, a network body that stalls), and the function that
// releases it, which the caller calls once it stops reading: it closes r
// when r is an io.Closer.
//
// r's Read runs on a helper goroutine, one call at a time and only when
// asked, into the helper's own buffer (so an abandoned Read never writes
// into the caller's). When ctx ends r is closed if it is an io.Closer,
// concurrently with a blocked Read as net/http closes a request body: that
// unblocks the pipes, network bodies and files a tool returns, and the
// helper then exits. A reader that is not an io.Closer, or whose Close
// does not unblock its Read, keeps the helper blocked in Read until that
// Read returns; it is never called again. Readers that cannot block
// (strings, bytes) and contexts that cannot end are read directly.
func cancelableReader(ctx context.Context, r io.Reader) (io.Reader, func()) {
	closeSrc := func() {}
	if c, ok := r.(io.Closer); ok {
		var once sync.Once
		closeSrc = func() { once.Do(func() { safeClose(c) }) }
	}
	if ctx.Done() == nil {
		return r, closeSrc
	}
	switch r.(type) {
	case *strings.Reader, *bytes.Reader, *bytes.Buffer:
		return ctxReader{ctx, r}, closeSrc
	}
	p := &pumpReader{ctx: ctx, req: make(chan []byte), res: make(chan pumped), done: make(chan struct{})}
	stopClose := context.AfterFunc(ctx, closeSrc)
	go p.pump(r)
	return p, func() {
		stopClose()
		close(p.done)
		closeSrc()
	}
}

// pumped is the outcome of one Read of the source.
type pumped struct {
	n   int
	err error
}

// pumpReader hands the caller's reads to the pump goroutine; see
// cancelableReader.
type pumpReader struct {
	ctx  context.Context
	req  chan []byte // a read into this part of buf
	res  chan pumped // its outcome; buf is the caller's again once received
	done chan struct{}
	buf  []byte
	err  error // sticky: the source's error, or ctx's
}

func (p *pumpReader) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if err := p.ctx.Err(); err != nil {
		p.err = err
		return 0, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	if want := min(len(b), maxPumpChunk); len(p.buf) < want {
		p.buf = make([]byte, want)
	}
	select {
	case p.req <- p.buf[:min(len(b), len(p.buf))]:
	case <-p.ctx.Done():
		p.err = p.ctx.Err()
		return 0, p.err
	}
	select {
	case r := <-p.res:
		n := copy(b, p.buf[:r.n])
		if r.err != nil {
			p.err = r.err
		}
		return n, r.err
	case <-p.ctx.Done():
		// The pump may still be reading into buf: never touch it again.
		p.buf = nil
		p.err = p.ctx.Err()
		return 0, p.err
	}
}

// pump serves read requests until the reader is released. A request's
// buffer is the pump's from the request to its reply, so the two
// goroutines never use it at once.
func (p *pumpReader) pump(r io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-p.req:
		case <-p.done:
			return
		}
		m, err := safeRead(r, buf)
		select {
		case p.res <- pumped{m, err}:
		case <-p.done:
			return
		}
	}
}

// safeRead is r.Read with a panic turned into an error: it runs on the
// pump goroutine, where a panic would end the process.
func safeRead(r io.Reader, b []byte) (n int, err error) {
	defer func() {
		if v := recover(); v != nil {
			n, err = 0, fmt.Errorf("spooledartifact: reader panicked: %v", v)
		}
	}()
	return r.Read(b)
}

// safeClose closes c, ignoring its error and any panic: it runs when ctx
// ends, with nobody to report to.
func safeClose(c io.Closer) {
	defer func() { _ = recover() }()
	_ = c.Close()
}
