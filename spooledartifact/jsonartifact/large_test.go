package jsonartifact_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebbforge/adk/internal/heapwatch"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/jsonartifact"
)

// peakHeap runs fn while sampling the live heap and returns the peak above
// the baseline taken before fn.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	base := heapwatch.Read(heapwatch.HeapAlloc)
	stop := heapwatch.Start(heapwatch.HeapAlloc)
	fn()
	if peak := stop(); peak > base {
		return peak - base
	}
	return 0
}

// TestLargeJSONLinesBoundedHeap queries a 200 MB JSON Lines artifact
// (generated while it is read, never held) and checks the heap stays far
// below the artifact's size.
func TestLargeJSONLinesBoundedHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("200 MB scan; skipped under -short")
	}
	g := newGen(1_250_000) // 160-byte lines: 200 MB
	if g.ByteLength() < 200e6 {
		t.Fatalf("generated %d bytes, want 200 MB", g.ByteLength())
	}
	k := jsonartifact.Kind{}
	a := jsonartifact.New("big", g, k)
	var got, length string
	var err error
	peak := peakHeap(func() {
		got, err = callTool(t, k, a, "artifact_json_filter", map[string]any{"path": "#(age==89)"})
		if err != nil {
			return
		}
		length, err = callTool(t, k, a, "artifact_json_length", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if length != "1250000" {
		t.Errorf("length = %s", length)
	}
	if !strings.Contains(got, `"id":         89,`) && !strings.Contains(got, `"id": 89,`) {
		t.Errorf("filter answer lacks record 89: %.200s", got)
	}
	if !strings.Contains(got, "(truncated:") {
		t.Errorf("a 13,888-match answer is not capped: %d bytes", len(got))
	}
	if len(got) > jsonartifact.DefaultMaxAnswerBytes+512 {
		t.Errorf("answer is %d bytes, above the cap", len(got))
	}
	// The scan holds one bufio buffer and the capped answer; 32 MiB leaves
	// room for GC lag, and is a sixth of the artifact.
	const limit = 32 << 20
	t.Logf("peak heap above baseline: %d KiB over a %d MB artifact", peak>>10, g.ByteLength()/1e6)
	if peak > limit {
		t.Errorf("peak heap %d bytes, want < %d", peak, limit)
	}
	// pluck across every record (stops at the match cap)
	got, err = callTool(t, k, a, "artifact_json_pluck", map[string]any{"path": "tags.#(==\"even\")#"})
	if err != nil || !strings.Contains(got, "(truncated: first 1000 values shown") {
		t.Errorf("pluck: %v %.100s", err, got)
	}
}

// TestOneGiBJSONLinesBoundedHeap spools a 1 GiB JSON Lines export
// (generated while it is written, never held) to a DiskStore and runs
// artifact_json_filter and artifact_json_length over all of it, with peak
// HeapInuse (sampled every 20 ms, spooling included) under 64 MiB. Opt-in:
// JSONARTIFACT_BIG=1 or SPOOLEDARTIFACT_BIG=1.
func TestOneGiBJSONLinesBoundedHeap(t *testing.T) {
	if os.Getenv("JSONARTIFACT_BIG") == "" && os.Getenv("SPOOLEDARTIFACT_BIG") == "" {
		t.Skip("1 GiB test: set JSONARTIFACT_BIG=1 (or SPOOLEDARTIFACT_BIG=1) to run it")
	}
	const limit = 64 << 20
	ctx := context.Background()
	g := newGen(1)
	g = newGen(int((1 << 30) / (g.width + 1)))
	store, err := spooledartifact.NewDiskStore(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	stop := heapwatch.Start(heapwatch.HeapInuse)
	start := time.Now()
	src, err := g.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.Write(ctx, "big", src)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}
	t.Logf("spooled %d bytes (%d records) in %v", r.ByteLength(), g.n, time.Since(start))
	k := jsonartifact.Kind{}
	a := jsonartifact.New("big", r, k)
	// The last two records match: the filter reads every record.
	start = time.Now()
	got, err := callTool(t, k, a, "artifact_json_filter", map[string]any{"path": fmt.Sprintf("#(id>%d)", g.n-3)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("artifact_json_filter over all records: %v", time.Since(start))
	if n := strings.Count(got, `"user": "user-`); n != 2 || !strings.Contains(got, fmt.Sprintf("user-%010d", g.n-1)) {
		t.Errorf("filter found %d records, want the last two: %.300s", n, got)
	}
	start = time.Now()
	length, err := callTool(t, k, a, "artifact_json_length", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("artifact_json_length: %v", time.Since(start))
	if length != strconv.Itoa(g.n) {
		t.Errorf("length = %s, want %d", length, g.n)
	}
	peak := stop()
	t.Logf("peak HeapInuse %.1f MiB over a %d MiB artifact", float64(peak)/(1<<20), r.ByteLength()>>20)
	if peak > limit {
		t.Errorf("peak HeapInuse %d bytes, want < %d", peak, limit)
	}
}

// BenchmarkJSONLFilter runs artifact_json_filter over a generated JSON Lines
// artifact (a 1.3 MB block of records repeated, so the generator costs
// nothing) with a predicate that matches nothing, so every record is read,
// validated and queried (the full-scan cost). Set JSONL_BENCH_BYTES (e.g.
// 1073741824) to size the artifact; the default is 64 MiB.
func BenchmarkJSONLFilter(b *testing.B) {
	size := jsonartifact.BenchBytes(b)
	g := newRepeat(newGen(8192), size)
	k := jsonartifact.Kind{}
	a := jsonartifact.New("bench", g, k)
	call := k.Methods()[4] // artifact_json_filter
	if call.Tool != "artifact_json_filter" {
		b.Fatal(call.Tool)
	}
	ctx := context.Background()
	if _, err := a.Format(ctx); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(g.ByteLength())
	b.ReportAllocs()
	for b.Loop() {
		out, err := call.Call(ctx, a, map[string]any{"path": "#(age>100)"})
		if err != nil || out != "[]" {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkDetect infers the format of a 16 MiB JSON document (an array of
// generated records): the depth check, validation and compaction a json
// artifact's first query costs.
func BenchmarkDetect(b *testing.B) {
	g := newGen(1 << 17)
	var doc []byte
	doc = append(doc, '[')
	for i := range g.n {
		if i > 0 {
			doc = append(doc, ',')
		}
		doc = append(doc, g.record(i)...)
	}
	doc = append(doc, ']')
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if f, _, err := jsonartifact.Detect(doc); f != jsonartifact.FormatJSON || err != nil {
			b.Fatal(f, err)
		}
	}
}

// BenchmarkSliceAnswer renders artifact_json_slice over JSON Lines records:
// indenting each into the answer until the 64 KiB cap.
func BenchmarkSliceAnswer(b *testing.B) {
	k := jsonartifact.Kind{}
	a := jsonartifact.New("bench", newGen(4096), k)
	call := k.Methods()[5] // artifact_json_slice
	if call.Tool != "artifact_json_slice" {
		b.Fatal(call.Tool)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := call.Call(ctx, a, nil); err != nil {
			b.Fatal(err)
		}
	}
}
