package canonical_test

import (
	"crypto/sha256"
	"encoding/json"
	"io"
	"testing"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/internal/benchdoc"
	"github.com/ebbforge/adk/internal/cputime"
)

// reportCPU starts measuring process CPU time and the machine's stolen
// time; the returned function reports throughput per CPU second as
// "cpu-MB/s" and the share of the machine's CPU time the hypervisor took
// meanwhile as "steal-%". On a shared machine wall-clock MB/s moves with
// the load, CPU time much less; steal says how much of the CPUs the
// benchmark was actually given.
func reportCPU(b *testing.B, size int) func() {
	start, ok := cputime.Process()
	m0, mok := cputime.Machine()
	return func() {
		end, _ := cputime.Process()
		if ok && end > start && b.N > 0 {
			b.ReportMetric(float64(size)*float64(b.N)/1e6/(end-start).Seconds(), "cpu-MB/s")
		}
		if m1, ok := cputime.Machine(); mok && ok {
			b.ReportMetric(100*cputime.StealShare(m0, m1), "steal-%")
		}
	}
}

var benchSizes = []struct {
	name string
	size int
}{{"1KB", 1 << 10}, {"100KB", 100 << 10}, {"10MB", 10 << 20}}

func BenchmarkChecksumJSON(b *testing.B) {
	for _, s := range benchSizes {
		doc := benchdoc.Records(s.size)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			defer reportCPU(b, len(doc))()
			for b.Loop() {
				if _, err := canonical.Checksum("search_orders", json.RawMessage(doc)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChecksumJSONCanonical re-hashes already canonical text (stored
// arguments being verified): whole containers are copied as they are.
func BenchmarkChecksumJSONCanonical(b *testing.B) {
	canon, err := canonical.StringifyJSON(benchdoc.Records(10 << 20))
	if err != nil {
		b.Fatal(err)
	}
	doc := []byte(canon)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canonical.ChecksumJSON("search_orders", doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStringifyJSON(b *testing.B) {
	for _, s := range benchSizes {
		doc := benchdoc.Records(s.size)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := canonical.StringifyJSON(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWriteJSON(b *testing.B) {
	doc := benchdoc.Records(10 << 20)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if err := canonical.WriteJSON(io.Discard, doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChecksumValue hashes the encoding/json decoding of the documents.
func BenchmarkChecksumValue(b *testing.B) {
	for _, s := range benchSizes[:2] {
		var v any
		doc := benchdoc.Records(s.size)
		if err := json.Unmarshal(doc, &v); err != nil {
			b.Fatal(err)
		}
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := canonical.Checksum("search_orders", v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSHA256 is the floor: hashing the same 10 MB without canonicalising.
func BenchmarkSHA256(b *testing.B) {
	doc := benchdoc.Records(10 << 20)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	defer reportCPU(b, len(doc))()
	for b.Loop() {
		sha256.Sum256(doc)
	}
}
