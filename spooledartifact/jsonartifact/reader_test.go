package jsonartifact_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ebbforge/adk/spooledartifact"
)

// memReader is a test-only spooledartifact.Reader over bytes (a naive split;
// the core's MemoryStore is the real one).
type memReader struct {
	data  []byte
	lines [][]byte
}

func newMem(s string) *memReader {
	r := &memReader{data: []byte(s)}
	if s != "" {
		r.lines = bytes.Split(r.data, []byte("\n"))
	}
	return r
}

func (r *memReader) ByteLength() int64 { return int64(len(r.data)) }
func (r *memReader) LineCount() int    { return len(r.lines) }
func (r *memReader) Line(_ context.Context, i int) ([]byte, bool, error) {
	if i < 0 || i >= len(r.lines) {
		return nil, false, nil
	}
	return r.lines[i], true, nil
}
func (r *memReader) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(r.data)), nil
}

var _ spooledartifact.Reader = (*memReader)(nil)

// genReader is a JSON Lines export generated on the fly: n fixed-width
// records, so its size is known without holding it. Record i is
// {"id":i,"user":"user-i","age":i%90,"active":i%3==0,"tags":[...],"pad":"..."}.
type genReader struct {
	n, width int
}

func newGen(n int) *genReader {
	g := &genReader{n: n}
	g.width = len(g.record(n - 1))
	return g
}

func (g *genReader) record(i int) []byte {
	tags := `["a"]`
	if i%2 == 0 {
		tags = `["a","even"]`
	}
	return fmt.Appendf(nil, `{"id":%10d,"user":"user-%010d","age":%2d,"active":%t,"tags":%-12s,"pad":"%s"}`,
		i, i, i%90, i%3 == 0, tags, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
}

func (g *genReader) ByteLength() int64 { return int64(g.n) * int64(g.width+1) }
func (g *genReader) LineCount() int    { return g.n + 1 }
func (g *genReader) Line(_ context.Context, i int) ([]byte, bool, error) {
	switch {
	case i < 0 || i > g.n:
		return nil, false, nil
	case i == g.n:
		return []byte{}, true, nil
	}
	return g.record(i), true, nil
}
func (g *genReader) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(&genStream{g: g}), nil
}

type genStream struct {
	g   *genReader
	i   int
	buf []byte
}

func (s *genStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.i == s.g.n {
			return 0, io.EOF
		}
		s.buf = append(s.g.record(s.i), '\n')
		s.i++
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// repeatReader streams one block of JSON Lines again and again up to size
// bytes: a cheap stand-in for a large spooled file in benchmarks.
type repeatReader struct {
	block []byte
	size  int64
}

func newRepeat(g *genReader, size int64) *repeatReader {
	var block []byte
	for i := range g.n {
		block = append(append(block, g.record(i)...), '\n')
	}
	size -= size % int64(len(block))
	return &repeatReader{block: block, size: max(size, int64(len(block)))}
}

func (r *repeatReader) ByteLength() int64 { return r.size }
func (r *repeatReader) LineCount() int {
	return int(r.size/int64(len(r.block)))*bytes.Count(r.block, []byte("\n")) + 1
}
func (r *repeatReader) Line(context.Context, int) ([]byte, bool, error) {
	return nil, false, nil // unused by the JSON kind
}
func (r *repeatReader) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(&repeatStream{r: r}), nil
}

type repeatStream struct {
	r   *repeatReader
	off int64
}

func (s *repeatStream) Read(p []byte) (int, error) {
	if s.off >= s.r.size {
		return 0, io.EOF
	}
	n := copy(p, s.r.block[s.off%int64(len(s.r.block)):])
	s.off += int64(n)
	return n, nil
}
