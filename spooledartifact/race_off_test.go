//go:build !race

package spooledartifact

const raceEnabled = false
