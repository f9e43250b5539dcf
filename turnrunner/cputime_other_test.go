//go:build !unix

package turnrunner_test

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
