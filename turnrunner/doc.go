// Package turnrunner will run a turn against a model, execute its tool calls
// and stream every event over a channel.
package turnrunner
