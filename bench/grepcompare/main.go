// Command grepcompare generates a synthetic log and measures spooledartifact
// on it (spool, Tail, Cat, grep counts), for bench/grep_compare.sh.
//
//	grepcompare -gen -size 1073741824 -out /tmp/x/log   # write the log
//	grepcompare -file /tmp/x/log -dir /tmp/x/store -literal ERROR -regex 'status=5[0-9]{2}'
//
// Every measurement is printed as "name<TAB>seconds<TAB>count"; grep counts
// are named grep0, grep1, ... in the order of the patterns.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/ebbforge/adk/spooledartifact"
)

func main() {
	var (
		gen     = flag.Bool("gen", false, "generate a log file at -out")
		size    = flag.Int64("size", 1<<30, "bytes to generate")
		out     = flag.String("out", "", "generated file")
		file    = flag.String("file", "", "log file to spool and query")
		dir     = flag.String("dir", "", "disk store directory")
		repeat  = flag.Int("repeat", 1, "run each query this many times and report the fastest")
		literal multi
		regex   multi
	)
	flag.Var(&literal, "literal", "literal pattern to count (repeatable)")
	flag.Var(&regex, "regex", "regex pattern to count (repeatable)")
	flag.Parse()
	if *gen {
		if err := generate(*out, *size); err != nil {
			fail(err)
		}
		return
	}
	if err := run(*file, *dir, append(literal, regex...), max(*repeat, 1)); err != nil {
		fail(err)
	}
}

type multi []string

func (m *multi) String() string     { return fmt.Sprint(*m) }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "grepcompare:", err)
	os.Exit(1)
}

// generate writes deterministic, log-like lines (about 100 bytes each).
func generate(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	x := uint64(88172645463325252)
	buf := make([]byte, 0, 256)
	for i := 0; n < size; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		level, msg, status := "INFO ", "request served", 200
		switch r := x % 1000; {
		case r < 10:
			level, msg, status = "ERROR", "upstream timeout after retries", 504
		case r < 30:
			level, msg, status = "ERROR", "internal failure", 500
		case r < 100:
			level, msg, status = "WARN ", "slow request", 200
		}
		buf = buf[:0]
		buf = fmt.Appendf(buf, "2025-01-02T03:%02d:%02d.%03dZ %s [worker-%02d] id=%010d path=/api/v1/items/%d status=%d latency_ms=%d msg=%q\n",
			(i/60000)%60, (i/1000)%60, i%1000, level, x%32, i, (x>>8)%10000, status, (x>>20)%3000, msg)
		if n+int64(len(buf)) > size {
			buf = buf[:size-n]
		}
		m, err := w.Write(buf)
		n += int64(m)
		if err != nil {
			return err
		}
	}
	return w.Flush()
}

func run(path, dir string, patterns []string, repeat int) error {
	ctx := context.Background()
	store, err := spooledartifact.NewDiskStore(dir, nil)
	if err != nil {
		return err
	}
	var r spooledartifact.Reader
	best := time.Duration(-1)
	for range repeat {
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		// Like the script's `cat log > copy` after `rm -f copy`, each run
		// writes a fresh file: freeing the previous 1 GiB version is not
		// part of the timing.
		if _, err := store.Delete(ctx, "log"); err != nil {
			return err
		}
		start := time.Now()
		r, err = store.Write(ctx, "log", in)
		in.Close()
		if err != nil {
			return err
		}
		if d := time.Since(start); best < 0 || d < best {
			best = d
		}
	}
	report("spool", best, r.LineCount())
	a := spooledartifact.New("log", r)

	var peak uint64
	measure := func(name string, fn func() (int, error)) error {
		best, n := time.Duration(-1), 0
		for range repeat {
			runtime.GC()
			start := time.Now()
			var err error
			if n, err = fn(); err != nil {
				return err
			}
			if d := time.Since(start); best < 0 || d < best {
				best = d
			}
		}
		report(name, best, n)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		return nil
	}
	if err := measure("tail10", func() (int, error) { l, err := a.Tail(ctx, 10); return len(l), err }); err != nil {
		return err
	}
	mid := r.LineCount() / 2
	if err := measure("cat10", func() (int, error) { l, err := a.Cat(ctx, mid, mid+10); return len(l), err }); err != nil {
		return err
	}
	for i, p := range patterns {
		err := measure("grep"+strconv.Itoa(i), func() (int, error) {
			n := 0
			err := a.GrepFunc(ctx, p, nil, func(int, []byte) bool { n++; return true })
			return n, err
		})
		if err != nil {
			return err
		}
	}
	fmt.Printf("heap_inuse_max_mib\t%.1f\t\n", float64(peak)/(1<<20))
	return nil
}

func report(name string, d time.Duration, n int) {
	fmt.Printf("%s\t%.6f\t%d\n", name, d.Seconds(), n)
}
