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

// A benchmark reads the machine's counters before and after its loop and
// reports how much CPU time the hypervisor took from the machine
// meanwhile, where the platform tells it.
func ExampleStealShare() {
	m0, ok0 := cputime.Machine()
	sum := 0
	for i := range 1_000_000 {
		sum += i
	}
	m1, ok1 := cputime.Machine()
	share := 0.0
	if ok0 && ok1 {
		share = cputime.StealShare(m0, m1)
	}
	fmt.Println(sum, share >= 0 && share <= 1)
	// Output: 499999500000 true
}
