package spooledartifact

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// lyingLen announces fewer bytes than it gives.
type lyingLen struct {
	io.Reader
	n int
}

func (l lyingLen) Len() int { return l.n }

// cancelAfter cancels its context once it has given n bytes.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n -= n; c.n <= 0 {
		c.cancel()
	}
	return n, err
}

func TestReadAllSizedHoldsTheContentOnce(t *testing.T) {
	content := strings.Repeat("line of text\n", 100_000) // 1.3 MB
	unknown := func() io.Reader { return io.MultiReader(strings.NewReader(content)) }
	tests := []struct {
		name      string
		r         func() io.Reader
		lim       readLimits
		wantParts int // -1: any number
		wantCap   int // the pieces' capacity: what the store holds; -1: any
	}{
		{"bytes.Reader is read into its length", func() io.Reader { return bytes.NewReader([]byte(content)) }, readLimits{}, 1, len(content) + 1},
		{"strings.Reader is read into its length", func() io.Reader { return strings.NewReader(content) }, readLimits{}, 1, len(content) + 1},
		{"unknown length up to the join limit is joined once", unknown, readLimits{}, 1, len(content)},
		{"unknown length in one partly used chunk is copied to its size", unknown, readLimits{first: 2 << 20}, 1, len(content)},
		{"unknown length kept in chunks: a mostly unused last one is copied to its size", unknown, readLimits{max: 1 << 20, join: 1 << 20}, -1,
			4<<10 + 8<<10 + 16<<10 + 32<<10 + 64<<10 + 128<<10 + 256<<10 + 512<<10 + (len(content) - (1<<20 - 4<<10))},
		{"unknown length over the join limit keeps its chunks", unknown, readLimits{max: 256 << 10, join: 1 << 20}, -1,
			4<<10 + 8<<10 + 16<<10 + 32<<10 + 64<<10 + 128<<10 + 4*256<<10},
		{"a Len that undercounts still reads everything", func() io.Reader { return lyingLen{strings.NewReader(content), 10} }, readLimits{}, 1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, parts, err := readAllSized(context.Background(), tt.r(), tt.lim)
			if err != nil {
				t.Fatal(err)
			}
			if parts == nil {
				parts = [][]byte{data}
			} else if data != nil {
				t.Fatalf("both one piece (%d bytes) and %d chunks", len(data), len(parts))
			}
			got, held := "", 0
			for _, p := range parts {
				got += string(p)
				held += cap(p)
			}
			if got != content {
				t.Fatalf("read %d bytes, want the %d written", len(got), len(content))
			}
			if tt.wantParts >= 0 && len(parts) != tt.wantParts {
				t.Errorf("%d pieces, want %d", len(parts), tt.wantParts)
			}
			if tt.wantCap >= 0 && held != tt.wantCap {
				t.Errorf("capacity %d, want %d (content %d bytes)", held, tt.wantCap, len(content))
			}
		})
	}
	if data, parts, err := readAllSized(context.Background(), io.MultiReader(), readLimits{}); err != nil || len(data) != 0 || parts != nil {
		t.Errorf("empty: %d bytes and %d chunks, %v; want nothing", len(data), len(parts), err)
	}
}

func TestReadAllSizedStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &cancelAfter{r: io.MultiReader(strings.NewReader(strings.Repeat("x", 1<<20))), n: 64 << 10, cancel: cancel}
	if _, _, err := readAllSized(ctx, r, readLimits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestMemoryStoreKeepsALongStreamInItsChunks writes a 24 MiB stream of
// unknown length to a MemoryStore: it allocates the content once (in its
// chunks, the last one partly used), not again to join them, and reads
// back the same lines, bytes and grep matches, lines crossing chunk edges
// included.
func TestMemoryStoreKeepsALongStreamInItsChunks(t *testing.T) {
	const line = "a log line that does not divide a chunk evenly\n"
	content := strings.Repeat(line, (24<<20)/len(line))
	ctx := context.Background()
	s := NewMemoryStore()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	r, err := s.Write(ctx, "big", io.MultiReader(strings.NewReader(content)))
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > uint64(len(content))+5<<20 {
		t.Errorf("writing %d bytes allocated %d, want at most the content and one chunk more", len(content), alloc)
	}
	c, ok := r.(*spoolReader).at.(*chunks)
	if !ok {
		t.Fatalf("the reader holds %T, want the chunks", r.(*spoolReader).at)
	}
	if r.ByteLength() != int64(len(content)) || r.LineCount() != len(content)/len(line) {
		t.Fatalf("%d bytes in %d lines, want %d in %d", r.ByteLength(), r.LineCount(), len(content), len(content)/len(line))
	}
	rc, err := r.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(rc)
	if err != nil || string(all) != content {
		t.Fatalf("Open gave %d bytes (%v), want the %d written", len(all), err, len(content))
	}
	edges := []int{0, r.LineCount() - 1}
	for _, end := range c.ends { // the lines across each chunk edge
		edges = append(edges, int(end-1)/len(line), int(end)/len(line))
	}
	for _, i := range edges[:len(edges)-1] {
		got, ok, err := r.Line(ctx, i)
		if err != nil || !ok || string(got)+"\n" != line {
			t.Errorf("Line(%d) = %q %v %v, want %q", i, got, ok, err, line)
		}
	}
	res, err := New("big", r).Grep(ctx, "not divide", &GrepOptions{MaxMatches: 3})
	if err != nil || len(res.Lines) != 3 || res.Lines[2].Line != 2 {
		t.Errorf("Grep = %+v, %v; want the first three lines", res, err)
	}
}

func TestMemoryStoreKeepsTheStringItself(t *testing.T) {
	ctx := context.Background()
	text := strings.Repeat("abc\n", 1000)
	store := NewMemoryStore()
	for _, s := range []Store{store, NewScope(store, "turn", nil)} {
		r, err := WriteString(ctx, s, "id", text)
		if err != nil {
			t.Fatal(err)
		}
		sr := r.(*spoolReader)
		if unsafe.SliceData(sr.data) != unsafe.StringData(text) {
			t.Errorf("%T: the store copied the text", s)
		}
		if n, err := r.Open(ctx); err != nil {
			t.Fatal(err)
		} else if b, _ := io.ReadAll(n); string(b) != text {
			t.Errorf("%T: content differs", s)
		}
	}
	// A partly read text reader is stored from where it stands.
	tr := newTextReader("skip:kept")
	if _, err := tr.Read(make([]byte, 5)); err != nil {
		t.Fatal(err)
	}
	r, err := store.Write(ctx, "partial", tr)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.(*spoolReader).data); got != "kept" {
		t.Errorf("partly read text stored as %q, want %q", got, "kept")
	}
}

// TestDiskStoreSpillsAKnownLengthWithoutBuffering checks that a reader
// whose Len is over the spill threshold goes straight to a file: the write
// allocates far less than the threshold it would otherwise buffer.
func TestDiskStoreSpillsAKnownLengthWithoutBuffering(t *testing.T) {
	s, err := NewDiskStore(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("0123456789abcdef\n", (3*defaultSpillThreshold)/17)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	r, err := s.Write(context.Background(), "big", strings.NewReader(text))
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.(io.Closer).Close()
	if r.ByteLength() != int64(len(text)) {
		t.Fatalf("stored %d bytes, want %d", r.ByteLength(), len(text))
	}
	if got := m1.TotalAlloc - m0.TotalAlloc; got > defaultSpillThreshold/2 {
		t.Errorf("writing %d bytes allocated %d, want well under the %d-byte threshold", len(text), got, defaultSpillThreshold)
	}
}

// A line handed to a callback cannot be appended to in place: the content
// behind it may be a string's bytes.
func TestMemoryLinesCannotGrowIntoTheContent(t *testing.T) {
	ctx := context.Background()
	text := strings.Repeat("ab\n", 4)
	r, err := WriteString(ctx, NewMemoryStore(), "id", text)
	if err != nil {
		t.Fatal(err)
	}
	err = r.(lineRanger).Lines(ctx, 0, 4, func(_ int, line []byte) error {
		_ = append(line, 'X')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := r.Line(ctx, 1); string(got) != "ab" {
		t.Errorf("line 1 = %q after appends to the lines, want %q", got, "ab")
	}
	// The last line of a buffer with room to spare (a reader's Len plus
	// one) ends its capacity too: two readers appending to it would
	// otherwise write the same spare byte.
	r, err = NewMemoryStore().Write(ctx, "id", bytes.NewReader([]byte("ab\ncd")))
	if err != nil {
		t.Fatal(err)
	}
	err = r.(lineRanger).Lines(ctx, 0, 2, func(i int, line []byte) error {
		if cap(line) != len(line) {
			t.Errorf("line %d %q has capacity %d", i, line, cap(line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
