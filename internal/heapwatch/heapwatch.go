// Package heapwatch samples the Go heap while a test runs, for tests that
// bound how much memory a query may hold: start a watch, run the query,
// stop the watch and compare the peak with the bound.
//
//	stop := heapwatch.Start(heapwatch.HeapInuse)
//	runQuery()
//	if peak := stop(); peak > limit { t.Errorf(...) }
package heapwatch

import (
	"runtime"
	"sync"
	"time"
)

// Interval is how often a watch samples runtime.MemStats.
const Interval = 20 * time.Millisecond

// Metric picks the figure a watch tracks from a runtime.MemStats.
type Metric func(*runtime.MemStats) uint64

// HeapInuse is the bytes in in-use heap spans (runtime.MemStats.HeapInuse).
func HeapInuse(ms *runtime.MemStats) uint64 { return ms.HeapInuse }

// HeapAlloc is the bytes of allocated heap objects, reachable or not yet
// collected (runtime.MemStats.HeapAlloc).
func HeapAlloc(ms *runtime.MemStats) uint64 { return ms.HeapAlloc }

// Read returns m of the heap now.
func Read(m Metric) uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return m(&ms)
}

// Start samples m every Interval on a goroutine of its own until the
// returned stop is called. stop takes a last sample, waits for the
// goroutine to end and returns the largest value seen; call it exactly
// once, from the goroutine that called Start.
func Start(m Metric) (stop func() uint64) {
	var (
		peak uint64 // written by the sampler until wg.Wait, then by stop
		wg   sync.WaitGroup
		done = make(chan struct{}) // closed by stop
	)
	wg.Go(func() {
		tick := time.NewTicker(Interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				peak = max(peak, Read(m))
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return max(peak, Read(m))
	}
}

// AllocatedBy returns the bytes fn allocates in all
// (runtime.MemStats.TotalAlloc), whatever was collected meanwhile: for
// tests that bound what a call costs rather than what it holds.
func AllocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
