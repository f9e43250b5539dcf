package canonical

import (
	"fmt"
	"strings"
	"testing"
)

// A worker's panic, re-raised on the calling goroutine, still shows the
// worker's stack (the re-raise itself only has the caller's).
func TestWorkerPanicKeepsStack(t *testing.T) {
	got := fmt.Sprint(workerPanic{value: "boom", stack: []byte("goroutine 7 [running]:\ncanonical.(*state).run")})
	for _, want := range []string{"boom", "goroutine 7 [running]", "(*state).run"} {
		if !strings.Contains(got, want) {
			t.Errorf("workerPanic renders %q: %q missing", got, want)
		}
	}
}
