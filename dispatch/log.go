package dispatch

import (
	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/forge"
)

// Log sends a note to the turn's event stream (a turnrunner.Log event) and
// the runner's logger at level (zerolog's, which names the level in the
// event's wire form), stamped with the dispatch id, the current iteration
// and the time. Safe for
// concurrent use; tool handlers reach it through their invocation's Scope
// (see [FromScope]).
func (c *Context) Log(level zerolog.Level, kind, message string, payload any) {
	if c.log != nil {
		c.log(level, kind, message, payload)
	}
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
