package testdeps

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const install = "run scripts/testdeps.sh (or `make test`, which calls it)"

// missing skips the test, or fails it under CI.
func missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing: %s", what, install)
	}
	t.Skipf("%s is missing: %s", what, install)
}

// Root is the module root: the nearest ancestor of the working directory
// holding go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testdeps: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Node is the path of the node executable.
func Node(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node")
	}
	return p
}

// NodeModules is the node_modules folder holding the npm packages of
// internal/testdeps/package.json. It checks that pkg (such as "ai" or
// "@ag-ui/core") is installed there.
func NodeModules(t testing.TB, pkg string) string {
	t.Helper()
	dir := filepath.Join(Root(t), ".testdeps", "node_modules")
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(pkg), "package.json")); err != nil {
		missing(t, "npm package "+pkg)
	}
	return dir
}

// Chromium is the path of a Chromium executable.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing(t, "chromium")
	return ""
}
