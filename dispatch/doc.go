// Package dispatch owns the state of one dispatch — the model/tool loop of
// a turn — as the turn runner drives it, and the persistence of turns.
//
// The turn runner makes and drives every [Context]; middleware and tool
// handlers get one to read and change the turn's state.
//
// A [Context] holds the iteration counter, the ack/nack signal (a second
// signal is [ErrAlreadySignalled]; [Context.OnAck] handlers run in order,
// only on ack), the turn's timeline of [Message], [Thought] and
// forge.ToolCall values in the order they happened, the per-dispatch tool
// registry (a clone of the runner's plus the forged artifact_* tools), a
// [Stash], and [Context.ToolCallCount] by checksum, seeded from history and
// kept in step by [Context.Save]. Every
// mutation goes through the persistence [Store] first ([MemoryStore] is the
// in-memory default), so a failing store leaves the context unchanged.
//
// # Loop guard
//
// [LoopPolicy] is on by default: at most 25 model calls per dispatch and 3
// identical calls (same tool and canonical arguments) per turn; calls
// replayed from history do not count. A call past the limit is not run:
// the model gets an error result (E_LOOP_GUARD_REPEATED_TOOL_CALL) saying
// it already made this call and what it returned (or, for repeats within
// one response, that only the first ones ran). Repeating a blocked call in
// a later response, or the iteration cap, ends the dispatch gracefully: one
// last model call with no tools and a note asking for an answer. Per-tool
// overrides, negative limits and Disabled turn it down or off. Every
// decision is reported as a turnrunner.LoopGuard event.
//
// Middleware sees the Context: it may Ack (ending the loop), Nack, hide
// tools, open a gate with [Context.WaitFor], or log to the turn's event
// stream with [Context.Log]. Tool handlers get it as their invocation's
// forge.Scope ([FromScope]).
package dispatch
