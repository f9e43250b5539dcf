//go:build unix

package turnrunner_test

import (
	"syscall"
	"time"
)

// processCPU is the process's user+system CPU time, for cpu-ns metrics that
// a shared, noisy machine distorts less than wall time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
