// Package cputime reads the CPU time the process has used, so benchmarks
// can report a cost per CPU second (cpu-ns/op, cpu-MB/s) next to wall
// time: on a machine shared with other work, wall time moves with the load
// and CPU time much less.
//
//	c0, ok := cputime.Process()
//	for b.Loop() { work() }
//	if c1, ok1 := cputime.Process(); ok && ok1 {
//		b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
//	}
//
// On a virtual machine the host may also run other guests on the same
// processors: Machine reads the machine-wide counters, and StealShare of
// two readings says how much of the CPU time was taken away meanwhile.
package cputime
