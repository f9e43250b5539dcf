package spooledartifact

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/heapwatch"
)

// logReader streams size bytes of log-like lines without holding them.
type logReader struct {
	size, n int64
	i       int
	pending []byte
}

func (l *logReader) Read(p []byte) (int, error) {
	if l.n >= l.size {
		return 0, io.EOF
	}
	w := 0
	for w < len(p) && l.n < l.size {
		if len(l.pending) == 0 {
			level := "INFO "
			if l.i%97 == 0 {
				level = "ERROR"
			}
			l.pending = fmt.Appendf(l.pending[:0], "2025-01-02T03:04:05Z %s worker-%02d id=%09d status=%d msg=\"ok\"\n",
				level, l.i%32, l.i, 200+l.i%7)
			l.i++
		}
		k := copy(p[w:], l.pending)
		k = int(min(int64(k), l.size-l.n))
		w += k
		l.n += int64(k)
		l.pending = l.pending[k:]
	}
	return w, nil
}

// newlineReader streams size bytes of "\n": the densest line index there is.
type newlineReader struct{ left int64 }

func (r *newlineReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), r.left))
	for i := range p[:n] {
		p[i] = '\n'
	}
	r.left -= int64(n)
	return n, nil
}

// bigHeapLimit is the peak HeapInuse allowed while a 1 GiB artifact is
// spooled and queried.
const bigHeapLimit = 64 << 20

// bigStep is one query of the bounded-memory test.
type bigStep struct {
	name string
	fn   func(ctx context.Context, a *Artifact) error
}

// TestOneGiBBoundedMemory spools 1 GiB to a DiskStore and queries it, with
// peak HeapInuse under 64 MiB throughout, for log-like lines and for 1 GiB
// of "\n" (2^30+1 empty lines: the line index must stay bounded by bytes,
// not lines). Skipped under -short and the race detector (set
// SPOOLEDARTIFACT_BIG=1 to force it).
func TestOneGiBBoundedMemory(t *testing.T) {
	if os.Getenv("SPOOLEDARTIFACT_BIG") == "" && (testing.Short() || raceEnabled) {
		t.Skip("1 GiB test: skipped under -short and -race (SPOOLEDARTIFACT_BIG=1 forces it)")
	}
	const size = 1 << 30
	tail := bigStep{"tail", func(ctx context.Context, a *Artifact) error {
		l, err := a.Tail(ctx, 10)
		if err == nil && len(l) != 10 {
			err = fmt.Errorf("tail gave %d lines", len(l))
		}
		return err
	}}
	cat := bigStep{"cat", func(ctx context.Context, a *Artifact) error {
		mid := a.Reader().LineCount() / 2
		l, err := a.Cat(ctx, mid, mid+100)
		if err == nil && len(l) != 100 {
			err = fmt.Errorf("cat gave %d lines", len(l))
		}
		return err
	}}
	grepCapped := func(pattern string) bigStep {
		return bigStep{"grep capped " + pattern, func(ctx context.Context, a *Artifact) error {
			res, err := a.Grep(ctx, pattern, &GrepOptions{MaxMatches: 1000, Before: 2, After: 2})
			if err == nil && !res.Truncated {
				err = fmt.Errorf("want truncated")
			}
			return err
		}}
	}
	grepAll := func(pattern string) bigStep {
		return bigStep{"grep " + pattern, func(ctx context.Context, a *Artifact) error {
			return a.GrepFunc(ctx, pattern, nil, func(int, []byte) bool { return true })
		}}
	}
	estimate := bigStep{"estimate claude", func(ctx context.Context, a *Artifact) error {
		_, err := a.EstimateTokens(ctx, forge.EncodingClaude)
		return err
	}}
	copyAll := bigStep{"copy", func(ctx context.Context, a *Artifact) error {
		_, err := a.Copy(ctx, io.Discard)
		return err
	}}
	cases := []struct {
		name  string
		src   io.Reader
		steps []bigStep
	}{
		{"log", &logReader{size: size}, []bigStep{tail, cat, grepAll("ERROR"), grepCapped(`status=20[36]`), grepAll(`id=[0-9]*99 `),
			estimate, copyAll}},
		{"newlines", &newlineReader{left: size}, []bigStep{tail, cat, grepAll("x"), grepCapped(`^$`), estimate, copyAll}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := NewDiskStore(t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			stop := heapwatch.Start(heapwatch.HeapInuse)
			start := time.Now()
			r, err := s.Write(ctx, "big", c.src)
			if err != nil {
				stop()
				t.Fatal(err)
			}
			defer r.(io.Closer).Close()
			t.Logf("spool: %v", time.Since(start))
			a := New("big", r)
			if a.Reader().ByteLength() != size {
				t.Fatalf("size %d", a.Reader().ByteLength())
			}
			for _, st := range c.steps {
				start := time.Now()
				if err := st.fn(ctx, a); err != nil {
					stop()
					t.Fatalf("%s: %v", st.name, err)
				}
				t.Logf("%s: %v", st.name, time.Since(start))
			}
			// Read re-opens the file with the index kept by the store.
			r2, err := s.Read(ctx, "big")
			if err != nil || r2.LineCount() != r.LineCount() {
				stop()
				t.Fatalf("Read: %v", err)
			}
			r2.(io.Closer).Close()
			peak := stop()
			t.Logf("lines %d, checkpoints %d, peak HeapInuse %.1f MiB", r.LineCount(), len(r.(*spoolReader).idx.marks), float64(peak)/(1<<20))
			if peak > bigHeapLimit {
				t.Errorf("peak HeapInuse %d > %d", peak, bigHeapLimit)
			}
		})
	}
}
