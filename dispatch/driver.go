package dispatch

import (
	"context"
	"slices"

	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/turnstate"
)

// driver is what the loop that drives a dispatch (the turn runner) holds
// and middleware and tools do not: starting a Context, moving it to its
// next iteration, storing a response's entries with their loop-guard
// standing, the guard's recorded decisions and the outcome. It reaches the
// runner through internal/turnstate, which only this module can import.
type driver struct{}

func init() { turnstate.Register(driver{}) }

// New starts a dispatch of turn turnID at iteration 0. timeline is the
// history (copied, not stored again; ToolCallCount counts its calls, the
// loop guard does not); resumed are the turn's own entries stored before
// it stopped, when the dispatch continues a stored turn (they follow the
// history, and the dispatch goes on as if it had made them: it starts at
// the iteration after their model responses, their executed calls count
// against the loop guard and a call the guard refused stays blocked).
// tools is cloned, stash shared, store persists every mutation first and
// loop is copied. gate opens the gates of WaitFor; log receives the notes
// of Log, on the logging goroutine. An entry holding no value, or more
// than one, is an error and no Context is made.
func (driver) New(turnID string, timeline, resumed []Entry, tools *forge.Registry, stash *Stash, store Store, loop LoopPolicy,
	gate func(ctx context.Context, req GateRequest) (any, error), log func(level zerolog.Level, kind, message string, payload any)) (*Context, error) {
	return newContext(config{TurnID: turnID, Timeline: timeline, Resumed: resumed, Tools: tools, Stash: stash,
		Store: store, Loop: loop, WaitFor: gate, Log: log})
}

// Advance moves c to its next iteration and returns its number.
func (driver) Advance(c *Context) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.iteration++
	return c.iteration
}

// Save persists e, an entry a model response produced (with its
// ResponseID) or a settled call of a resumed turn: a tool call counts
// against the loop guard only when executed is true, that is when the
// dispatch ran it rather than refused it (blocked, denied, cut off).
func (driver) Save(ctx context.Context, c *Context, e Entry, executed bool) error {
	if e.Kind() == EntryNone {
		return ErrStore.With(nil, "dispatch: save: the entry must hold exactly one value")
	}
	return c.save(ctx, e, executed && e.ToolCall != nil)
}

// GuardRepeat is the loop guard's verdict for one proposed call of tool
// with checksum; a block is recorded, so that repeating the blocked call in
// a later iteration finalizes. pending is how many identical calls earlier
// in the same model response were already allowed (they are not stored
// yet).
//
// The count is the calls this dispatch executed and stored (history and
// calls stored as not executed do not count) plus pending. Past the limit
// the call is BlockedRepeat, with InResponse set when the limit was crossed
// by repeats within this one response; it is Finalize only when the same
// checksum was already blocked in an earlier iteration, that is after the
// model saw the block.
func (driver) GuardRepeat(c *Context, tool, checksum string, pending int) turnstate.Verdict {
	return c.guardRepeat(tool, checksum, pending)
}

// LastExecutedToolCall returns the most recent tool call with checksum
// that this dispatch executed and stored: what the loop guard quotes back
// to a model that repeats it.
func (driver) LastExecutedToolCall(c *Context, checksum string) (*forge.ToolCall, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.timeline) - 1; i >= 0; i-- {
		if tc := c.timeline[i].ToolCall; tc != nil && tc.Checksum() == checksum {
			if _, executed := c.own[tc.ID()]; executed {
				return tc, true
			}
		}
	}
	return nil, false
}

// AppendToolCalls appends the tool calls of c's timeline to dst, in order,
// without copying the timeline.
func (driver) AppendToolCalls(c *Context, dst []*forge.ToolCall) []*forge.ToolCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.timeline {
		if e.ToolCall != nil {
			dst = append(dst, e.ToolCall)
		}
	}
	return dst
}

// Snapshot returns c's timeline as it is, sharing its array instead of
// copying it: entries appended later are past the snapshot's end (its
// capacity is its length, so appending to it copies), and an entry
// replaced in place copies the timeline first. The caller must not modify
// the snapshot's entries.
func (driver) Snapshot(c *Context) []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lent = true
	return slices.Clip(c.timeline)
}

// HasToolCall reports whether c's timeline holds a tool call with id.
func (driver) HasToolCall(c *Context, id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pos[entryKey{EntryToolCall, id}]
	return ok
}

// Hydrate appends history entries to the timeline without storing them,
// as New's timeline seeds it.
func (driver) Hydrate(c *Context, entries ...Entry) error { return c.hydrate(entries...) }

// Outcome reports whether c was acked and the error given to Nack (nil
// when it was not nacked).
func (driver) Outcome(c *Context) (acked bool, nackErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.acked, c.nackErr
}

// IterationLimit is the effective iteration cap of c's loop policy, 0 when
// the guard is off.
func (driver) IterationLimit(c *Context) int { return c.loop.iterationLimit() }

// IdenticalCallLimit is the effective identical-call limit of c's loop
// policy for tool, 0 when the repeat check is off for it.
func (driver) IdenticalCallLimit(c *Context, tool string) int { return c.loop.identicalCallLimit(tool) }
