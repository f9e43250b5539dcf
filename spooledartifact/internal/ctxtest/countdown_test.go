package ctxtest

import (
	"context"
	"errors"
	"testing"
)

func TestCountdownEndsAfterNChecks(t *testing.T) {
	c := NewCountdown(2)
	for i := range 2 {
		if err := c.Err(); err != nil {
			t.Fatalf("check %d: %v, want nil", i, err)
		}
		select {
		case <-c.Done():
			t.Fatalf("check %d: done before the count ran out", i)
		default:
		}
	}
	for i := range 2 {
		if err := c.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("check after end %d: %v, want context.Canceled", i, err)
		}
	}
	<-c.Done() // closed once, however often Err is called after
	if n := c.ErrsAfterEnd(); n != 2 {
		t.Errorf("ErrsAfterEnd = %d, want 2", n)
	}
}
