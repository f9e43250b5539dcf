package dispatch

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/forge"
)

// LogEntry is one note from middleware or a tool handler, enriched by
// [Context.Log] with the dispatch id, the iteration and the time.
type LogEntry struct {
	DispatchID string
	Iteration  int
	Level      zerolog.Level
	// Kind is a short machine-readable tag, e.g. "cache-miss".
	Kind    string
	Message string
	// Payload is structured detail, passed on as given (not copied).
	Payload any
	Time    time.Time
}

// Log sends a note to the turn's event stream (a turnrunner.Log event) and
// the runner's logger at level (zerolog's, which names the level in the
// event's wire form), stamped with the dispatch id, the current iteration
// and the time. Without a sink (Config.Log) it does nothing. Safe for
// concurrent use; tool handlers reach it through their invocation's Scope
// (see [FromScope]).
func (c *Context) Log(level zerolog.Level, kind, message string, payload any) {
	if c.log == nil {
		return
	}
	c.log(LogEntry{DispatchID: c.id, Iteration: c.Iteration(), Level: level, Kind: kind,
		Message: message, Payload: payload, Time: c.now()})
}

// FromScope returns the dispatch Context behind a tool handler's
// forge.Invocation Scope, so a handler can log or read the stash:
//
//	if dc, ok := dispatch.FromScope(inv.Scope); ok {
//		dc.Log(zerolog.InfoLevel, "cache-miss", "fetched from origin", nil)
//	}
func FromScope(s forge.Scope) (*Context, bool) {
	c, ok := s.(*Context)
	return c, ok && c != nil
}
