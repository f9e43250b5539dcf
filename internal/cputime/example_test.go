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
