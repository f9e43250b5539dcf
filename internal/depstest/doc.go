// Package depstest holds the test that keeps the kit's import graph pointing
// one way: canonical, media → forge → spooledartifact → dispatch →
// turnrunner → adapters and examples. It has no non-test code.
package depstest
