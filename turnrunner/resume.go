package turnrunner

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

// ResumeInput continues a stored turn with [Runner.Resume].
type ResumeInput struct {
	// TurnID is the turn to continue.
	TurnID string
	// Approvals answers the open approval gates of the turn (suspended,
	// or cut off while it waited for them), by gate id
	// (dispatch.TurnInfo.Gates, or the GateOpen events): true runs the
	// call, false denies it. Every open gate must be answered.
	Approvals map[string]bool
	// System and SystemPrompt are the system prompt, as for Input; the
	// store does not keep it.
	System       string
	SystemPrompt *forge.Tokenizable
	// Stash seeds the resumed turn's stash (shallow copy).
	Stash map[string]any
}

// resumeState is what a resumed turn settles before its first model call.
type resumeState struct {
	own       []dispatch.Entry             // the turn's stored entries (the resumed entries of the dispatch)
	pending   []*forge.ToolCall            // the turn's calls that never completed, in order
	gates     map[string]dispatch.OpenGate // by tool call id
	approvals map[string]bool              // by gate id
}

// Resume continues a turn stored in a dispatch.ConversationStore: one
// suspended on approvals (Options.SuspendOnApproval), or one cut off when
// its process stopped (running, perhaps while it waited for approvals, or
// interrupted); resume a running turn only once its process is gone. It
// loads the conversation's earlier turns and the turn's own timeline,
// settles the turn's unfinished calls (an approved call, or one that only
// waited for its response's approvals, runs now, with its result stored
// in place of the waiting one; a denied one gets a denial; one cut off by
// a stop is reported to the model as interrupted and not run again, since
// it may have had effects) and goes on with the model as if the turn had
// never stopped, under the same turn id: the iteration count and the loop
// guard carry over, rebuilt from the stored timeline. The events and the channel
// behave as for Run.
//
// A turn that is not stored, has ended (completed, failed, aborted) or
// leaves a gate unanswered is ErrInvalidTurnContext, and nothing starts.
func (r *Runner) Resume(ctx context.Context, in ResumeInput) (<-chan Event, error) {
	cs, ok := r.opts.Store.(dispatch.ConversationStore)
	if !ok {
		return nil, ErrInvalidTurnContext.With(nil, "turnrunner: resume: the store is not a dispatch.ConversationStore")
	}
	info, ok, err := cs.Turn(ctx, in.TurnID)
	switch {
	case err != nil:
		return nil, dispatch.ErrStore.With(err, "turnrunner: resume %q", in.TurnID)
	case !ok:
		return nil, ErrInvalidTurnContext.With(dispatch.ErrTurnNotFound, "turnrunner: resume: no stored turn %q", in.TurnID)
	}
	switch info.State {
	case dispatch.TurnSuspended, dispatch.TurnRunning, dispatch.TurnInterrupted:
	default:
		return nil, ErrInvalidTurnContext.With(nil, "turnrunner: resume: turn %q has ended (%s)", in.TurnID, info.State)
	}
	rs := &resumeState{gates: map[string]dispatch.OpenGate{}, approvals: in.Approvals}
	known := map[string]bool{}
	var missing []string
	for _, g := range info.Gates {
		rs.gates[g.ToolCallID] = g
		known[g.ID] = true
		if _, ok := in.Approvals[g.ID]; !ok {
			missing = append(missing, g.ID)
		}
	}
	for id := range in.Approvals {
		if !known[id] {
			missing = append(missing, id+" (not an open gate of the turn)")
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, ErrInvalidTurnContext.With(nil, "turnrunner: resume %q: approvals: %s", in.TurnID, strings.Join(missing, ", "))
	}
	history, err := dispatch.LoadHistory(ctx, cs, info.ConversationID, dispatch.HistoryOptions{
		LastTurns: r.opts.History.LastTurns, MaxTokens: r.opts.History.MaxTokens,
		Encoding: r.opts.History.Encoding, Before: in.TurnID})
	if err != nil {
		return nil, err
	}
	own, err := cs.Load(ctx, in.TurnID)
	if err != nil {
		return nil, dispatch.ErrStore.With(err, "turnrunner: resume: load %q", in.TurnID)
	}
	rs.own = own
	for _, e := range own {
		if e.ToolCall != nil && !e.ToolCall.IsComplete() {
			rs.pending = append(rs.pending, e.ToolCall)
		}
	}
	if history == nil {
		history = []dispatch.Entry{}
	}
	tc, err := r.newTurn(Input{TurnID: in.TurnID, System: in.System, SystemPrompt: in.SystemPrompt,
		History: history, Stash: in.Stash, ConversationID: info.ConversationID})
	if err != nil {
		return nil, err
	}
	tc.resume = rs
	em := newEmitter(ctx, r.opts.EventBuffer)
	tc.em = em
	go func() {
		defer em.finish(nil) // closes the channel if runTurn did not
		r.runTurn(ctx, tc, em, Input{ConversationID: info.ConversationID, History: []dispatch.Entry{}})
	}()
	return em.ch, nil
}

// resumeCalls settles a resumed turn's unfinished calls before its first
// model call: approved ones run, denied and interrupted ones get an error
// result; each replaces the stored waiting call in place.
func (r *Runner) resumeCalls(ctx context.Context, tc *TurnContext, dc *dispatch.Context, em *emitter) error {
	rs := tc.resume
	recs := make([]*callRecord, 0, len(rs.pending))
	for _, c := range rs.pending {
		rec := &callRecord{id: c.ID(), name: c.Tool(), raw: c.Args(), argsOK: true, checksum: c.Checksum(),
			created: c.CreatedAt(), inline: true}
		recs = append(recs, rec)
		g, gated := rs.gates[rec.id]
		approved := gated && rs.approvals[g.ID]
		if gated {
			res := GateDenied
			if approved {
				res = GateResolved
			}
			em.send(GateClosed{GateID: g.ID, TurnID: tc.id, Result: res, SettledAt: r.now()})
		}
		switch {
		case !gated && queued(c):
			// It was waiting for its response's approvals, never started.
			if t, ok := dc.Tools().Get(rec.name); ok {
				rec.tool, rec.run, rec.spoolID = t, true, tc.spoolKey(rec.id)
			} else {
				rec.fail(r.now(), notFoundText(rec.name, dc.Tools()))
			}
		case !gated:
			rec.fail(r.now(), ErrToolCallCancelled.With(nil, "Tool call interrupted: the turn stopped before %s finished; it was not run again, so its effect is unknown.", rec.name).Error())
		case !approved:
			rec.fail(r.now(), deniedText(rec.name))
		default:
			t, ok := dc.Tools().Get(rec.name)
			if !ok {
				rec.fail(r.now(), notFoundText(rec.name, dc.Tools()))
				break
			}
			rec.tool, rec.run, rec.spoolID = t, true, tc.spoolKey(rec.id)
		}
		if !rec.run {
			r.settle(ctx, dc, em, rec)
		}
	}
	r.executeAll(ctx, dc, em, tc.spool, recs)
	pctx := context.WithoutCancel(ctx)
	for _, rec := range recs {
		if rec.panicked != nil {
			return rec.panicked
		}
		if rec.call == nil {
			continue
		}
		if err := drive.Save(pctx, dc, dispatch.Entry{ToolCall: rec.call}, rec.run); err != nil {
			return err
		}
	}
	return nil
}

// finalizeNext reports whether the last model response among a resumed
// turn's own entries repeated a call the loop guard had blocked in an
// earlier response: the turn would have made its next iteration the final
// one, and so does the resumed turn. The walk mirrors the guard's counts
// (the resumed entries of the dispatch).
func finalizeNext(own []dispatch.Entry, identicalCallLimit func(tool string) int) bool {
	executed := map[string]int{}
	blockedIn := map[string]int{}
	responses := map[string]bool{}
	finalize := false
	for _, e := range own {
		if e.ResponseID != "" && !responses[e.ResponseID] {
			responses[e.ResponseID] = true
			finalize = false
		}
		c := e.ToolCall
		if c == nil {
			continue
		}
		sum, resp := c.Checksum(), len(responses)
		limit := identicalCallLimit(c.Tool())
		switch {
		case e.Executed:
			executed[sum]++
		case !c.IsComplete() || limit == 0 || executed[sum] < limit:
		case blockedIn[sum] == 0:
			blockedIn[sum] = resp
		case blockedIn[sum] < resp:
			finalize = true
		}
	}
	return finalize
}

// queued reports whether c is stored as waiting for its response's
// approvals (see storeGates): it never started.
func queued(c *forge.ToolCall) bool {
	t := c.Results().Text()
	return t != nil && t.String() == queuedText
}

// beginConversationTurn records a turn of a conversation as started and,
// for a new turn without explicit history, loads the conversation's earlier
// turns as its history (after StartTurn, which marks a turn left running
// as interrupted, so its unfinished calls come back settled).
func (r *Runner) beginConversationTurn(ctx context.Context, tc *TurnContext, in Input) error {
	if tc.conv == "" {
		return nil
	}
	cs := r.opts.Store.(dispatch.ConversationStore) // checked by newTurn
	sctx := context.WithoutCancel(ctx)
	if err := cs.StartTurn(sctx, tc.conv, tc.id); err != nil {
		return dispatch.ErrStore.With(err, "turnrunner: start turn %q of %q", tc.id, tc.conv)
	}
	if tc.resume != nil || in.History != nil {
		return nil
	}
	opts := r.opts.History
	opts.Before = tc.id
	hist, err := dispatch.LoadHistory(sctx, cs, tc.conv, opts)
	if err != nil {
		return err
	}
	tc.mu.Lock()
	tc.timeline = append(hist, tc.timeline...)
	tc.mu.Unlock()
	return nil
}

// endConversationTurn records how a turn of a conversation ended, with the
// gates of a suspended one; a failure is a Warning (the turn's outcome
// stands).
func (r *Runner) endConversationTurn(ctx context.Context, tc *TurnContext, em *emitter, status TurnStatus) {
	if tc.conv == "" {
		r.setLooseTurnState(ctx, tc, em, dispatch.TurnState(status))
		return
	}
	state := dispatch.TurnState(status)
	tc.mu.Lock()
	gates := tc.suspended
	tc.mu.Unlock()
	if status != TurnSuspended {
		gates = nil
	}
	cs := r.opts.Store.(dispatch.ConversationStore)
	if err := cs.SetTurnState(context.WithoutCancel(ctx), tc.id, state, gates); err != nil && !errors.Is(err, dispatch.ErrTurnNotFound) {
		em.send(Warning{Kind: "turn-state", Message: err.Error(), Err: err, EmittedAt: r.now()})
	}
}

// setLooseTurnState records the state of a turn outside any conversation
// in a store that keeps turn states: running once its input is stored, and
// how it ended. A store that bounds the turns it keeps can then spare the
// running ones. A store without a record of the turn (one that records
// states of conversation turns only) is left as it is; another failure is
// a Warning.
func (r *Runner) setLooseTurnState(ctx context.Context, tc *TurnContext, em *emitter, state dispatch.TurnState) {
	cs, ok := r.opts.Store.(dispatch.ConversationStore)
	if !ok {
		return
	}
	if err := cs.SetTurnState(context.WithoutCancel(ctx), tc.id, state, nil); err != nil && !errors.Is(err, dispatch.ErrTurnNotFound) {
		em.send(Warning{Kind: "turn-state", Message: err.Error(), Err: err, EmittedAt: r.now()})
	}
}

// runningText is the result a call holds in the store while it runs.
const runningText = "(running)"

// storePending writes the response's calls to the store before any runs,
// in call order, with the response's id, on a turn of a conversation: a
// process that stops while a tool runs (or while approvals are awaited)
// leaves the call stored incomplete, so Resume and the next turn know the
// model asked for it. A runnable call holds placeholder(call) as its
// result; settled calls are written as they are. The dispatch stores every
// call again once settled, in place.
func (r *Runner) storePending(ctx context.Context, tc *TurnContext, respID string, recs []*callRecord, placeholder func(*callRecord) string) error {
	if tc.conv == "" {
		return nil
	}
	pctx := context.WithoutCancel(ctx)
	for _, rec := range recs {
		c := rec.call
		if rec.run {
			args := rec.raw
			if !rec.argsOK {
				args = []byte("{}")
			}
			var err error
			c, err = forge.NewToolCall(forge.RawToolCall{ID: rec.id, Tool: rec.name, Args: args, Checksum: rec.checksum,
				Results: forge.NewTokenizable(placeholder(rec)), CreatedAt: rec.created})
			if err != nil {
				return err
			}
		}
		if c == nil {
			continue
		}
		if err := r.opts.Store.Save(pctx, tc.id, dispatch.Entry{ToolCall: c, ResponseID: respID}); err != nil {
			return dispatch.ErrStore.With(err, "turnrunner: store tool call %q", rec.id)
		}
	}
	return nil
}

// resumed is the turn's own stored entries when it resumes, else nil.
func (tc *TurnContext) resumed() []dispatch.Entry {
	if tc.resume == nil {
		return nil
	}
	return tc.resume.own
}
