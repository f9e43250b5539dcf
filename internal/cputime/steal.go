package cputime

import (
	"math/bits"
	"strconv"
	"strings"
)

// Ticks is a reading of the machine-wide CPU time counters: all the CPU
// time of all CPUs (Total), and the part of it the hypervisor gave to
// other guests while this machine's CPUs wanted to run (Steal). Both are
// in the kernel's clock ticks; only differences between readings and
// their ratio mean anything.
type Ticks struct {
	Steal, Total uint64
}

// StealShare returns the share of the machine's CPU time stolen between
// the readings a and b (0 to 1), or 0 when no time passed. On a virtual
// machine whose host is busy, a benchmark that ran while a tenth of the
// CPU time was stolen ran on nine tenths of the CPUs it was given.
func StealShare(a, b Ticks) float64 {
	if b.Total <= a.Total || b.Steal < a.Steal {
		return 0
	}
	return float64(b.Steal-a.Steal) / float64(b.Total-a.Total)
}

// parseStat reads the aggregate "cpu" line of /proc/stat: user, nice,
// system, idle, iowait, irq, softirq, steal, and then guest time, which
// user and nice already count. Kernels before 2.6.11 have no steal field.
func parseStat(stat string) (Ticks, bool) {
	line, _, _ := strings.Cut(stat, "\n")
	fields := strings.Fields(line)
	if len(fields) < 2 || fields[0] != "cpu" {
		return Ticks{}, false
	}
	var t Ticks
	for k, f := range fields[1:] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return Ticks{}, false
		}
		if k >= 8 {
			break // guest and guest_nice: already in user and nice
		}
		if k == 7 {
			t.Steal = v
		}
		var carry uint64
		if t.Total, carry = bits.Add64(t.Total, v, 0); carry != 0 {
			return Ticks{}, false
		}
	}
	return t, true
}
