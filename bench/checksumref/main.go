// Command checksumref measures canonical.Checksum of a benchmark document,
// for bench/checksum_reference.sh, which runs the JavaScript reference
// between rounds so that both are measured on the machine as it is at that
// moment.
//
//	checksumref -gen doc.json -size 10485760   # write the document
//	checksumref -doc doc.json -runs 9
//
// Each run times whole calls for at least 250 ms, as reference.js does, so
// that both sides see the machine over windows of the same length; the
// figures are the medians of -runs runs after two warm-up calls. It prints
// one tab-separated line: MB per second of wall time, MB per second of the
// process's CPU time, the hex digest (which the reference must reproduce),
// heap allocations per call, and the percentage of the machine's CPU time
// the hypervisor stole meanwhile.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/internal/benchdoc"
	"github.com/ebbforge/adk/internal/cputime"
)

// runTime is the least duration of a timed run.
const runTime = 250 * time.Millisecond

func main() {
	gen := flag.String("gen", "", "write the document to this file and exit")
	size := flag.Int("size", 10<<20, "document size in bytes (with -gen)")
	docPath := flag.String("doc", "", "document to measure")
	runs := flag.Int("runs", 9, "timed runs (the median is reported)")
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
	for range 2 { // warm up: pooled scratch, page cache
		if err := checksum(); err != nil {
			return err
		}
	}
	batch := max(1, (1<<20)/len(doc)) // calls between looks at the clock
	var rates, cpuRates []float64
	m0, ok0 := cputime.Machine()
	for range runs {
		t0 := time.Now()
		c0, _ := cputime.Process()
		calls := 0
		for calls == 0 || time.Since(t0) < runTime {
			for range batch {
				if err := checksum(); err != nil {
					return err
				}
			}
			calls += batch
		}
		c1, _ := cputime.Process()
		mb := float64(calls*len(doc)) / 1e6
		rates = append(rates, mb/time.Since(t0).Seconds())
		cpuRates = append(cpuRates, mb/max(c1-c0, time.Millisecond).Seconds())
	}
	steal := "-"
	if m1, ok1 := cputime.Machine(); ok0 && ok1 {
		steal = fmt.Sprintf("%.1f", 100*cputime.StealShare(m0, m1))
	}
	allocs := testing.AllocsPerRun(3, func() { _ = checksum() })
	slices.Sort(rates)
	slices.Sort(cpuRates)
	fmt.Printf("%.1f\t%.1f\t%s\t%.0f\t%s\n", rates[len(rates)/2], cpuRates[len(cpuRates)/2], sum, allocs, steal)
	return nil
}
