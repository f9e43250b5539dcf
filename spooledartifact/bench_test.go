package spooledartifact

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/ebbforge/adk/forge"
)

// benchArtifact spools the file named by SPOOLEDARTIFACT_BENCH_FILE (see
// bench/grep_compare.sh) or else 64 MiB of generated log lines to a
// DiskStore.
func benchArtifact(b *testing.B) *Artifact {
	b.Helper()
	ctx := context.Background()
	s, err := NewDiskStore(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var src io.Reader = &logReader{size: 64 << 20}
	if path := os.Getenv("SPOOLEDARTIFACT_BENCH_FILE"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		src = f
	}
	r, err := s.Write(ctx, "bench", src)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.(io.Closer).Close() })
	return New("bench", r)
}

// BenchmarkSpoolDisk spools a 64 MiB log file (in the page cache) into a
// DiskStore: file copy plus line index, as the turn runner does.
func BenchmarkSpoolDisk(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s, err := NewDiskStore(dir+"/store", nil)
	if err != nil {
		b.Fatal(err)
	}
	const size = 64 << 20
	src, err := os.Create(dir + "/log")
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	if _, err := io.Copy(src, &logReader{size: size}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		if _, err := src.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		r, err := s.Write(ctx, "x", src)
		if err != nil {
			b.Fatal(err)
		}
		r.(io.Closer).Close()
	}
}

func BenchmarkTail10(b *testing.B) {
	a := benchArtifact(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := a.Tail(ctx, 10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCat10(b *testing.B) {
	a := benchArtifact(b)
	ctx := context.Background()
	mid := a.Reader().LineCount() / 2
	for b.Loop() {
		if _, err := a.Cat(ctx, mid, mid+10); err != nil {
			b.Fatal(err)
		}
	}
}

func benchGrep(b *testing.B, pattern string) {
	a := benchArtifact(b)
	ctx := context.Background()
	b.SetBytes(a.Reader().ByteLength())
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if err := a.GrepFunc(ctx, pattern, nil, func(int, []byte) bool { n++; return true }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGrepLiteral(b *testing.B)      { benchGrep(b, "ERROR") }
func BenchmarkGrepRegexPrefix(b *testing.B)  { benchGrep(b, `status=20[36]`) }
func BenchmarkGrepRegexInfix(b *testing.B)   { benchGrep(b, `id=[0-9]*99 `) }
func BenchmarkGrepRegexNoLit(b *testing.B)   { benchGrep(b, `[0-9]{3}"`) }
func BenchmarkGrepRegexIgnCase(b *testing.B) { benchGrep(b, `(?i)error`) }

// forgeBenchCalls returns n plain artifact calls.
func forgeBenchCalls(b *testing.B, n int) []*forge.ToolCall {
	b.Helper()
	s := NewMemoryStore()
	calls := make([]*forge.ToolCall, n)
	for i := range calls {
		id := "call_" + strconv.Itoa(i)
		a, err := SpoolString(context.Background(), s, id, nil, "x\ny\n")
		if err != nil {
			b.Fatal(err)
		}
		calls[i] = makeCall(b, id, a, false)
	}
	return calls
}

// BenchmarkForgeTools forges the base artifact_* tools over n plain
// artifact calls, as the turn runner does once per turn, with its first
// artifact.
func BenchmarkForgeTools(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			calls := forgeBenchCalls(b, n)
			b.ReportAllocs()
			for b.Loop() {
				reg, err := forgeTools(calls, 0)
				if err != nil {
					b.Fatal(err)
				}
				if len(reg.All()) != 7 {
					b.Fatalf("%d tools", len(reg.All()))
				}
			}
		})
	}
}

// BenchmarkForgeToolsFirstCall forges over 64 calls and validates one
// artifact_grep call: the forge plus the first use of one tool (where a
// lazily resolved schema is resolved).
func BenchmarkForgeToolsFirstCall(b *testing.B) {
	calls := forgeBenchCalls(b, 64)
	args := json.RawMessage(`{"callId":"call_63","pattern":"x","maxMatches":3}`)
	b.ReportAllocs()
	for b.Loop() {
		reg, err := forgeTools(calls, 0)
		if err != nil {
			b.Fatal(err)
		}
		grep, _ := reg.Get(ToolGrep)
		if _, err := grep.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEstimateChunks measures the chunking of EstimateTokens over
// 64 MiB of log lines with a free estimator: the read, cut and carry, not
// the estimator.
func BenchmarkEstimateChunks(b *testing.B) {
	a := benchArtifact(b)
	ctx := context.Background()
	b.SetBytes(a.Reader().ByteLength())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := estimateStream(ctx, a.Reader(), func(s string) (int, error) { return len(s), nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrepAnswerContext renders artifact_grep answers with context over
// 64 MiB of log lines: capped at the default 64 KiB (the scan stops early)
// and whole (every ERROR line and its context, read through the index).
func BenchmarkGrepAnswerContext(b *testing.B) {
	a := benchArtifact(b)
	ctx := context.Background()
	g := grepQuery{pattern: "ERROR", context: 2, lineNumbers: true}
	for _, bc := range []struct {
		name  string
		limit int
	}{{"capped", DefaultMaxAnswerBytes}, {"whole", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := grepAnswer(ctx, a, g, bc.limit); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
