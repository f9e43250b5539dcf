package golden_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ebbforge/adk/internal/golden"
)

// recorder is a testing.TB that records failures instead of failing; Fatal
// stops the check by panicking with stopped, as FailNow stops a test.
type recorder struct {
	testing.TB
	errs []string
}

type stopped struct{}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(stopped{})
}
func (r *recorder) Fatal(args ...any) {
	r.errs = append(r.errs, fmt.Sprint(args...))
	panic(stopped{})
}

// check runs golden.Check against a recorder and returns what it reported.
func check(name, got string, update bool) (errs []string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != (stopped{}) {
			panic(p)
		}
		errs = r.errs
	}()
	golden.Check(r, name, got, update)
	return r.errs
}

func TestCheck(t *testing.T) {
	t.Chdir(t.TempDir())
	steps := []struct {
		name   string
		got    string
		update bool
		want   string // a substring of the one failure; "" for none
	}{
		{"missing file", "a\n", false, "(run with -update)"},
		{"update writes", "a\nb\n", true, ""},
		{"same passes", "a\nb\n", false, ""},
		{"difference fails", "a\nc\n", false, "mismatch (-want +got)"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			errs := check("case", s.got, s.update)
			switch {
			case s.want == "" && len(errs) > 0:
				t.Errorf("failures %q, want none", errs)
			case s.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], s.want)):
				t.Errorf("failures %q, want one containing %q", errs, s.want)
			}
		})
	}
	b, err := os.ReadFile(golden.Path("case"))
	if err != nil || string(b) != "a\nb\n" {
		t.Errorf("golden file %q, %v; want the updated text", b, err)
	}
	// The diff shows both texts (cmp quotes single-line-ish strings).
	got := check("case", "a\nc\n", false)
	if len(got) != 1 || !strings.Contains(got[0], strconv.Quote("a\nb\n")) || !strings.Contains(got[0], strconv.Quote("a\nc\n")) {
		t.Errorf("diff %q lacks the wanted or the got text", got)
	}
}
