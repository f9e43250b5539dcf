// Package golden checks a test's output against a golden file,
// testdata/golden/<name>.txt of the package under test, and rewrites the
// file instead when the test binary runs with its -update flag:
//
//	var update = flag.Bool("update", false, "rewrite golden files")
//
//	golden.Check(t, "grep-basic", got, *update)
//
// The flag stays in each test package (no package-level state here).
package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Path is the golden file of name: testdata/golden/<name>.txt, relative to
// the package under test.
func Path(name string) string { return filepath.Join("testdata", "golden", name+".txt") }

// Check compares got with the golden file of name and reports a difference
// as a (-want +got) diff; a missing file fails the test with a hint to run
// with -update. With update set it writes got to the file instead (creating
// its directories) and checks nothing.
func Check(t testing.TB, name, got string, update bool) {
	t.Helper()
	path := Path(name)
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
