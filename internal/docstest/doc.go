// Package docstest holds a test that keeps the repository's docs and
// comments about the product: they stand alone, so they name no file
// outside the repository, no issue number and no history of the work.
package docstest
