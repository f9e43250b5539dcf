//go:build !linux

package cputime

// Machine reads the machine-wide CPU time counters; ok is false where the
// platform does not tell them, as here.
func Machine() (t Ticks, ok bool) { return Ticks{}, false }
