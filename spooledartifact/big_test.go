package spooledartifact

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
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

// heapSampler records the peak HeapInuse until stop is called.
func heapSampler() (stop func() uint64) {
	var (
		peak uint64
		wg   sync.WaitGroup
		done = make(chan struct{}) // closed by stop
	)
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		sample()
		return peak
	}
}

// TestOneGiBBoundedMemory spools 1 GiB to a DiskStore and queries it, with
// peak HeapInuse under 64 MiB throughout. Skipped under -short and the race
// detector (set SPOOLEDARTIFACT_BIG=1 to force it).
func TestOneGiBBoundedMemory(t *testing.T) {
	if os.Getenv("SPOOLEDARTIFACT_BIG") == "" && (testing.Short() || raceEnabled) {
		t.Skip("1 GiB test: skipped under -short and -race (SPOOLEDARTIFACT_BIG=1 forces it)")
	}
	const size = 1 << 30
	const limit = 64 << 20
	ctx := context.Background()
	s, err := NewDiskStore(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	stop := heapSampler()
	r, err := s.Write(ctx, "big", &logReader{size: size})
	if err != nil {
		t.Fatal(err)
	}
	defer r.(io.Closer).Close()
	a := New("big", r)
	if a.Reader().ByteLength() != size {
		t.Fatalf("size %d", a.Reader().ByteLength())
	}
	steps := []struct {
		name string
		fn   func() error
	}{
		{"tail", func() error { _, err := a.Tail(ctx, 10); return err }},
		{"cat", func() error { _, err := a.Cat(ctx, a.Reader().LineCount()/2, a.Reader().LineCount()/2+100); return err }},
		{"grep literal", func() error {
			return a.GrepFunc(ctx, "ERROR", nil, func(int, []byte) bool { return true })
		}},
		{"grep regex capped", func() error {
			res, err := a.Grep(ctx, `status=20[36]`, &GrepOptions{MaxMatches: 1000, Before: 2, After: 2})
			if err == nil && !res.Truncated {
				err = fmt.Errorf("want truncated")
			}
			return err
		}},
		{"grep regex", func() error {
			return a.GrepFunc(ctx, `id=[0-9]*99 `, nil, func(int, []byte) bool { return true })
		}},
		{"estimate claude", func() error { _, err := a.EstimateTokens(ctx, forge.EncodingClaude); return err }},
		{"copy", func() error { _, err := a.Copy(ctx, io.Discard); return err }},
	}
	for _, st := range steps {
		start := time.Now()
		if err := st.fn(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		t.Logf("%s: %v", st.name, time.Since(start))
	}
	// Read re-opens the file with the index kept by the store.
	r2, err := s.Read(ctx, "big")
	if err != nil || r2.LineCount() != r.LineCount() {
		t.Fatalf("Read: %v", err)
	}
	r2.(io.Closer).Close()
	peak := stop()
	t.Logf("lines %d, peak HeapInuse %.1f MiB", r.LineCount(), float64(peak)/(1<<20))
	if peak > limit {
		t.Errorf("peak HeapInuse %d > %d", peak, limit)
	}
}
