//go:build !(linux || darwin)

package canonical_test

import "time"

// processCPU is unavailable here: the CPU-time metric is not reported.
func processCPU() (time.Duration, bool) { return 0, false }
