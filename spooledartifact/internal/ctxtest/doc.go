// Package ctxtest holds test support for the artifact packages: a
// context that ends on a count of its checks rather than on a clock, so
// a test of cancellation is exact and fast.
package ctxtest
