package spooledartifact

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Sweep deletes the old entries keep does not claim, asks keep only
// about old entries and with no lock held (keep may use the store), and
// judges an entry written again meanwhile by its new time.
func TestSweepKeep(t *testing.T) {
	// Far apart enough for file modification times, which the kernel
	// stamps from a coarse clock.
	const gap = 20 * time.Millisecond
	old := []string{"t1/a", "t1/b", "t2/a", "x"}
	tests := []struct {
		name string
		keep func(s Store, id string) bool // nil: a nil keep
		left []string
		// asked is who keep is asked about; nil with a nil keep.
		asked []string
	}{
		{"nil keep sweeps every old entry", nil, []string{"new"}, nil},
		{"keep spares the ids it claims", func(_ Store, id string) bool { return strings.HasPrefix(id, "t1/") },
			[]string{"new", "t1/a", "t1/b"}, old},
		{"keep everything", func(Store, string) bool { return true },
			[]string{"new", "t1/a", "t1/b", "t2/a", "x"}, old},
		{"an entry written again while keep is asked survives", func(s Store, id string) bool {
			if id == "x" {
				time.Sleep(gap)
				if _, err := WriteString(context.Background(), s, "x", "again"); err != nil {
					t.Error(err)
				}
			}
			return false
		}, []string{"new", "x"}, old},
	}
	for _, tt := range tests {
		for name, s := range stores(t) {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				for _, id := range old {
					if _, err := WriteString(ctx, s, id, id); err != nil {
						t.Fatal(err)
					}
				}
				time.Sleep(gap)
				olderThan := time.Now()
				time.Sleep(gap)
				if _, err := WriteString(ctx, s, "new", "new"); err != nil {
					t.Fatal(err)
				}
				var (
					mu    sync.Mutex
					asked []string
					keep  func(string) bool
				)
				if tt.keep != nil {
					keep = func(id string) bool {
						mu.Lock()
						asked = append(asked, id)
						mu.Unlock()
						return tt.keep(s, id)
					}
				}
				n, err := s.(Sweeper).Sweep(ctx, olderThan, keep)
				if err != nil {
					t.Fatal(err)
				}
				left, err := s.List(ctx, "")
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.left, left); diff != "" {
					t.Errorf("left after Sweep with keep (-want +got):\n%s", diff)
				}
				if want := len(old) + 1 - len(tt.left); n != want {
					t.Errorf("Sweep with keep = %d, want %d", n, want)
				}
				slices.Sort(asked)
				if diff := cmp.Diff(tt.asked, asked); diff != "" {
					t.Errorf("keep asked about (-want +got):\n%s", diff)
				}
				for _, id := range left {
					r, err := s.Read(ctx, id)
					if err != nil {
						t.Errorf("Read(%q) after Sweep with keep: %v", id, err)
						continue
					}
					if c, ok := r.(interface{ Close() error }); ok {
						c.Close()
					}
				}
			})
		}
	}
}

func TestSweepCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, s := range stores(t) {
		if _, err := WriteString(context.Background(), s, "a", "a"); err != nil {
			t.Fatal(err)
		}
		if n, err := s.(Sweeper).Sweep(ctx, time.Now().Add(time.Hour), nil); n != 0 || err == nil {
			t.Errorf("%s: Sweep on a cancelled ctx = %d, %v", name, n, err)
		}
		if ids, _ := s.List(context.Background(), ""); len(ids) != 1 {
			t.Errorf("%s: cancelled Sweep left %v", name, ids)
		}
	}
}
