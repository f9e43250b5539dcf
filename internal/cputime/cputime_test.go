package cputime_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/ebbforge/adk/internal/cputime"
)

// TestProcessAdvances burns CPU for a while and checks the reading grows,
// where the platform tells it.
func TestProcessAdvances(t *testing.T) {
	c0, ok := cputime.Process()
	if !ok {
		if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
			t.Fatalf("Process() not available on %s", runtime.GOOS)
		}
		t.Skipf("no process CPU time on %s", runtime.GOOS)
	}
	x := uint64(1)
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	c1, _ := cputime.Process()
	if c1 <= c0 {
		t.Errorf("CPU time went from %v to %v over a 50 ms busy loop (x=%d)", c0, c1, x)
	}
}
