package testdeps

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// GoBuild builds the main package pkg (a path from the module root, such as
// "./examples/mcp") into t.TempDir() and returns the executable's path, for
// tests that run a program as a subprocess.
func GoBuild(t testing.TB, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = Root(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}
