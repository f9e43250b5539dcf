// Package dispatch will own the per-dispatch context: iteration, ack/nack,
// the turn's tool calls, ToolCallCount and loop detection.
package dispatch
