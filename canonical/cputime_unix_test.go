//go:build linux || darwin

package canonical_test

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time the process has used so far,
// so benchmarks can report throughput per CPU second, which stays
// meaningful on a machine shared with other work.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
