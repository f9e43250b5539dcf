package cputime

import "os"

// Machine reads the machine-wide CPU time counters; ok is false where the
// platform does not tell them (Linux tells them in /proc/stat).
func Machine() (t Ticks, ok bool) {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return Ticks{}, false
	}
	return parseStat(string(stat))
}
