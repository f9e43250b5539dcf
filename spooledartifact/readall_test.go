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
	tests := []struct {
		name    string
		r       func() io.Reader
		wantCap int // the buffer's capacity: what the store holds
	}{
		{"bytes.Reader is read into its length", func() io.Reader { return bytes.NewReader([]byte(content)) }, len(content) + 1},
		{"strings.Reader is read into its length", func() io.Reader { return strings.NewReader(content) }, len(content) + 1},
		{"unknown length is joined once", func() io.Reader { return io.MultiReader(strings.NewReader(content)) }, len(content)},
		{"a Len that undercounts still reads everything", func() io.Reader { return lyingLen{strings.NewReader(content), 10} }, -1},
		{"empty", func() io.Reader { return io.MultiReader() }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAllSized(context.Background(), tt.r())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != content && !(tt.wantCap == 0 && len(got) == 0) {
				t.Fatalf("read %d bytes, want the %d written", len(got), len(content))
			}
			if tt.wantCap >= 0 && cap(got) != tt.wantCap {
				t.Errorf("cap = %d, want %d (content %d bytes)", cap(got), tt.wantCap, len(content))
			}
		})
	}
}

func TestReadAllSizedStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &cancelAfter{r: io.MultiReader(strings.NewReader(strings.Repeat("x", 1<<20))), n: 64 << 10, cancel: cancel}
	if _, err := readAllSized(ctx, r); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
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
}
