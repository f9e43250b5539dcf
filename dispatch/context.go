package dispatch

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/turnstate"
)

// GateRequest asks the caller of a turn for a decision (approval, input)
// and suspends the dispatch until it is given. See Context.WaitFor.
type GateRequest struct {
	// ID identifies the gate; "" means generated.
	ID string
	// Reason tells the caller why the turn is waiting.
	Reason string
	// Payload is what the caller needs to decide (required, non-nil).
	Payload any
	// Timeout bounds the wait; 0 means until the turn's context ends.
	Timeout time.Duration
	// Validate checks a resolution; an error keeps the gate open.
	Validate func(value any) error
}

// config builds a [Context] (see driver.New). Only TurnID is required.
type config struct {
	// DispatchID identifies the dispatch; "" means a generated UUID.
	DispatchID string
	// TurnID is the turn the dispatch serves (the Store key).
	TurnID string
	// SystemPrompt is the turn's system prompt (may be nil).
	SystemPrompt *forge.Tokenizable
	// Timeline seeds the history; ToolCallCount counts its tool calls.
	// It is copied, not persisted again.
	Timeline []Entry
	// Resumed are the turn's own entries stored before it stopped, when
	// the dispatch continues a stored turn. They follow Timeline (copied,
	// not persisted again), and the dispatch goes on as if it had made
	// them: it starts at the iteration after their model responses (one
	// per distinct ResponseID), their executed calls count against the
	// loop guard, and a call the guard refused stays blocked.
	Resumed []Entry
	// Tools is cloned into the context's own registry; nil means empty.
	Tools *forge.Registry
	// Stash is shared with the turn; nil means a new empty one.
	Stash *Stash
	// Store persists mutations; nil means a new MemoryStore.
	Store Store
	// Loop is the loop-guard policy (zero value: defaults, on). It is
	// copied, PerTool included: changing the map later does not change
	// the guard.
	Loop LoopPolicy
	// WaitFor opens gates; nil makes WaitFor return errGateNotSupported.
	WaitFor func(ctx context.Context, req GateRequest) (any, error)
	// Log receives Context.Log notes, on the logging goroutine (so notes
	// from one goroutine arrive in order); nil makes Log a no-op.
	Log func(level zerolog.Level, kind, message string, payload any)
}

// Context is the state of one dispatch: the iteration counter, the ack/nack
// signal, the turn's timeline (messages, thoughts and tool calls), the
// per-dispatch tool registry (with the forged artifact_* tools), a stash,
// checksum counts and the loop guard. It implements [forge.Scope].
// Safe for concurrent use: tools running in parallel may read it.
type Context struct {
	id, turnID string
	tools      *forge.Registry
	stash      *Stash
	store      Store
	loop       LoopPolicy
	waitFor    func(ctx context.Context, req GateRequest) (any, error)
	log        func(level zerolog.Level, kind, message string, payload any)

	// storeMu serialises the writes to the store with their timeline
	// updates, so that concurrent saves (tools storing messages) leave the
	// store and the timeline in the same order. Taken before mu.
	storeMu      sync.Mutex
	mu           sync.Mutex
	iteration    int
	systemPrompt *forge.Tokenizable
	timeline     []Entry
	// lent is set while a snapshot shares timeline's array (see
	// driver.Snapshot): an entry replaced in place then copies it first.
	lent        bool
	pos         map[entryKey]int  // first timeline index of each (kind, id)
	counts      map[string]int    // checksum -> calls in the timeline, history included
	own         map[string]string // id -> checksum of the executed calls stored by this dispatch
	ownCounts   map[string]int    // checksum -> executed calls stored by this dispatch (the loop guard's count)
	blocked     map[string]int    // checksum -> iteration of its first loop-guard block
	signalled   bool
	acked       bool
	nackErr     error
	handlers    []*ackHandler
	nextHandler int
}

type ackHandler struct {
	id int
	fn func()
}

// newContext validates cfg and returns a Context at iteration 0. A bad
// config is errInvalidContext naming every field at fault.
func newContext(cfg config) (*Context, error) {
	var p []string
	if cfg.TurnID == "" {
		p = append(p, "turnID: required")
	}
	for i, e := range cfg.Timeline {
		if e.Kind() == EntryNone {
			p = append(p, "timeline["+strconv.Itoa(i)+"]: must hold exactly one value")
		}
	}
	for i, e := range cfg.Resumed {
		if e.Kind() == EntryNone {
			p = append(p, "resumed["+strconv.Itoa(i)+"]: must hold exactly one value")
		}
	}
	if len(p) > 0 {
		return nil, errInvalidContext.With(nil, "dispatch: invalid context: %s", strings.Join(p, "; "))
	}
	c := &Context{
		id: cfg.DispatchID, turnID: cfg.TurnID, stash: cfg.Stash, store: cfg.Store,
		loop: cfg.Loop.clone(), waitFor: cfg.WaitFor, log: cfg.Log, systemPrompt: cfg.SystemPrompt,
		timeline: slices.Concat(cfg.Timeline, cfg.Resumed), pos: make(map[entryKey]int, len(cfg.Timeline)+len(cfg.Resumed)),
	}
	if c.id == "" {
		c.id = uuid.NewString()
	}
	if cfg.Tools != nil {
		c.tools = cfg.Tools.Clone()
	} else {
		c.tools = &forge.Registry{}
	}
	if c.stash == nil {
		c.stash = &Stash{}
	}
	if c.store == nil {
		c.store = NewMemoryStore()
	}
	for i, e := range c.timeline {
		c.index(i, e)
		if e.ToolCall != nil {
			c.countCall(e.ToolCall.Checksum())
		}
	}
	c.resume(cfg.Resumed)
	return c, nil
}

// resume restores the iteration and the loop guard's counts from the
// entries of a turn that stopped (see config.Resumed): the responses give
// the iteration; the executed calls the counts; an unexecuted, completed
// call whose checksum had reached its limit was blocked in its response.
func (c *Context) resume(own []Entry) {
	responses := map[string]bool{}
	for _, e := range own {
		if e.ResponseID != "" && !responses[e.ResponseID] {
			responses[e.ResponseID] = true
			c.iteration = len(responses)
		}
		tc := e.ToolCall
		if tc == nil {
			continue
		}
		sum := tc.Checksum()
		if e.Executed {
			c.addOwn(tc.ID(), sum)
			continue
		}
		limit := c.loop.identicalCallLimit(tc.Tool())
		if _, ok := c.blocked[sum]; !ok && tc.IsComplete() && limit > 0 && c.ownCounts[sum] >= limit {
			c.blocked[sum] = max(len(responses)-1, 0)
		}
	}
}

// DispatchID is the dispatch id (and the forge.Scope's).
func (c *Context) DispatchID() string { return c.id }

// TurnID is the id of the turn the dispatch serves.
func (c *Context) TurnID() string { return c.turnID }

// Iteration is the 0-based iteration number.
func (c *Context) Iteration() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.iteration
}

// SystemPrompt is the system prompt (may be nil).
func (c *Context) SystemPrompt() *forge.Tokenizable {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.systemPrompt
}

// SetSystemPrompt replaces the system prompt for the following iterations.
func (c *Context) SetSystemPrompt(t *forge.Tokenizable) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.systemPrompt = t
}

// Tools is the dispatch's own registry: a clone of the runner's tools plus
// the artifact_* tools forged each iteration. Middleware may hide or add tools.
func (c *Context) Tools() *forge.Registry { return c.tools }

// Stash is the turn's key/value bag.
func (c *Context) Stash() *Stash { return c.stash }

// Timeline returns a copy of the turn's entries in order.
func (c *Context) Timeline() []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Entry(nil), c.timeline...)
}

// ToolCallCount is how many of the turn's tool calls have checksum
// (forge.Scope). History counts; unknown checksums give 0.
func (c *Context) ToolCallCount(checksum string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[checksum]
}

// hydrate appends entries to the timeline without storing them, as
// config.Timeline seeds it (their tool calls count in ToolCallCount, not
// against the loop guard). An entry not holding exactly one value is
// errInvalidContext and nothing is added.
func (c *Context) hydrate(entries ...Entry) error {
	for i, e := range entries {
		if e.Kind() == EntryNone {
			return errInvalidContext.With(nil, "dispatch: hydrate: entries[%d] must hold exactly one value", i)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range entries {
		c.index(len(c.timeline), e)
		c.timeline = append(c.timeline, e)
		if e.ToolCall != nil {
			c.countCall(e.ToolCall.Checksum())
		}
	}
	return nil
}

// Save persists e and puts it in the timeline: in place of the entry of the
// same kind and id, or else at the end. A tool call counts in ToolCallCount
// and, unless it replaces a call the dispatch did not execute, against the
// loop guard as an executed call; a replaced call's checksum count moves to
// the new one, and an entry whose ResponseID is "" keeps the one it
// replaces. An entry holding no value, or more than one, is ErrStore, and
// so is a failing Store, which leaves the context unchanged.
func (c *Context) Save(ctx context.Context, e Entry) error {
	if e.Kind() == EntryNone {
		return ErrStore.With(nil, "dispatch: save: the entry must hold exactly one value")
	}
	return c.save(ctx, e, e.ToolCall != nil)
}

// entryKey identifies a timeline entry: ids are unique per kind.
type entryKey struct {
	kind EntryKind
	id   string
}

// index records that entry e is at timeline index i, unless an earlier
// entry has its key (replacement goes to the first, as a scan would).
func (c *Context) index(i int, e Entry) {
	k := entryKey{e.Kind(), e.ID()}
	if _, ok := c.pos[k]; !ok {
		c.pos[k] = i
	}
}

func (c *Context) unown(id string) {
	sum, ok := c.own[id]
	if !ok {
		return
	}
	delete(c.own, id)
	if c.ownCounts[sum] <= 1 {
		delete(c.ownCounts, sum)
		return
	}
	c.ownCounts[sum]--
}

// callMaps makes the maps that track tool calls, at the first call: a
// dispatch that sees none never needs them (reading a nil map is fine).
func (c *Context) callMaps() {
	if c.counts == nil {
		c.counts, c.own, c.ownCounts, c.blocked = map[string]int{}, map[string]string{}, map[string]int{}, map[string]int{}
	}
}

// countCall counts a tool call with checksum sum in the timeline.
func (c *Context) countCall(sum string) {
	c.callMaps()
	c.counts[sum]++
}

func (c *Context) addOwn(id, sum string) {
	c.callMaps()
	c.own[id] = sum
	c.ownCounts[sum]++
}

func (c *Context) uncount(sum string) {
	if c.counts[sum] <= 1 {
		delete(c.counts, sum)
		return
	}
	c.counts[sum]--
}

// save persists first, so a failing store leaves the context unchanged. A
// new tool call counts against the loop guard when executed; a replaced one
// keeps the standing of the call it replaces, and its ResponseID unless e
// names one.
func (c *Context) save(ctx context.Context, e Entry, executed bool) error {
	c.storeMu.Lock()
	defer c.storeMu.Unlock()
	c.mu.Lock()
	i, replaces := c.pos[entryKey{e.Kind(), e.ID()}]
	if replaces && e.ResponseID == "" {
		e.ResponseID = c.timeline[i].ResponseID
	}
	e.Executed = false
	if e.ToolCall != nil {
		e.Executed = executed
		if replaces {
			e.Executed = c.executedReplacement(c.timeline[i].ToolCall, executed)
		}
	}
	c.mu.Unlock()
	if err := c.store.Save(ctx, c.turnID, e); err != nil {
		return ErrStore.With(err, "dispatch: save %s %q", e.Kind(), e.ID())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, id := e.Kind(), e.ID()
	if i, ok := c.pos[entryKey{k, id}]; ok {
		if old := c.timeline[i].ToolCall; old != nil {
			c.uncount(old.Checksum())
			c.countCall(e.ToolCall.Checksum())
			c.unown(id)
			if e.Executed {
				c.addOwn(id, e.ToolCall.Checksum())
			}
		}
		if c.lent {
			c.timeline, c.lent = slices.Clone(c.timeline), false
		}
		c.timeline[i] = e
		return nil
	}
	c.index(len(c.timeline), e)
	c.timeline = append(c.timeline, e)
	if e.ToolCall != nil {
		c.countCall(e.ToolCall.Checksum())
		if executed {
			c.addOwn(id, e.ToolCall.Checksum())
		}
	}
	return nil
}

// executedReplacement is the standing of a call replacing old in place:
// it keeps old's, except that a call which was waiting (old incomplete, not
// executed: awaiting approval in a resumed turn) becomes executed when it
// is stored as executed. c.mu is held.
func (c *Context) executedReplacement(old *forge.ToolCall, executed bool) bool {
	if _, mine := c.own[old.ID()]; mine {
		return true
	}
	return executed && !old.IsComplete()
}

// Ack signals success: the dispatch ends after the current step. Handlers
// registered with OnAck run synchronously, in order. A second signal is
// ErrAlreadySignalled.
func (c *Context) Ack() error {
	c.mu.Lock()
	if c.signalled {
		c.mu.Unlock()
		return ErrAlreadySignalled.With(nil, "dispatch: ack: already signalled")
	}
	c.signalled, c.acked = true, true
	hs := append([]*ackHandler(nil), c.handlers...)
	c.mu.Unlock()
	for _, h := range hs {
		runHandler(h.fn)
	}
	return nil
}

func runHandler(fn func()) {
	defer func() { _ = recover() }() // a panicking handler must not break the others
	fn()
}

// Nack signals failure with err (nil means ErrNacked). A second signal is
// ErrAlreadySignalled.
func (c *Context) Nack(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.signalled {
		return ErrAlreadySignalled.With(nil, "dispatch: nack: already signalled")
	}
	if err == nil {
		err = ErrNacked
	}
	c.signalled, c.nackErr = true, err
	return nil
}

// IsSignalled reports whether Ack or Nack was called.
func (c *Context) IsSignalled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.signalled
}

// OnAck registers fn to run inside Ack (never on Nack), after the handlers
// registered before it. A panicking handler is recovered. The returned func
// unsubscribes.
func (c *Context) OnAck(fn func()) (unsubscribe func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextHandler++
	h := &ackHandler{id: c.nextHandler, fn: fn}
	c.handlers = append(c.handlers, h)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.handlers {
			if x == h {
				c.handlers = append(c.handlers[:i:i], c.handlers[i+1:]...)
				return
			}
		}
	}
}

// WaitFor suspends the caller until the turn's caller resolves the gate, or
// it times out (E_TURN_GATE_TIMEOUT) or ctx ends (E_TURN_GATE_ABORTED).
func (c *Context) WaitFor(ctx context.Context, req GateRequest) (any, error) {
	if c.waitFor == nil {
		return nil, errGateNotSupported.With(nil, "dispatch: wait for: no gate configured")
	}
	return c.waitFor(ctx, req)
}

// guardRepeat is the loop guard's verdict for a proposed call (see
// driver.GuardRepeat); a block is recorded.
func (c *Context) guardRepeat(tool, checksum string, pending int) turnstate.Verdict {
	limit := c.loop.identicalCallLimit(tool)
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.verdict(limit, checksum, pending)
	if v.Decision == turnstate.BlockedRepeat {
		if _, ok := c.blocked[checksum]; !ok {
			c.callMaps()
			c.blocked[checksum] = c.iteration
		}
	}
	return v
}

func (c *Context) verdict(limit int, checksum string, pending int) turnstate.Verdict {
	earlier := c.ownCounts[checksum]
	v := turnstate.Verdict{Count: earlier + pending, Earlier: earlier, Limit: limit}
	if limit == 0 || v.Count < limit {
		return v
	}
	if it, ok := c.blocked[checksum]; ok && it < c.iteration {
		v.Decision = turnstate.Finalize
		return v
	}
	v.Decision = turnstate.BlockedRepeat
	v.InResponse = earlier < limit
	return v
}

var _ forge.Scope = (*Context)(nil)
