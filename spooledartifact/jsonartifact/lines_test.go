package jsonartifact

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/ebbforge/adk/spooledartifact"
)

// BenchmarkLines compares the two ways to iterate a DiskStore artifact's
// lines: eachLine (bufio.Scanner over Reader.Open, line buffer capped at
// MaxRecordBytes) and the core's Artifact.EachLine, over JSON Lines of short
// records and over one line as long as the artifact (which eachLine refuses
// at DefaultMaxRecordBytes). MiB-alloc/op is what one scan allocates. Set
// JSONL_BENCH_BYTES to size the artifacts; the default is 64 MiB (the
// figures in eachLine's comment are for 268435456).
func BenchmarkLines(b *testing.B) {
	size := BenchBytes(b)
	store, err := spooledartifact.NewDiskStore(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, shape := range []string{"records", "one-line"} {
		r, err := store.Write(ctx, shape, &linesGen{size: size, oneLine: shape == "one-line"})
		if err != nil {
			b.Fatal(err)
		}
		a := spooledartifact.New(shape, r)
		b.Run(shape+"/eachLine", func(b *testing.B) {
			b.SetBytes(size)
			reportAlloc(b, func() {
				rc, err := r.Open(ctx)
				if err != nil {
					b.Fatal(err)
				}
				defer rc.Close()
				err = eachLine(ctx, rc, DefaultMaxRecordBytes, func([]byte, int) (bool, error) { return true, nil })
				if err != nil && shape == "records" {
					b.Fatal(err)
				}
			})
		})
		b.Run(shape+"/core-EachLine", func(b *testing.B) {
			b.SetBytes(size)
			reportAlloc(b, func() {
				err := a.EachLine(ctx, 0, -1, func(_ int, line []byte) error {
					if len(line) > DefaultMaxRecordBytes {
						return tooLong(0, DefaultMaxRecordBytes)
					}
					return nil
				})
				if err != nil && shape == "records" {
					b.Fatal(err)
				}
			})
		})
		if c, ok := r.(io.Closer); ok {
			c.Close()
		}
	}
}

// BenchBytes is the artifact size of the JSON Lines benchmarks:
// JSONL_BENCH_BYTES when set, else 64 MiB. It is exported (to test builds
// only) for the benchmarks of package jsonartifact_test.
func BenchBytes(b *testing.B) int64 {
	s := os.Getenv("JSONL_BENCH_BYTES")
	if s == "" {
		return 64 << 20
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// reportAlloc runs scan b.N times and reports the MiB it allocates per run.
func reportAlloc(b *testing.B, scan func()) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	for b.Loop() {
		scan()
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.TotalAlloc-before)/float64(b.N)/(1<<20), "MiB-alloc/op")
}

// linesGen streams size bytes of JSON Lines (or of one unbroken line).
type linesGen struct {
	size, n int64
	i       int
	oneLine bool
	pending []byte
}

func (g *linesGen) Read(p []byte) (int, error) {
	if g.n >= g.size {
		return 0, io.EOF
	}
	w := 0
	for w < len(p) && g.n < g.size {
		if len(g.pending) == 0 {
			if g.oneLine {
				g.pending = append(g.pending[:0], "xxxxxxxxxxxxxxxx"...)
			} else {
				g.pending = fmt.Appendf(g.pending[:0], `{"id":%d,"user":"user-%d","age":%d,"tags":["a","b"],"pad":"%050d"}`+"\n", g.i, g.i, g.i%90, 0)
			}
			g.i++
		}
		k := int(min(int64(copy(p[w:], g.pending)), g.size-g.n))
		w += k
		g.n += int64(k)
		g.pending = g.pending[k:]
	}
	return w, nil
}
