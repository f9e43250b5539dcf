package dispatch

import (
	"context"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/turnstate"
)

// What the turn runner reaches through the driver, for the external tests.

type Config = config

func New(cfg Config) (*Context, error) { return newContext(cfg) }

func (c *Context) Advance() int { return driver{}.Advance(c) }

func (c *Context) GuardRepeat(tool, checksum string, pending int) turnstate.Verdict {
	return driver{}.GuardRepeat(c, tool, checksum, pending)
}

// CheckRepeat is the verdict GuardRepeat would give, without recording it.
func (c *Context) CheckRepeat(tool, checksum string, pending int) turnstate.Verdict {
	limit := c.loop.identicalCallLimit(tool)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.verdict(limit, checksum, pending)
}

func (c *Context) StoreResponseEntry(ctx context.Context, e Entry, executed bool) error {
	return driver{}.Save(ctx, c, e, executed)
}

func (c *Context) StoreUnexecutedToolCall(ctx context.Context, tc *forge.ToolCall) error {
	return driver{}.Save(ctx, c, Entry{ToolCall: tc}, false)
}

func (c *Context) LastExecutedToolCall(checksum string) (*forge.ToolCall, bool) {
	return driver{}.LastExecutedToolCall(c, checksum)
}

func (c *Context) Hydrate(entries ...Entry) error { return driver{}.Hydrate(c, entries...) }

func (c *Context) Outcome() (bool, error) { return driver{}.Outcome(c) }

func (c *Context) Loop() LoopPolicy { return c.loop.clone() }

func (p LoopPolicy) IterationLimit() int { return p.iterationLimit() }

func (p LoopPolicy) IdenticalCallLimit(tool string) int { return p.identicalCallLimit(tool) }

var (
	ErrInvalidContext   = errInvalidContext
	ErrGateNotSupported = errGateNotSupported
)

func (c *Context) IsAcked() bool  { acked, _ := c.Outcome(); return acked }
func (c *Context) NackErr() error { _, err := c.Outcome(); return err }

func (c *Context) ToolCalls() []*forge.ToolCall {
	var out []*forge.ToolCall
	for _, e := range c.Timeline() {
		if e.ToolCall != nil {
			out = append(out, e.ToolCall)
		}
	}
	return out
}

func (c *Context) ToolCall(id string) (*forge.ToolCall, bool) {
	for _, tc := range c.ToolCalls() {
		if tc.ID() == id {
			return tc, true
		}
	}
	return nil, false
}

func (c *Context) StoreToolCall(ctx context.Context, tc *forge.ToolCall) error {
	return c.Save(ctx, Entry{ToolCall: tc})
}

func (c *Context) Snapshot() []Entry { return driver{}.Snapshot(c) }
