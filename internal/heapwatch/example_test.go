package heapwatch_test

import (
	"fmt"
	"runtime"

	"github.com/ebbforge/adk/internal/heapwatch"
)

// A test starts a watch, runs what it measures and compares the peak with
// its bound.
func ExampleStart() {
	stop := heapwatch.Start(heapwatch.HeapInuse)
	buf := make([]byte, 8<<20) // the work being measured
	peak := stop()
	runtime.KeepAlive(buf)
	fmt.Println(peak >= 8<<20)
	// Output: true
}
