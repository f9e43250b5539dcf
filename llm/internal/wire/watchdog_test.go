package wire

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

var errSlow = errors.New("slow")

func TestWatchdog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		w := New(cancel, time.Second, errSlow)
		r := w.Reader(strings.NewReader("abc"))
		time.Sleep(900 * time.Millisecond)
		io.ReadAll(r) // progress restarts the timer
		time.Sleep(900 * time.Millisecond)
		if ctx.Err() != nil {
			t.Fatal("cancelled although the body made progress")
		}
		time.Sleep(200 * time.Millisecond)
		if !errors.Is(context.Cause(ctx), errSlow) {
			t.Fatalf("cause = %v, want errSlow", context.Cause(ctx))
		}
	})
}

func TestWatchdogResetAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		w := New(cancel, time.Second, errSlow)
		w.Reset(-1, nil)
		time.Sleep(2 * time.Second)
		if ctx.Err() != nil {
			t.Fatal("a disarmed watchdog cancelled")
		}
		w.Reset(time.Second, errSlow)
		w.Stop()
		time.Sleep(2 * time.Second)
		if ctx.Err() != nil {
			t.Fatal("a stopped watchdog cancelled")
		}
		if Timeout(0, time.Minute) != time.Minute || Timeout(-1, time.Minute) != -1 {
			t.Fatal("Timeout defaults")
		}
	})
}
