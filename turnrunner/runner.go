package turnrunner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/spooledartifact"
)

// Runner runs turns against one model with one set of tools. It is
// long-lived and safe for concurrent use: each Run is independent.
type Runner struct {
	model    llm.Model
	opts     Options
	tools    *forge.Registry
	approval map[string]bool
	cleanup  bool // delete a turn's artifacts when it ends
	// wallClock is set when Options.Now is nil (the wall clock): a time
	// forge read for its execution events then serves the runner's too.
	wallClock bool
	// running holds the spool prefixes of the turns in progress, which
	// the ArtifactTTL sweep spares.
	running runningTurns
	// gates holds the open gates of the runner's turns (see Runner.Gate).
	gates openGates
}

// runningTurns counts the turns in progress per spool prefix (two turns may
// share a TurnID). The zero value is an empty set; safe for concurrent use.
type runningTurns struct {
	mu sync.Mutex
	n  map[string]int
}

// begin records a turn with the given spool prefix as running until the
// returned func is called (calling it again does nothing).
func (rt *runningTurns) begin(prefix string) (end func()) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.n == nil {
		rt.n = map[string]int{}
	}
	rt.n[prefix]++
	return sync.OnceFunc(func() {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if rt.n[prefix]--; rt.n[prefix] <= 0 {
			delete(rt.n, prefix)
		}
	})
}

// keep reports whether id, an id of the spool store, belongs to a running
// turn. A turn's ids are its scope's prefix and the call id, and a scope's
// prefix is its escaped name (no '/') and '/', so the prefix of an id is
// everything up to its first '/'.
func (rt *runningTurns) keep(id string) bool {
	i := strings.IndexByte(id, '/')
	if i < 0 {
		return false
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.n[id[:i+1]] > 0
}

// MaxTurnIDLength is the longest Input.TurnID, in bytes, '%' and '/'
// counting three each: the turn's spooled artifacts are stored under
// "<turn id>/<tool call id>", and this leaves room within
// spooledartifact.MaxIDLength for the tool call ids providers send. A call
// id the spool store would refuse (too long, a control character) is
// spooled under a key the runner derives instead: "call-" and 16 hex digits
// of its SHA-256 (see [Runner.SpoolStore]).
const MaxTurnIDLength = 80

// scopeNameLength is the length of id as a spool scope name, which escapes
// '%' and '/' as %25 and %2F.
func scopeNameLength(id string) int {
	return len(id) + 2*(strings.Count(id, "%")+strings.Count(id, "/"))
}

// Input is one turn's input.
type Input struct {
	// TurnID identifies the turn (the Store key); "" means a generated UUID.
	// It must be valid UTF-8 without control characters and at most
	// MaxTurnIDLength bytes: it also names the turn's scope in the spool
	// store, whose ids it prefixes.
	TurnID string
	// System is the system prompt; SystemPrompt, when set, wins (it may be
	// a dynamic Tokenizable, rendered against the dispatch each iteration).
	System       string
	SystemPrompt *forge.Tokenizable
	// History is earlier conversation the model should see; it is not
	// stored again. Its tool calls count in ToolCallCount, not against the
	// loop guard, which limits what this turn executes.
	History []dispatch.Entry
	// Messages are this turn's new messages, stored before the input pipeline.
	Messages []*dispatch.Message
	// Prompt, when not empty, is a user message appended after Messages.
	Prompt string
	// Stash seeds the turn's stash (shallow copy).
	Stash map[string]any
	// ConversationID, when set, makes the turn the next of that
	// conversation in the Store, which must be a dispatch.ConversationStore:
	// the turn is recorded as started and, when it ends, how; when History
	// is nil, the conversation's earlier turns are loaded as history
	// (limited by Options.History).
	ConversationID string
}

// Store returns the runner's persistence store (Options.Store or the
// in-memory default), e.g. to Load a turn after it ended.
func (r *Runner) Store() dispatch.Store { return r.opts.Store }

// SpoolStore returns the store tool output is spooled into
// (Options.SpoolStore or the runner's own in-memory default). A turn's
// artifacts live under the prefix "<turnID>/" ('%' and '/' of the turn id
// escaped as %25 and %2F), each under its tool call's id, unless the store
// would refuse "<turnID>/<call id>" (spooledartifact.ValidateID: too long,
// a control character) or another call of the turn took that key: then
// under "call-" and 16 hex digits of the SHA-256 of the call id ("-2",
// "-3"… appended if taken). The ToolCall keeps the model's id either way;
// its artifact's ID is the key in the store. When the store is itself a
// spooledartifact.Scope, the key is the id in that scope's base store
// (Scope.BaseID, with the scope's prefixes) and the length check counts
// them too: resolve such artifacts against the base store.
func (r *Runner) SpoolStore() spooledartifact.Store { return r.opts.SpoolStore }

// Tools returns a clone of the runner's registry.
func (r *Runner) Tools() *forge.Registry { return r.tools.Clone() }

// Run validates in and starts the turn on its own goroutine. It returns the
// event channel, which Run's goroutine closes after the last event
// (TurnEnd); a bad Input is ErrInvalidTurnContext and no turn starts.
//
// The consumer must drain the channel or cancel ctx: the runner waits for
// the consumer (backpressure) and never drops an event while ctx is live.
// After ctx is cancelled, events are still delivered while the channel has
// room or the consumer is receiving, every goroutine of the turn exits
// promptly, and the channel is closed. TurnEnd is always the last event: if
// the channel is full then, the oldest undelivered event gives way to it.
func (r *Runner) Run(ctx context.Context, in Input) (<-chan Event, error) {
	tc, err := r.newTurn(in)
	if err != nil {
		return nil, err
	}
	em := newEmitter(ctx, r.opts.EventBuffer)
	tc.em = em
	go func() {
		defer em.finish(nil) // closes the channel if runTurn did not
		r.runTurn(ctx, tc, em, in)
	}()
	return em.ch, nil
}

func (r *Runner) newTurn(in Input) (*TurnContext, error) {
	var p []string
	for i, m := range in.Messages {
		if m == nil {
			p = append(p, "messages["+strconv.Itoa(i)+"]: nil message")
		}
	}
	for i, e := range in.History {
		if e.Kind() == dispatch.EntryNone {
			p = append(p, "history["+strconv.Itoa(i)+"]: must hold exactly one value")
		}
	}
	if in.TurnID != "" {
		if spooledartifact.ValidateID(in.TurnID) != nil {
			p = append(p, "turnID: must be valid UTF-8 without control characters")
		}
		if n := scopeNameLength(in.TurnID); n > MaxTurnIDLength {
			p = append(p, fmt.Sprintf("turnID: %d bytes (with '%%' and '/' counted as the spool store escapes them), more than %d", n, MaxTurnIDLength))
		}
	}
	if in.ConversationID != "" {
		if _, ok := r.opts.Store.(dispatch.ConversationStore); !ok {
			p = append(p, "conversationID: the store is not a dispatch.ConversationStore")
		}
	}
	if len(p) > 0 {
		return nil, ErrInvalidTurnContext.With(nil, "turnrunner: invalid input: %s", strings.Join(p, "; "))
	}
	id := in.TurnID
	if id == "" {
		id = uuid.NewString()
	}
	sp := in.SystemPrompt
	if sp == nil && in.System != "" {
		sp = forge.NewTokenizable(in.System)
	}
	return &TurnContext{
		r: r, id: id, systemPrompt: sp, conv: in.ConversationID,
		timeline: append([]dispatch.Entry(nil), in.History...),
		stash:    newStash(in.Stash),
		tools:    r.tools.Clone(),
		spool:    spooledartifact.NewScope(r.opts.SpoolStore, id, &spooledartifact.ScopeOptions{Keep: !r.cleanup}),
	}, nil
}

// TurnContext is the state of one turn, seen by turn middleware.
// Safe for concurrent use.
type TurnContext struct {
	r     *Runner
	em    *emitter
	id    string
	stash *dispatch.Stash
	tools *forge.Registry
	spool *spooledartifact.Scope

	// forger keeps the artifact tools up to date; only the dispatch
	// goroutine uses it.
	forger   *spooledartifact.Forger
	artCalls []*forge.ToolCall // the Forger's input, a buffer reused every iteration
	// artRegistered are the artifact tools in the dispatch's registry.
	artRegistered artifactRegistration
	// offered are the tools the dispatch's requests offer.
	offered offeredTools
	// model makes the dispatch's model calls under the retry policy, built
	// once per dispatch; only the dispatch goroutine uses it.
	model *retrier
	// stream is the response of the dispatch's current step, reset at the
	// start of each and when the dispatch ends; only the dispatch goroutine
	// uses it.
	stream streamState

	conv   string       // the conversation the turn belongs to, if any
	resume *resumeState // what Runner.Resume continues, nil for a new turn

	mu           sync.Mutex
	suspended    []dispatch.OpenGate // the approvals the turn stopped for
	spoolKeys    map[string]bool     // the keys the turn's calls spool under
	systemPrompt *forge.Tokenizable
	timeline     []dispatch.Entry
	dc           *dispatch.Context
}

// ID is the turn id.
func (tc *TurnContext) ID() string { return tc.id }

// spoolKey reserves the key the output of the call with id is spooled under
// in the turn's scope: id itself when the base store accepts the fully
// qualified id (tc.spool.BaseID: "<turn id>/<id>", under the prefixes of a
// SpoolStore that is itself a Scope; see spooledartifact.ValidateID) and no
// other call of the turn took it; otherwise "call-" and 16 hex digits of
// the SHA-256 of id, with "-2", "-3"… appended if that is taken. The model
// chooses call ids (too long, control characters): its call must not fail
// to store after the handler ran.
func (tc *TurnContext) spoolKey(id string) string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.spoolKeys == nil {
		tc.spoolKeys = make(map[string]bool)
	}
	key := id
	// The qualified id is valid when the key is and the two fit together:
	// the turn's prefix is valid (newTurn validates the turn id), and a
	// SpoolStore that is a Scope with an invalid name fails every write.
	if tc.spoolKeys[key] || len(tc.spool.BaseID(""))+len(key) > spooledartifact.MaxIDLength ||
		spooledartifact.ValidateID(key) != nil {
		sum := sha256.Sum256([]byte(id))
		base := "call-" + hex.EncodeToString(sum[:8])
		key = base
		for n := 2; tc.spoolKeys[key]; n++ {
			key = base + "-" + strconv.Itoa(n)
		}
	}
	tc.spoolKeys[key] = true
	return key
}

// SystemPrompt is the system prompt (may be nil).
func (tc *TurnContext) SystemPrompt() *forge.Tokenizable {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.systemPrompt
}

// SetSystemPrompt replaces the system prompt (input middleware); once the
// dispatch started, it replaces the dispatch's.
func (tc *TurnContext) SetSystemPrompt(t *forge.Tokenizable) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.systemPrompt = t
	if tc.dc != nil {
		tc.dc.SetSystemPrompt(t)
	}
}

// Stash is the turn's key/value bag, shared with the dispatch.
func (tc *TurnContext) Stash() *dispatch.Stash { return tc.stash }

// Tools is the turn's registry (a clone of the runner's); input middleware
// may add, remove or hide tools for this turn.
func (tc *TurnContext) Tools() *forge.Registry { return tc.tools }

// Timeline returns the turn's entries so far (after the dispatch, the
// dispatch's final timeline).
func (tc *TurnContext) Timeline() []dispatch.Entry {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.dc != nil {
		return tc.dc.Timeline()
	}
	return append([]dispatch.Entry(nil), tc.timeline...)
}

// Hydrate adds history entries the model should see without storing them
// (e.g. loaded from your own database by input middleware). Once the
// dispatch started, they go to the dispatch's timeline, so Timeline and
// Answer see them.
func (tc *TurnContext) Hydrate(entries ...dispatch.Entry) error {
	for i, e := range entries {
		if e.Kind() == dispatch.EntryNone {
			return ErrInvalidTurnContext.With(nil, "turnrunner: hydrate: entries[%d] must hold exactly one value", i)
		}
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.dc != nil {
		return drive.Hydrate(tc.dc, entries...)
	}
	tc.timeline = append(tc.timeline, entries...)
	return nil
}

// StoreMessage persists m and appends it to the timeline (once the
// dispatch started, through the dispatch context, which replaces a message
// with the same id in place).
func (tc *TurnContext) StoreMessage(ctx context.Context, m *dispatch.Message) error {
	if m == nil {
		return dispatch.ErrStore.With(nil, "turnrunner: store message: nil")
	}
	if dc := tc.Dispatch(); dc != nil {
		return dc.Save(ctx, dispatch.Entry{Message: m})
	}
	if err := tc.r.opts.Store.Save(ctx, tc.id, dispatch.Entry{Message: m}); err != nil {
		return dispatch.ErrStore.With(err, "turnrunner: store message %q", m.ID())
	}
	return tc.Hydrate(dispatch.Entry{Message: m})
}

// Dispatch is the turn's dispatch context, nil before the dispatch starts.
func (tc *TurnContext) Dispatch() *dispatch.Context {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.dc
}

// Answer is the text of the last assistant message of the turn.
func (tc *TurnContext) Answer() string {
	tl := tc.Timeline()
	for i := len(tl) - 1; i >= 0; i-- {
		if m := tl[i].Message; m != nil && m.Role() == dispatch.RoleAssistant {
			return m.Text()
		}
	}
	return ""
}

// Log sends a note to the turn's event stream as a [Log] event (with the
// dispatch id and iteration once the dispatch has started) and to the
// runner's logger. Safe for concurrent use; a no-op after the turn ended.
func (tc *TurnContext) Log(level zerolog.Level, kind, message string, payload any) {
	if dc := tc.Dispatch(); dc != nil {
		dc.Log(level, kind, message, payload)
		return
	}
	tc.r.log(tc.em, Log{Level: level, Kind: kind, Message: message, Payload: payload, EmittedAt: tc.r.now()})
}

// WaitFor suspends the turn on a gate until the caller resolves it (see Gate).
func (tc *TurnContext) WaitFor(ctx context.Context, req dispatch.GateRequest) (any, error) {
	return tc.r.waitFor(ctx, tc.em, tc.id, req)
}

// lingerFor bounds how long an event the runner sent waits in the queue
// before it is handed to the channel.
const lingerFor = time.Millisecond

// emitter sends events with backpressure; every delivery also watches ctx.
//
// The runner's events are queued by send and reach the channel in bursts:
// the first event queued arms a timer that hands the queue over lingerFor
// later, a queue outgrowing the channel's buffer is handed over at once, and
// so is everything before streamed text (sendNow) and at the end of the
// turn. Whatever the runner then does
// (waits on the model, a tool or middleware, or runs on), a consumer has
// every event within lingerFor, and is woken once per burst rather than once
// per event: on a busy turn a goroutine wake-up costs more than the runner's
// own work on an event.
//
// The runner's own sends all happen before finish; sendExternal is for code
// that may hold on to a context after its tool (a stray Log) and for gates:
// it delivers at once, after what is queued, and becomes a no-op once the
// turn is finishing, so TurnEnd is always the last event.
type emitter struct {
	ch  chan Event
	ctx context.Context

	stopOnce sync.Once
	stop     chan struct{} // closed when finishing starts: external sends give up

	// deliverer is held (a value in it) by the one goroutine handing the
	// queue to the channel, so events arrive in the order they were
	// queued. It is a channel, not a mutex: waiting for it, like waiting
	// on the event channel, is a wait on a channel.
	deliverer chan struct{}
	batch     []Event // the deliverer's buffer, swapped with pending

	// unsent counts the events queued or being handed over: streamed text
	// sent while it is 0 has nothing to wait behind (see sendNow).
	unsent atomic.Int64

	qmu     sync.Mutex // guards what follows; never held while waiting
	pending []Event
	timer   *time.Timer // hands pending over; armed while it is not empty
	armed   bool
	// lingering counts the timer's callbacks armed and not yet over, so
	// finish can wait for one that fired as it stopped the timer.
	lingering sync.WaitGroup
	shut      bool // ch is closed (set by finish, as deliverer)
}

func newEmitter(ctx context.Context, buffer int) *emitter {
	// A turn sends a dozen events at the least: the queue starts with
	// room for them, without regrowing 1, 2, 4, 8 on the way.
	return &emitter{ch: make(chan Event, buffer), ctx: ctx, stop: make(chan struct{}), deliverer: make(chan struct{}, 1),
		pending: make([]Event, 0, min(buffer, 16))}
}

// finish ends the stream atomically: it stops external senders (releasing
// any blocked one) and waits until none is sending, then delivers what is
// queued and last (the TurnEnd) and closes the channel. Only the turn's
// goroutine calls it.
func (e *emitter) finish(last Event) {
	e.stopOnce.Do(func() { close(e.stop) })
	e.deliverer <- struct{}{}
	e.qmu.Lock()
	if e.armed && e.timer.Stop() {
		e.armed = false
		e.lingering.Done() // its callback will not run
	}
	if last != nil {
		e.pending = append(e.pending, last)
		e.unsent.Add(1)
	}
	e.qmu.Unlock()
	if !e.deliverQueued(nil) && last != nil {
		// ctx is done and the channel is full: the oldest undelivered
		// event gives way, so a consumer still reading always learns how
		// the turn ended. Nobody else sends now, so the room is ours.
		select {
		case <-e.ch:
		default:
		}
		select {
		case e.ch <- last:
		default:
		}
	}
	e.qmu.Lock()
	if !e.shut {
		e.shut = true
		close(e.ch)
	}
	e.qmu.Unlock()
	<-e.deliverer
	// A callback of a timer that fired as it was stopped finds the channel
	// shut; waiting for it leaves nothing of the turn running.
	e.lingering.Wait()
}

// sendExternal delivers ev at once, after the queued events; it gives up
// when the turn starts finishing.
func (e *emitter) sendExternal(ev Event) bool {
	select {
	case e.deliverer <- struct{}{}:
	case <-e.stop:
		return false
	}
	defer func() { <-e.deliverer }()
	select {
	case <-e.stop: // finishing started while this waited
		return false
	default:
	}
	return e.deliverQueued(e.stop) && e.deliver(ev, e.stop)
}

// send queues ev: it reaches the channel within lingerFor, at once when
// the queue outgrows the channel's buffer (so that the queue stays bounded
// and a slow consumer holds the runner back).
func (e *emitter) send(ev Event) {
	e.qmu.Lock()
	e.pending = append(e.pending, ev)
	e.unsent.Add(1)
	full := len(e.pending) > cap(e.ch)
	if !full && !e.armed {
		e.armed = true
		e.lingering.Add(1)
		if e.timer == nil {
			e.timer = time.AfterFunc(lingerFor, e.lingered)
		} else {
			e.timer.Reset(lingerFor)
		}
	}
	e.qmu.Unlock()
	if full {
		e.flush()
	}
}

// sendNow delivers ev at once, after what is queued: streamed text, which a
// consumer shows as it comes, and which comes fastest when the consumer
// reads one delta while the runner produces the next. With nothing queued
// or being handed over, it goes straight onto the channel: the path of
// every delta of a streamed answer.
func (e *emitter) sendNow(ev Event) {
	if e.unsent.Load() == 0 {
		e.deliver(ev, nil)
		return
	}
	e.qmu.Lock()
	e.pending = append(e.pending, ev)
	e.unsent.Add(1)
	e.qmu.Unlock()
	e.flush()
}

// lingered hands the queue over when the timer fires.
func (e *emitter) lingered() {
	defer e.lingering.Done()
	e.qmu.Lock()
	e.armed = false
	e.qmu.Unlock()
	e.flush()
}

// flush becomes the deliverer and hands the queue to the channel; see
// deliverQueued.
func (e *emitter) flush() {
	e.deliverer <- struct{}{}
	defer func() { <-e.deliverer }()
	e.deliverQueued(nil)
}

// deliverQueued hands the queue to the channel in order, including what is
// queued meanwhile, preferring delivery over cancellation (a nil stop) so
// a consumer that keeps reading sees the final events of an aborted turn.
// It reports false when an event could not be delivered: when ctx is done
// and the channel full, the rest is dropped (the consumer has stopped
// reading); when stop closed, the rest stays queued for finish. Only the
// deliverer calls it.
func (e *emitter) deliverQueued(stop <-chan struct{}) bool {
	for {
		e.qmu.Lock()
		if e.shut || len(e.pending) == 0 {
			e.qmu.Unlock()
			return true
		}
		batch := e.pending
		e.pending = e.batch[:0]
		e.qmu.Unlock()
		for i, ev := range batch {
			if e.deliver(ev, stop) {
				e.unsent.Add(-1)
				continue
			}
			if stop != nil && e.ctx.Err() == nil {
				e.qmu.Lock()
				e.pending = slices.Concat(batch[i:], e.pending)
				e.qmu.Unlock()
			} else {
				e.unsent.Add(-int64(len(batch) - i))
			}
			clear(batch)
			e.batch = batch[:0]
			return false
		}
		clear(batch)
		e.batch = batch[:0]
	}
}

// deliver sends ev on the channel if there is room at once; otherwise it
// waits until there is, ctx is done or stop is closed (a nil stop never is).
func (e *emitter) deliver(ev Event, stop <-chan struct{}) bool {
	select {
	case e.ch <- ev:
		return true
	default:
	}
	select {
	case e.ch <- ev:
		return true
	case <-e.ctx.Done():
		return false
	case <-stop:
		return false
	}
}

func (r *Runner) now() time.Time { return r.opts.Now() }

// safeNow is now for the paths that report a failure or end the turn: a
// panicking Options.Now gives the wall clock there (the panic itself fails
// the turn wherever now is called).
func (r *Runner) safeNow() time.Time {
	t, _ := r.clockAt(time.Time{})
	return t
}

// clockAt is safeNow, or t, a time forge just read from the wall clock,
// when that is the runner's clock too: reading it once serves both. It
// reports whether the time is the runner's clock's (false: Options.Now
// panicked and the wall clock stood in).
func (r *Runner) clockAt(t time.Time) (at time.Time, ok bool) {
	if r.wallClock && !t.IsZero() {
		return t, true
	}
	defer func() {
		if recover() != nil {
			at, ok = time.Now(), false
		}
	}()
	return r.now(), true
}

// runTurn is the turn lifecycle: start, store input, input pipeline,
// dispatch, output pipeline, end. A panic on the turn's goroutine (a user
// Store, Options.Now) never escapes: the turn fails with it.
func (r *Runner) runTurn(ctx context.Context, tc *TurnContext, em *emitter, in Input) {
	// Running before it writes its first artifact, so no other turn's
	// sweep takes them; ended before TurnEnd (also on a panic: deferred
	// after the recovery, so it runs first), so a turn the consumer starts
	// after this one sweeps them once they are old.
	ended := r.running.begin(tc.spool.Prefix())
	var start time.Time
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		err := panicError("turn", p)
		r.emitError(em, "", 0, err)
		if r.cleanup {
			// The panic may have come from the store's cleanup itself:
			// a second one must not escape either.
			func() {
				defer func() { _ = recover() }()
				_, _ = tc.spool.Cleanup(context.WithoutCancel(ctx))
			}()
		}
		end := r.safeNow()
		if start.IsZero() {
			start = end
		}
		em.finish(TurnEnd{TurnID: tc.id, Status: TurnFailed, Err: err, StartedAt: start, EndedAt: end, Duration: end.Sub(start)})
	}()
	defer ended()
	start = r.now()
	em.send(TurnStart{TurnID: tc.id, StartedAt: start})
	r.sweepArtifacts(ctx, em)
	status, err := r.turn(ctx, tc, em, in)
	if r.cleanup {
		if _, cerr := tc.spool.Cleanup(context.WithoutCancel(ctx)); cerr != nil {
			em.send(Warning{Kind: "artifact-cleanup", Message: cerr.Error(), Err: cerr, EmittedAt: r.now()})
		}
	}
	ended()
	r.endConversationTurn(ctx, tc, em, status)
	end := r.now()
	r.opts.Logger.Debug().Str("turn", tc.id).Str("status", string(status)).Err(err).Msg("turn end")
	em.finish(TurnEnd{TurnID: tc.id, Status: status, Err: err, StartedAt: start, EndedAt: end, Duration: end.Sub(start)})
}

// sweepArtifacts applies Options.ArtifactTTL, sparing the artifacts of the
// runner's turns in progress. The stores
// stamp entries with the wall clock, so the cut-off uses time.Now, not
// Options.Now.
func (r *Runner) sweepArtifacts(ctx context.Context, em *emitter) {
	if r.opts.ArtifactTTL <= 0 {
		return
	}
	ctx, olderThan := context.WithoutCancel(ctx), time.Now().Add(-r.opts.ArtifactTTL)
	sw, ok := r.opts.SpoolStore.(spooledartifact.Sweeper)
	if !ok {
		return
	}
	n, err := sw.Sweep(ctx, olderThan, r.running.keep)
	if err != nil {
		em.send(Warning{Kind: "artifact-sweep", Message: err.Error(), Err: err, EmittedAt: r.now()})
		return
	}
	if n > 0 {
		r.opts.Logger.Debug().Int("swept", n).Msg("artifact sweep")
	}
}

func (r *Runner) turn(ctx context.Context, tc *TurnContext, em *emitter, in Input) (TurnStatus, error) {
	if err := r.beginConversationTurn(ctx, tc, in); err != nil {
		r.emitError(em, "", 0, err)
		return TurnFailed, err
	}
	msgs := in.Messages
	if in.Prompt != "" {
		m, err := dispatch.NewMessage(dispatch.RawMessage{ID: uuid.NewString(), Role: dispatch.RoleUser,
			Content: forge.NewTokenizable(in.Prompt), CreatedAt: r.now()})
		if err != nil {
			return TurnFailed, err
		}
		msgs = append(append([]*dispatch.Message(nil), msgs...), m)
	}
	for _, m := range msgs {
		if err := tc.StoreMessage(context.WithoutCancel(ctx), m); err != nil {
			r.emitError(em, "", 0, err)
			return TurnFailed, err
		}
	}
	if tc.conv == "" && len(msgs) > 0 {
		r.setLooseTurnState(ctx, tc, em, dispatch.TurnRunning)
	}

	// The turn input chain wraps the dispatch and the turn output chain: they
	// run in its core, with the ctx its innermost next was given, so code
	// after next runs after them. The outcome is taken from what the core
	// recorded, whatever a middleware does with the error next returns.
	var (
		dispatched bool
		status     TurnStatus
		derr       error
		outReached bool
		outErr     error
	)
	core := func(ctx context.Context) (err error) {
		if ctx.Err() != nil {
			return nil
		}
		dispatched = true
		defer func() {
			// dispatch recovers its own panics; this is the last resort
			// (the status stays unset: a failure, below).
			if p := recover(); p != nil {
				derr = panicError("dispatch", p)
				err = derr
			}
		}()
		status, derr = r.dispatch(ctx, tc, em)
		if status != TurnCompleted || ctx.Err() != nil {
			return derr
		}
		outReached, outErr = runOutput(ctx, tc, r.opts.TurnOutput, ErrOutputPipeline, "turn")
		return outErr
	}
	reached, err := runOnion(ctx, tc, r.opts.TurnInput, core)
	if ctx.Err() != nil {
		return TurnAborted, context.Cause(ctx)
	}
	if dispatched {
		switch {
		case status == TurnSuspended:
			return TurnSuspended, nil
		case status == "":
			// The dispatch started but never reported how it ended (it
			// panicked, or a middleware abandoned it): a failure with the
			// error that ended it, not a short-circuit.
			if derr == nil {
				derr = err
			}
			if derr == nil {
				derr = ErrDispatchPipeline.With(nil, "turnrunner: the dispatch ended without a status")
			}
			r.emitError(em, "", 0, derr)
			return TurnFailed, derr
		case status == TurnAborted:
			return TurnAborted, derr
		case status == TurnFailed:
			return TurnFailed, derr
		case outErr != nil:
			r.emitError(em, "", 0, outErr)
			return TurnFailed, outErr
		case !outReached:
			err = shortCircuited("turn-output")
			r.emitError(em, "", 0, err)
			return TurnFailed, err
		}
	}
	if err != nil {
		err = ErrInputPipeline.With(err, "turnrunner: turn input pipeline failed")
		r.emitError(em, "", 0, err)
		return TurnFailed, err
	}
	if !reached {
		err = shortCircuited("turn-input")
		r.emitError(em, "", 0, err)
		return TurnFailed, err
	}
	if !dispatched {
		// The ctx handed to next was already done.
		return TurnAborted, context.Canceled
	}
	return TurnCompleted, nil
}

// log mirrors a note to the runner's logger and emits it.
func (r *Runner) log(em *emitter, e Log) {
	// A disabled logger gives a nil *zerolog.Event, on which every call is a no-op.
	ev := r.opts.Logger.WithLevel(e.Level).Str("kind", e.Kind)
	if e.DispatchID != "" {
		ev = ev.Str("dispatch", e.DispatchID).Int("iteration", e.Iteration)
	}
	if e.Payload != nil {
		ev = ev.Interface("payload", e.Payload)
	}
	ev.Msg(e.Message)
	em.sendExternal(e)
}

func (r *Runner) emitError(em *emitter, dispatchID string, it int, err error) {
	r.opts.Logger.Debug().Str("dispatch", dispatchID).Int("iteration", it).Err(err).Msg("error")
	em.send(Error{DispatchID: dispatchID, Iteration: it, Err: err, EmittedAt: r.safeNow()})
}

// newStash is a stash holding a shallow copy of m.
func newStash(m map[string]any) *dispatch.Stash {
	s := &dispatch.Stash{}
	for k, v := range m {
		s.Set(k, v)
	}
	return s
}
