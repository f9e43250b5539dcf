// Command checksumref measures canonical.Checksum of the benchmark's 10 MB
// document next to raw SHA-256 of the same bytes, for
// bench/checksum_reference.sh, which runs the JavaScript reference between
// rounds so the three are compared on the machine as it is at that moment.
//
//	checksumref -gen doc.json        # write the document
//	checksumref -doc doc.json -runs 9
//
// Each measurement is the median of -runs calls after two warm-up calls;
// it prints one tab-separated line per measured function: name, MB/s, and
// for the checksum the hex digest (which the reference must reproduce) and
// the percentage of the machine's CPU time the hypervisor stole meanwhile.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/internal/benchdoc"
	"github.com/ebbforge/adk/internal/cputime"
)

func main() {
	gen := flag.String("gen", "", "write the document to this file and exit")
	size := flag.Int("size", 10<<20, "document size in bytes (with -gen)")
	docPath := flag.String("doc", "", "document to measure")
	runs := flag.Int("runs", 9, "timed calls per function (the median is reported)")
	flag.Parse()
	if err := run(*gen, *size, *docPath, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "checksumref:", err)
		os.Exit(1)
	}
}

func run(gen string, size int, docPath string, runs int) error {
	if gen != "" {
		return os.WriteFile(gen, benchdoc.Records(size), 0o644)
	}
	if docPath == "" || runs < 1 {
		return fmt.Errorf("need -doc and -runs >= 1 (or -gen)")
	}
	doc, err := os.ReadFile(docPath)
	if err != nil {
		return err
	}
	var sum string
	checksum := func() error {
		s, err := canonical.Checksum("search_orders", doc)
		sum = s
		return err
	}
	rawSHA := func() error {
		sha256.Sum256(doc)
		return nil
	}
	for _, m := range []struct {
		name string
		f    func() error
	}{{"checksum", checksum}, {"sha256", rawSHA}} {
		mbs, steal, err := median(m.f, len(doc), runs)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		if m.name == "checksum" {
			fmt.Printf("%s\t%.1f\t%s\t%s\n", m.name, mbs, sum, steal)
		} else {
			fmt.Printf("%s\t%.1f\n", m.name, mbs)
		}
	}
	return nil
}

// median returns the median throughput of runs calls of f, in MB/s, and
// the percentage of the machine's CPU time stolen by the hypervisor while
// they ran ("-" where the platform does not tell).
func median(f func() error, size, runs int) (mbs float64, steal string, err error) {
	for range 2 { // warm up: pooled scratch, page cache
		if err := f(); err != nil {
			return 0, "", err
		}
	}
	rates := make([]float64, 0, runs)
	m0, ok0 := cputime.Machine()
	for range runs {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, "", err
		}
		rates = append(rates, float64(size)/1e6/time.Since(t0).Seconds())
	}
	steal = "-"
	if m1, ok1 := cputime.Machine(); ok0 && ok1 {
		steal = fmt.Sprintf("%.1f", 100*cputime.StealShare(m0, m1))
	}
	slices.Sort(rates)
	return rates[len(rates)/2], steal, nil
}
