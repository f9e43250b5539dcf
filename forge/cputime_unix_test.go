//go:build unix

package forge

import (
	"syscall"
	"time"
)

// processCPU is the process's user+system CPU time so far. On a shared,
// loaded machine it is a steadier per-call figure than wall time (it still
// includes GC work, which is the point).
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
