package cputime_test

import (
	"fmt"

	"github.com/ebbforge/adk/internal/cputime"
)

// A benchmark reads the process CPU time before and after its loop and
// reports the difference per operation when both readings are available.
func ExampleProcess() {
	c0, ok0 := cputime.Process()
	sum := 0
	for i := range 1_000_000 {
		sum += i
	}
	c1, ok1 := cputime.Process()
	fmt.Println(sum, !ok0 || !ok1 || c1 >= c0)
	// Output: 499999500000 true
}

// Two readings of the machine's counters, taken around a benchmark, give
// the share of its CPU time the hypervisor took meanwhile (here 50 of 1000
// ticks). Machine takes the readings where the platform tells them.
func ExampleStealShare() {
	before := cputime.Ticks{Steal: 100, Total: 9000}
	after := cputime.Ticks{Steal: 150, Total: 10000}
	fmt.Printf("%.0f%%\n", 100*cputime.StealShare(before, after))
	// Output: 5%
}
