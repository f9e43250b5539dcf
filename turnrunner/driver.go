package turnrunner

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/turnstate"
)

// dispatchDriver is what package dispatch lends the loop that drives a
// dispatch, and middleware and tools do not get (see internal/turnstate):
// the methods are documented where dispatch defines them.
type dispatchDriver interface {
	New(turnID string, timeline, resumed []dispatch.Entry, tools *forge.Registry, stash *dispatch.Stash, store dispatch.Store,
		loop dispatch.LoopPolicy, gate func(ctx context.Context, req dispatch.GateRequest) (any, error),
		log func(level zerolog.Level, kind, message string, payload any)) (*dispatch.Context, error)
	Advance(dc *dispatch.Context) int
	Save(ctx context.Context, dc *dispatch.Context, e dispatch.Entry, executed bool) error
	GuardRepeat(dc *dispatch.Context, tool, checksum string, pending int) turnstate.Verdict
	LastExecutedToolCall(dc *dispatch.Context, checksum string) (*forge.ToolCall, bool)
	AppendToolCalls(dc *dispatch.Context, dst []*forge.ToolCall) []*forge.ToolCall
	HasToolCall(dc *dispatch.Context, id string) bool
	Snapshot(dc *dispatch.Context) []dispatch.Entry
	Hydrate(dc *dispatch.Context, entries ...dispatch.Entry) error
	Outcome(dc *dispatch.Context) (acked bool, nackErr error)
	IterationLimit(dc *dispatch.Context) int
	IdenticalCallLimit(dc *dispatch.Context, tool string) int
}

// drive is dispatch's driver, registered when package dispatch was
// initialised (before this package's variables).
var drive = turnstate.Driver[dispatchDriver]()
