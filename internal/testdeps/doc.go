// Package testdeps finds the programs and npm packages that tests run beside
// Go: node, the npm packages installed by scripts/testdeps.sh into .testdeps/
// at the module root, and headless Chromium.
//
// When something is missing, a test is skipped with the command that installs
// it; under CI (the CI environment variable set) it fails instead, so a CI run
// never passes by skipping.
package testdeps
