//go:build !unix

package cputime

import "time"

// Process returns the user+system CPU time the process has used so far;
// ok is false where the platform does not tell it, as here.
func Process() (d time.Duration, ok bool) { return 0, false }
