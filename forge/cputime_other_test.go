//go:build !unix

package forge

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
