// Command peers runs the kit and github.com/cloudwego/eino's ReAct agent on
// identical workloads in one process, alternating which goes first, and
// prints the median of every figure over the rounds and the ratio of the
// kit's to eino's:
//
//	W1  one call of a trivial typed tool per response, ten responses, then
//	    an answer: wall and process CPU time and allocations per tool call;
//	W2  sixteen calls of a 10 ms tool in one response, default settings:
//	    the turn's wall time against the ideal 10 ms;
//	W3  10,000 streamed text deltas delivered to the consumer: deltas per
//	    second of wall and of process CPU time;
//	W4  one tool result of 100 MiB of text: the heap it adds at its peak
//	    (sampled) and the bytes allocated, on the kit's default memory
//	    spool, on its disk store, and for a tool that returns an io.Reader.
//
// Both fake models answer from a script chosen by the number of tool results
// in the request, with messages built once. The work differs by design: per
// call the kit checksums the arguments, validates them against the tool's
// JSON Schema before decoding, emits start/end and content events, spools
// the result into an artifact store, stores the call and offers artifact_*
// query tools over the results; eino decodes the arguments into the struct
// and appends the result string to its message state.
//
// Run it from this directory: go run . -rounds 7
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ebbforge/adk/internal/cputime"
	"github.com/ebbforge/adk/spooledartifact"
)

const (
	w1Iterations = 10
	w2Calls      = 16
	w2Sleep      = 10 * time.Millisecond
	w3Deltas     = 10_000
	w4Size       = 100 << 20
	w4Line       = "2026-01-01T00:00:00Z INFO request served path=/api/items status=200 bytes=5120\n"
)

func main() {
	rounds := flag.Int("rounds", 7, "alternating rounds; figures are medians over them")
	only := flag.String("w", "1,2,3,4", "workloads to run")
	w1Turns := flag.Int("w1turns", 200, "W1 turns per framework per round")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	memProfile := flag.String("memprofile", "", "write a profile of every allocation of the run to this file (slow)")
	flag.StringVar(&framework, "framework", "both", "run both, or only kit or eino (the other's figures are then a no-op's), for profiles and instruction counts")
	flag.Parse()
	if *memProfile != "" {
		runtime.MemProfileRate = 1
		defer func() {
			f, err := os.Create(*memProfile)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "peers:", err)
			}
		}()
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "peers:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("go %s %s/%s, GOMAXPROCS %d, %d CPUs, %d rounds\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.GOMAXPROCS(0), runtime.NumCPU(), *rounds)
	var t table
	for _, w := range strings.Split(*only, ",") {
		var err error
		switch strings.TrimSpace(w) {
		case "1":
			err = runW1(&t, *rounds, *w1Turns)
		case "2":
			err = runW2(&t, *rounds)
		case "3":
			err = runW3(&t, *rounds)
		case "4":
			err = runW4(&t, *rounds)
		default:
			err = fmt.Errorf("unknown workload %q", w)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "peers:", err)
			pprof.StopCPUProfile()
			os.Exit(1)
		}
	}
	t.print()
}

// table collects rows of medians.
type table struct{ rows [][]string }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) print() {
	fmt.Println("| workload | figure | kit | eino | kit / eino |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range t.rows {
		fmt.Println("| " + strings.Join(r, " | ") + " |")
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// sample is one framework's measurement of n operations.
type sample struct {
	ns, cpu, allocs, bytes float64 // per operation; cpu is process CPU time (user+system)
}

func measure(n int, op func() error) (sample, error) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0, _ := cputime.Process()
	start := time.Now()
	for range n {
		if err := op(); err != nil {
			return sample{}, err
		}
	}
	el := time.Since(start)
	c1, _ := cputime.Process()
	runtime.ReadMemStats(&m1)
	return sample{ns: float64(el.Nanoseconds()) / float64(n), cpu: float64((c1 - c0).Nanoseconds()) / float64(n),
		allocs: float64(m1.Mallocs-m0.Mallocs) / float64(n), bytes: float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n)}, nil
}

// framework is the -framework flag.
var framework string

// alternate builds both operations, warms them up and measures each rounds
// times, the first to go alternating; it returns the kit's and eino's samples.
func alternate(rounds, n int, kit, eino func() (func() error, error)) (k, e []sample, err error) {
	kop, err := kit()
	if err != nil {
		return nil, nil, err
	}
	eop, err := eino()
	if err != nil {
		return nil, nil, err
	}
	switch framework {
	case "kit":
		eop = func() error { return nil }
	case "eino":
		kop = func() error { return nil }
	}
	for _, op := range []func() error{kop, eop} {
		if _, err := measure(max(1, n/10), op); err != nil {
			return nil, nil, err
		}
	}
	for i := range rounds {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, which := range order {
			op, dst := kop, &k
			if which == 1 {
				op, dst = eop, &e
			}
			s, err := measure(n, op)
			if err != nil {
				return nil, nil, err
			}
			*dst = append(*dst, s)
		}
	}
	return k, e, nil
}

func field(ss []sample, f func(sample) float64) float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = f(s)
	}
	return median(xs)
}

func runW1(t *table, rounds, turns int) error {
	k, e, err := alternate(rounds, turns, kitW1, einoW1)
	if err != nil {
		return err
	}
	perCall := func(f func(sample) float64) func(sample) float64 {
		return func(s sample) float64 { return f(s) / w1Iterations }
	}
	kn, en := field(k, perCall(func(s sample) float64 { return s.ns })), field(e, perCall(func(s sample) float64 { return s.ns }))
	ka, ea := field(k, perCall(func(s sample) float64 { return s.allocs })), field(e, perCall(func(s sample) float64 { return s.allocs }))
	kb, eb := field(k, perCall(func(s sample) float64 { return s.bytes })), field(e, perCall(func(s sample) float64 { return s.bytes }))
	kc, ec := field(k, perCall(func(s sample) float64 { return s.cpu })), field(e, perCall(func(s sample) float64 { return s.cpu }))
	t.add("W1 1 call × 10 iterations", "µs per tool call (wall)", f1(kn/1e3), f1(en/1e3), f2(kn/en))
	t.add("", "CPU µs per tool call", f1(kc/1e3), f1(ec/1e3), f2(kc/ec))
	t.add("", "allocs per tool call", f0(ka), f0(ea), f2(ka/ea))
	t.add("", "bytes per tool call", f0(kb), f0(eb), f2(kb/eb))
	return nil
}

func runW2(t *table, rounds int) error {
	k, e, err := alternate(rounds, 5, kitW2, einoW2)
	if err != nil {
		return err
	}
	kn, en := field(k, func(s sample) float64 { return s.ns }), field(e, func(s sample) float64 { return s.ns })
	ideal := float64(w2Sleep.Nanoseconds())
	t.add("W2 16 × 10 ms calls", "turn ms (ideal 10)", f1(kn/1e6), f1(en/1e6), f2(kn/en))
	t.add("", "turn / ideal", f2(kn/ideal), f2(en/ideal), "")
	return nil
}

func runW3(t *table, rounds int) error {
	k, e, err := alternate(rounds, 5, kitW3, einoW3)
	if err != nil {
		return err
	}
	rate := func(s sample) float64 { return w3Deltas / (s.ns / 1e9) }
	kr, er := field(k, rate), field(e, rate)
	cpuRate := func(s sample) float64 { return w3Deltas / (s.cpu / 1e9) }
	kc, ec := field(k, cpuRate), field(e, cpuRate)
	t.add("W3 10,000 text deltas", "M deltas/s (wall)", f2(kr/1e6), f2(er/1e6), f2(kr/er))
	t.add("", "M deltas per CPU second", f2(kc/1e6), f2(ec/1e6), f2(kc/ec))
	return nil
}

// peak runs op once and returns the most the heap's live objects grew over
// their level before it (sampled every 100 µs) and the bytes op allocated,
// in MiB.
func peak(op func() error) (peakMiB, allocMiB float64, err error) {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(s); return s[0].Value.Uint64() }
	base := read()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	var top uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			top = max(top, read())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	err = op()
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&m1)
	const mib = 1 << 20
	return float64(top-min(top, base)) / mib, float64(m1.TotalAlloc-m0.TotalAlloc) / mib, err
}

func runW4(t *table, rounds int) error {
	dir, err := os.MkdirTemp("", "peers-w4-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	disk := func() (spooledartifact.Store, func(), error) {
		s, err := spooledartifact.NewDiskStore(dir, nil)
		return s, func() {}, err
	}
	type variant struct {
		name string
		op   func() (func() error, error)
	}
	variants := []variant{
		{"eino: text result", einoW4},
		{"kit: text, default memory spool", func() (func() error, error) { return kitW4(false, nil) }},
		{"kit: text, disk store", func() (func() error, error) { return kitW4(false, disk) }},
		{"kit: io.Reader, default memory spool", func() (func() error, error) { return kitW4(true, nil) }},
		{"kit: io.Reader, disk store", func() (func() error, error) { return kitW4(true, disk) }},
	}
	peaks := make([][]float64, len(variants))
	allocs := make([][]float64, len(variants))
	for i := range rounds {
		for j := range variants {
			v := variants[(i+j)%len(variants)]
			op, err := v.op()
			if err != nil {
				return err
			}
			p, a, err := peak(op)
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			idx := (i + j) % len(variants)
			peaks[idx], allocs[idx] = append(peaks[idx], p), append(allocs[idx], a)
		}
	}
	const size = float64(w4Size) / (1 << 20)
	ep := median(peaks[0])
	t.add("W4 100 MiB result", "eino peak heap MiB (× result)", "", f0(ep)+" ("+f2(ep/size)+"×)", "")
	for j, v := range variants[1:] {
		p, a := median(peaks[j+1]), median(allocs[j+1])
		t.add("", strings.TrimPrefix(v.name, "kit: ")+": peak MiB (× result), allocated MiB",
			f0(p)+" ("+f2(p/size)+"×), "+f0(a), "", f2(p/ep))
	}
	return nil
}

// bigText is n bytes of log-like lines, built in one allocation.
func bigText(n int) string {
	var b strings.Builder
	b.Grow(n)
	for b.Len() < n {
		b.WriteString(w4Line[:min(len(w4Line), n-b.Len())])
	}
	return b.String()
}

func f0(x float64) string { return fmt.Sprintf("%.0f", x) }
func f1(x float64) string { return fmt.Sprintf("%.1f", x) }
func f2(x float64) string { return fmt.Sprintf("%.2f", x) }
