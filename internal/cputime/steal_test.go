package cputime

import (
	"math"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseStat(t *testing.T) {
	cases := []struct {
		name, stat string
		want       Ticks
		ok         bool
	}{
		{"with steal and guest", "cpu  4163374 460 391402 3787461 7789 0 19677 108869 1000 7\ncpu0 1 2 3\n",
			Ticks{Steal: 108869, Total: 4163374 + 460 + 391402 + 3787461 + 7789 + 0 + 19677 + 108869}, true},
		{"no guest fields", "cpu 10 0 5 80 0 0 0 5", Ticks{Steal: 5, Total: 100}, true},
		{"before steal was counted", "cpu 10 0 5 85 0 0 0", Ticks{Total: 100}, true},
		{"per-CPU line first", "cpu0 1 2 3 4 5 6 7 8", Ticks{}, false},
		{"not a number", "cpu 1 2 x 4", Ticks{}, false},
		{"negative", "cpu 1 -2 3 4", Ticks{}, false},
		{"empty", "", Ticks{}, false},
		{"sum overflows", "cpu 18446744073709551615 0 0 0 0 0 0 1", Ticks{}, false},
		{"no fields", "cpu\n", Ticks{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := parseStat(c.stat)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("parseStat (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStealShare(t *testing.T) {
	cases := []struct {
		name string
		a, b Ticks
		want float64
	}{
		{"a tenth stolen", Ticks{Steal: 100, Total: 1000}, Ticks{Steal: 110, Total: 1100}, 0.1},
		{"none stolen", Ticks{Steal: 5, Total: 50}, Ticks{Steal: 5, Total: 150}, 0},
		{"no time passed", Ticks{Steal: 5, Total: 50}, Ticks{Steal: 5, Total: 50}, 0},
		{"readings swapped", Ticks{Steal: 9, Total: 90}, Ticks{Steal: 5, Total: 50}, 0},
	}
	for _, c := range cases {
		if got := StealShare(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: StealShare = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMachineAdvances(t *testing.T) {
	a, ok := Machine()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("Machine() not available on linux")
		}
		t.Skipf("no machine CPU counters on %s", runtime.GOOS)
	}
	x := uint64(1)
	for {
		for range 100000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		b, _ := Machine()
		if b.Total > a.Total {
			if s := StealShare(a, b); s < 0 || s > 1 {
				t.Fatalf("StealShare = %v (x=%d)", s, x)
			}
			return
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("cpu  4163374 460 391402 3787461 7789 0 19677 108869 0 0\n")
	f.Add("cpu 1 2")
	f.Add("cpu0 1 2 3")
	f.Fuzz(func(t *testing.T, stat string) {
		got, ok := parseStat(stat)
		if !ok && got != (Ticks{}) {
			t.Fatalf("parseStat(%q) = %+v with ok false", stat, got)
		}
		if ok && got.Steal > got.Total {
			t.Fatalf("parseStat(%q): steal %d above total %d", stat, got.Steal, got.Total)
		}
	})
}
