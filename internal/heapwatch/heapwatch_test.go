package heapwatch_test

import (
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/internal/heapwatch"
)

// TestStartSeesLiveAllocation holds 32 MiB across a few sampling intervals
// and checks the peak covers it, for both metrics, and that stop leaves no
// goroutine behind.
func TestStartSeesLiveAllocation(t *testing.T) {
	defer goleak.VerifyNone(t)
	const size = 32 << 20
	for _, tc := range []struct {
		name string
		m    heapwatch.Metric
	}{{"HeapInuse", heapwatch.HeapInuse}, {"HeapAlloc", heapwatch.HeapAlloc}} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			stop := heapwatch.Start(tc.m)
			buf := make([]byte, size) // counted once allocated, touched or not
			time.Sleep(3 * heapwatch.Interval)
			peak := stop()
			runtime.KeepAlive(buf)
			if peak < size {
				t.Errorf("peak %d bytes while %d were live", peak, size)
			}
		})
	}
}

// TestStopSamplesAtOnce stops a watch before its first tick: the last
// sample stop takes still counts.
func TestStopSamplesAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	buf := make([]byte, 16<<20)
	stop := heapwatch.Start(heapwatch.HeapAlloc)
	peak := stop()
	runtime.KeepAlive(buf)
	if peak < uint64(len(buf)) {
		t.Errorf("peak %d bytes while %d were live", peak, len(buf))
	}
}

// TestRead checks Read hands the metric the current statistics.
func TestRead(t *testing.T) {
	if got := heapwatch.Read(func(ms *runtime.MemStats) uint64 { return ms.Sys }); got == 0 {
		t.Error("Read(Sys) = 0")
	}
	if heapwatch.Read(heapwatch.HeapInuse) == 0 || heapwatch.Read(heapwatch.HeapAlloc) == 0 {
		t.Error("Read of a heap metric = 0 in a running program")
	}
}

func TestAllocatedBy(t *testing.T) {
	var sink []byte
	n := heapwatch.AllocatedBy(func() { sink = make([]byte, 1<<20) })
	if n < 1<<20 || n > 2<<20 {
		t.Errorf("AllocatedBy(make 1 MiB) = %d bytes", n)
	}
	_ = sink
}
