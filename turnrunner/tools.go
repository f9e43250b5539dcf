package turnrunner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/internal/turnstate"
	"github.com/ebbforge/adk/spooledartifact"
)

// ToolApproval is the payload of the gate a tool listed in
// Options.RequireApproval opens before each call. Resolve the gate with
// true to run the call, false to deny it; Reject denies it with a reason.
// A stored gate (dispatch.OpenGate.Payload) holds it as JSON under the
// names below, in the camelCase of the timeline's JSON forms; decoding is
// case-insensitive, so payloads written with the Go field names decode too.
type ToolApproval struct {
	ToolCallID string          `json:"toolCallId"`
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args"`
	Checksum   string          `json:"checksum"`
}

// callRecord is one tool call of a response, from announce to storage.
type callRecord struct {
	id, name string
	raw      json.RawMessage // the argument text ("{}" when empty)
	argsOK   bool            // raw is a JSON object
	checksum string
	created  time.Time
	tool     *forge.Tool
	run      bool // execute the handler
	// idProblem and nameProblem say why the model's id or name could not
	// be used as sent (id and name then hold usable forms); the call is
	// refused with that text.
	idProblem, nameProblem string
	spoolID                string // the key its output is spooled under (see TurnContext.spoolKey)
	payload                json.RawMessage
	compat                 string

	results     forge.Results
	isError     bool
	complete    bool
	fromArt     bool
	inline      bool
	cancelled   bool
	panicked    error // execute panicked outside every narrower recover
	completedAt time.Time
	call        *forge.ToolCall
	obs         observer // forwards the execution's events (runTool)
}

// prepare turns assembled call states into records with unique, usable
// ids and names, normalised arguments and checksums. A call whose id or
// name cannot be stored as the model sent it is recorded under a usable
// form (see usableID, usableName) and refused with a result saying why.
//
// The calls are created when their response ended (created), read once
// for all of them.
func (r *Runner) prepare(dc *dispatch.Context, calls []*callState, created time.Time) []*callRecord {
	recs := make([]*callRecord, len(calls))
	mine := make(map[string]bool, len(calls)) // this response's call ids
	seen := func(id string) bool { return mine[id] || drive.HasToolCall(dc, id) }
	for i, c := range calls {
		id, idProblem := c.id, ""
		if id == "" {
			id = "call_" + newEntryID()
		} else {
			id, idProblem = usableID(id)
		}
		if seen(id) {
			base := cutUTF8(id, forge.MaxToolCallIDBytes-len("_")-10) // room for any suffix
			for n := 2; ; n++ {
				// "_": providers restrict tool-call id characters to [A-Za-z0-9_-].
				id = base + "_" + strconv.Itoa(n)
				if !seen(id) {
					break
				}
			}
		}
		mine[id] = true
		raw := bytes.TrimSpace([]byte(c.args.String()))
		if len(raw) == 0 {
			raw = []byte("{}")
		}
		name, nameProblem := usableName(c.name)
		rec := &callRecord{id: id, name: name, raw: raw, created: created, inline: true,
			idProblem: idProblem, nameProblem: nameProblem}
		if len(c.payload) > 0 && json.Valid(c.payload) && string(c.payload) != "null" {
			// Replay data the stored call gives back to the adapter; a
			// payload that is not JSON cannot be stored and is dropped.
			rec.payload, rec.compat = c.payload, c.compat
			if rec.compat == "" {
				rec.compat = "unknown"
			}
		}
		rec.checksum, rec.argsOK = checksum(rec.name, rec.raw)
		recs[i] = rec
	}
	return recs
}

// usableID returns id, or when it cannot be stored (not valid UTF-8, over
// forge.MaxToolCallIDBytes) a usable form of it and the model-readable
// reason. Invalid bytes become U+FFFD, as a JSON encoder would have sent
// them; a long id keeps its start.
func usableID(id string) (string, string) {
	switch {
	case len(id) > forge.MaxToolCallIDBytes:
		n := len(id)
		return cutUTF8(string([]rune(id[:forge.MaxToolCallIDBytes])), forge.MaxToolCallIDBytes),
			fmt.Sprintf("its tool-call id is %d bytes, over the limit of %d, so its result was recorded under a shortened id. Call the tool again with a short id.", n, forge.MaxToolCallIDBytes)
	case !utf8.ValidString(id):
		return string([]rune(id)), "its tool-call id is not valid UTF-8 (shown with U+FFFD in place of the invalid bytes), so its result could not be recorded under it. Call the tool again."
	}
	return id, ""
}

// usableName returns name, or when it is no usable tool name (not valid
// UTF-8, over forge.MaxToolNameBytes, holding a control character) the
// name the call is stored under, its safe text cut to
// forge.MaxToolNameBytes, and the model-readable reason.
func usableName(name string) (string, string) {
	var why string
	switch {
	case len(name) > forge.MaxToolNameBytes:
		why = fmt.Sprintf("%d bytes, over the limit of %d", len(name), forge.MaxToolNameBytes)
	case !utf8.ValidString(name):
		why = "not valid UTF-8"
	case !safetext.Safe(name) || strings.ContainsAny(name, "\n\t"):
		why = "it holds control characters"
	default:
		return name, ""
	}
	stored := safetext.Prefix(name, forge.MaxToolNameBytes)
	if len(stored) > forge.MaxToolNameBytes {
		stored = strings.TrimSuffix(stored, "…")
	}
	stored = strings.NewReplacer("\n", "␊", "\t", "␉").Replace(stored)
	return stored, fmt.Sprintf("%q is not a valid tool name (%s): tool names are 1 to %d letters, digits, '_' or '-'.",
		safetext.Prefix(name, quotedPrefix), why, forge.MaxToolNameBytes)
}

// quotedPrefix is how many bytes of an untrusted value error texts quote.
const quotedPrefix = 32

// cutUTF8 returns at most n bytes of s, never splitting a rune.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// checksum is canonical.Checksum over the arguments, and whether they are
// a JSON object. Arguments that are not are summed as the raw text in a
// JSON string; a plain SHA-256 is the fallback, so a record can always be
// built. canonical accepts only valid JSON (its fuzz test holds it to
// encoding/json), so for an object its parse alone tells; it refuses valid
// JSON only past its depth limit, which json.Valid then settles.
func checksum(tool string, raw []byte) (sum string, object bool) {
	var err error
	if raw[0] == '{' {
		sum, err = canonical.ChecksumJSON(tool, raw)
		object = err == nil || json.Valid(raw)
	}
	if !object {
		sum, err = canonical.Checksum(tool, string(raw))
	}
	if err == nil && len(sum) == 64 {
		return sum, object
	}
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil)), object
}

// cancel settles rec as interrupted by the turn's cancellation: an
// incomplete error result.
func (rec *callRecord) cancel(now time.Time) {
	rec.fail(now, cancelledText(rec.name))
	rec.complete, rec.cancelled = false, true
}

func (rec *callRecord) fail(now time.Time, text string) {
	rec.results = forge.TextResults(forge.NewTokenizable(text))
	rec.isError, rec.complete, rec.inline, rec.completedAt = true, true, true, now
}

func (r *Runner) announce(em *emitter, rec *callRecord) {
	var args json.RawMessage
	if rec.argsOK {
		args = rec.raw
	}
	em.send(ToolCallContent{ID: rec.id, Tool: rec.name, Args: args, Checksum: rec.checksum,
		CreatedAt: rec.created, UpdatedAt: rec.created})
}

// settle completes rec. complete failing (or panicking) does not lose the
// call: the error is emitted and the call is recorded as an error result
// without the result hooks, so it is still emitted and stored.
func (r *Runner) settle(ctx context.Context, dc *dispatch.Context, em *emitter, rec *callRecord) {
	err := r.safeComplete(ctx, em, rec, r.opts.ResultHooks)
	if err == nil {
		return
	}
	r.emitError(em, dc.DispatchID(), dc.Iteration(), err)
	complete := rec.complete
	rec.fail(r.now(), "Tool result could not be recorded: "+modelText(err))
	rec.complete = complete
	if err := r.safeComplete(ctx, em, rec, nil); err != nil {
		r.emitError(em, dc.DispatchID(), dc.Iteration(), err)
		rec.call = nil
	}
}

func (r *Runner) safeComplete(ctx context.Context, em *emitter, rec *callRecord, hooks []ResultHook) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("turnrunner: complete tool call %s: panicked: %v", rec.id, p)
		}
	}()
	return r.complete(ctx, em, rec, hooks)
}

// complete builds the stored record, runs hooks on it and emits the
// completing event.
func (r *Runner) complete(ctx context.Context, em *emitter, rec *callRecord, hooks []ResultHook) error {
	args := rec.raw
	if !rec.argsOK {
		args = json.RawMessage("{}")
	}
	if res := rec.results; res.Text() == nil && len(res.Artifacts()) == 0 && len(res.Media()) == 0 {
		rec.results = forge.TextResults(forge.NewTokenizable("(no output)"))
	}
	completedAt := rec.completedAt
	updated := completedAt
	if !rec.complete {
		completedAt = time.Time{}
		updated = r.now()
	}
	if updated.Before(rec.created) {
		updated = rec.created
	}
	if rec.complete && completedAt.Before(rec.created) {
		completedAt = rec.created
	}
	inline := rec.inline
	name := rec.name
	if name == "" {
		name = "(unnamed)"
	}
	call, err := forge.NewToolCall(forge.RawToolCall{ID: rec.id, Tool: name, Args: args, Checksum: rec.checksum,
		Results: rec.results, IsComplete: rec.complete, IsError: rec.isError, Inline: &inline,
		FromArtifactTool: rec.fromArt, CreatedAt: rec.created, UpdatedAt: updated, CompletedAt: completedAt,
		Payload: rec.payload, ReplayCompatibility: rec.compat})
	if err != nil {
		return err
	}
	for _, h := range hooks {
		// A finished result is kept whatever happens to the turn.
		nc, err := safeHook(context.WithoutCancel(ctx), h, call)
		if err != nil {
			r.opts.Logger.Debug().Str("call", rec.id).Err(err).Msg("result hook failed")
			raw := call.Raw()
			raw.Results = forge.TextResults(forge.NewTokenizable("Tool result could not be processed: " + modelText(err)))
			raw.IsError = true
			if nc, err = forge.NewToolCall(raw); err != nil {
				return err
			}
		}
		if nc != nil {
			call = nc
		}
	}
	if len(hooks) > 0 {
		// A hook may have replaced the call; otherwise the call holds
		// rec's own results.
		rec.results, rec.isError = call.Results(), call.IsError()
	}
	rec.call = call
	var evArgs json.RawMessage
	if rec.argsOK {
		evArgs = rec.raw
	}
	em.send(ToolCallContent{ID: rec.id, Tool: rec.name, Args: evArgs, Checksum: rec.checksum, Results: rec.results,
		IsError: rec.isError, IsComplete: rec.complete, Cancelled: rec.cancelled, Call: call, CreatedAt: rec.created, UpdatedAt: updated,
		CompletedAt: completedAt})
	return nil
}

// safeHook runs h, turning a panic into an error: hooks run on worker
// goroutines, where an unrecovered panic would end the process.
func safeHook(ctx context.Context, h ResultHook, call *forge.ToolCall) (nc *forge.ToolCall, err error) {
	defer func() {
		if p := recover(); p != nil {
			nc, err = nil, fmt.Errorf("result hook panicked: %v", p)
		}
	}()
	return h(ctx, call)
}

// settleUnrun announces, completes and stores the calls of st that will not
// run, each with the error text text(call). Cancelled calls are stored
// incomplete.
func (r *Runner) settleUnrun(ctx context.Context, dc *dispatch.Context, em *emitter, st *streamState, text func(c *callState) string) {
	calls := st.calls
	recs := r.prepare(dc, calls, st.responseEnd(r))
	cancelled := ctx.Err() != nil
	pctx := context.WithoutCancel(ctx)
	for i, rec := range recs {
		r.announce(em, rec)
		rec.fail(r.now(), text(calls[i]))
		if cancelled {
			rec.complete, rec.cancelled = false, true
		}
		r.settle(ctx, dc, em, rec)
		if err := st.settled(pctx, dc, calls[i], rec.call, false); err != nil {
			r.emitError(em, dc.DispatchID(), dc.Iteration(), err)
		}
	}
}

// runCalls announces every call of st, settles the ones that cannot run
// (bad arguments, unknown tool, loop guard, denied approval), runs the rest
// in parallel under the bound, and stores all of them in call order.
func (r *Runner) runCalls(ctx context.Context, tc *TurnContext, dc *dispatch.Context, em *emitter, st *streamState) (finalize bool, err error) {
	recs := r.prepare(dc, st.calls, st.responseEnd(r))
	it := dc.Iteration()
	pending := make(map[string]int, len(recs))
	inResponse := make(map[string]int, len(recs))
	for _, rec := range recs {
		inResponse[rec.checksum]++
	}
	var asks []*callRecord // calls waiting on approval, asked together below
	for _, rec := range recs {
		r.announce(em, rec)
		n := pending[rec.checksum] // identical calls this response already runs
		switch {
		case rec.nameProblem != "":
			rec.fail(r.now(), badNameText(rec.nameProblem, dc.Tools()))
		case rec.idProblem != "":
			rec.fail(r.now(), notExecuted(rec.idProblem))
		case !rec.argsOK:
			rec.fail(r.now(), badArgsText(rec.raw))
		default:
			t, ok := dc.Tools().Get(rec.name)
			if !ok {
				rec.fail(r.now(), notFoundText(rec.name, dc.Tools()))
				break
			}
			rec.tool = t
			v := drive.GuardRepeat(dc, rec.name, rec.checksum, n)
			if v.Decision != turnstate.Allow {
				text := r.repeatText(ctx, dc, rec, v, inResponse[rec.checksum])
				decision := LoopBlockedRepeat
				if v.Decision == turnstate.Finalize {
					decision = LoopFinalize
				}
				em.send(LoopGuard{DispatchID: dc.DispatchID(), Iteration: it, Decision: decision, Tool: rec.name,
					ToolCallID: rec.id, Checksum: rec.checksum, Count: v.Count, Limit: v.Limit, Message: text})
				rec.fail(r.now(), text)
				finalize = finalize || v.Decision == turnstate.Finalize
				break
			}
			if r.needsApproval(ctx, rec) {
				// Only a call that could run is put to a human.
				if _, err := t.Validate(rec.raw); err != nil {
					rec.fail(r.now(), toolErrorText(err))
					break
				}
				asks = append(asks, rec)
			}
			rec.run = true
			rec.spoolID = tc.spoolKey(rec.id)
			pending[rec.checksum]++
		}
		if !rec.run {
			r.settle(ctx, dc, em, rec)
		}
	}
	if len(asks) > 0 {
		if err := r.approveAll(ctx, tc, dc, em, st.id, recs, asks); err != nil {
			return finalize, err
		}
	}
	if err := r.storePending(ctx, tc, st.id, recs, func(*callRecord) string { return runningText }); err != nil {
		return finalize, err
	}

	r.executeAll(ctx, dc, em, tc.spool, recs)
	pctx := context.WithoutCancel(ctx)
	var panicked error
	for i, rec := range recs {
		if rec.panicked != nil && panicked == nil {
			panicked = rec.panicked
		}
		// Refused calls do not count against the loop guard.
		if err := st.settled(pctx, dc, st.calls[i], rec.call, rec.run); err != nil {
			return finalize, err
		}
	}
	return finalize, panicked
}

// executeAll runs the runnable records. A single one runs inline on the
// dispatch goroutine. Otherwise min(MaxParallelTools, runnable) workers of
// one errgroup pull records by index: a worker's stack, grown once by the
// deep schema validation, is reused for its next call instead of regrown on
// a fresh goroutine per call. The group has no context of its own: one call
// failing must not cancel its siblings, only ctx does, and a record still
// waiting for a worker when ctx ends is settled as cancelled without
// running. Each record is written only by the worker that took it, so the
// results stay in call order whatever order they finish in.
func (r *Runner) executeAll(ctx context.Context, dc *dispatch.Context, em *emitter, spoolStore spooledartifact.Store, recs []*callRecord) {
	n, last := 0, -1
	for i, rec := range recs {
		if rec.run {
			n, last = n+1, i
		}
	}
	switch n {
	case 0:
		return
	case 1:
		r.execute(ctx, dc, em, spoolStore, recs[last])
		return
	}
	runnable := make([]*callRecord, 0, n)
	for _, rec := range recs {
		if rec.run {
			runnable = append(runnable, rec)
		}
	}
	var next atomic.Int64
	var g errgroup.Group
	for range min(r.opts.MaxParallelTools, len(runnable)) {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(runnable) {
					return nil
				}
				r.execute(ctx, dc, em, spoolStore, runnable[i])
			}
		})
	}
	_ = g.Wait() // execute never fails: every outcome is a settled record
}

// execute runs one runnable call and settles it. It runs on a worker
// goroutine, so nothing in it may panic unrecovered: runTool, the result
// hooks and complete recover their own panics.
func (r *Runner) execute(ctx context.Context, dc *dispatch.Context, em *emitter, spoolStore spooledartifact.Store, rec *callRecord) {
	defer func() {
		// Last resort (e.g. a panicking Options.Now): runCalls fails the
		// dispatch instead of the process crashing.
		if p := recover(); p != nil {
			rec.call, rec.panicked = nil, panicError("tool call "+rec.id, p)
		}
	}()
	if ctx.Err() != nil {
		rec.cancel(r.now())
	} else {
		r.runTool(ctx, dc, em, spoolStore, rec)
	}
	r.settle(ctx, dc, em, rec)
}

// runTool executes one call and fills rec's outcome. A panic in it becomes
// the call's error result; if Options.Now then panics as well, the panic
// goes on to execute, which fails the dispatch.
func (r *Runner) runTool(ctx context.Context, dc *dispatch.Context, em *emitter, spoolStore spooledartifact.Store, rec *callRecord) {
	defer func() {
		if p := recover(); p != nil {
			now, onClock := r.clockAt(time.Time{})
			if !onClock {
				panic(p)
			}
			rec.fail(now, fmt.Sprintf("Tool %s failed: it panicked: %v", rec.name, p))
		}
	}()
	t := rec.tool
	// One limit, and one text, for the tool's own Timeout and
	// Options.ToolTimeout; it covers reading a reader output too.
	limit := t.Options().Timeout
	if limit == 0 {
		limit = r.opts.ToolTimeout
	}
	timedOut := func() {
		rec.fail(r.now(), fmt.Sprintf("Tool %s timed out after %s and was cancelled.", rec.name, limit))
	}
	// tctx carries the limit, so that the runner knows whether it expired:
	// for a tool's own Timeout, forge's inner deadline is the same one.
	tctx := ctx
	if limit > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	obs := &rec.obs
	*obs = observer{r: r, em: em, turnID: dc.TurnID(), dispatchID: dc.DispatchID(), callID: rec.id, ctx: ctx, tctx: tctx}
	out, err := t.Execute(tctx, rec.raw, forge.Invocation{ID: rec.id, CallID: rec.checksum, Scope: dc}, obs)
	now := obs.endedAt // when the handler returned, on the runner's clock
	if now.IsZero() {
		now = r.now()
	}
	if err != nil {
		// A timeout is the limit having expired (and not the turn's ctx)
		// when the tool settled, and an error that says so. Neither alone:
		// a handler failing at once with an error of its own that wraps
		// context.DeadlineExceeded (its upstream call timed out) did not
		// hit the limit, and the limit may expire after a tool settled
		// (while its end event waited on a slow consumer).
		expired := obs.expired
		if !obs.ended { // Execute failed before running the handler
			expired = deadlineExpired(ctx, tctx)
		}
		switch {
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			rec.cancel(now)
		case expired && errors.Is(err, context.DeadlineExceeded):
			timedOut()
		default:
			rec.fail(now, toolErrorText(err))
		}
		return
	}
	if t.IsArtifactTool() {
		rec.results = forge.TextResults(forge.NewTokenizable(out.Text()))
		rec.fromArt, rec.complete, rec.completedAt = true, true, now
		return
	}
	switch out.Kind() {
	case forge.OutputText, forge.OutputBytes, forge.OutputReader:
		sctx := tctx // a reader is read under the rest of the tool's limit
		if out.Kind() != forge.OutputReader {
			// The output is already in memory: what completed is stored, even if
			// the turn is being cancelled.
			sctx = context.WithoutCancel(ctx)
		}
		key := rec.spoolID
		if key == "" {
			key = rec.id
		}
		a, err := r.spool(sctx, spoolStore, key, t.Options().ArtifactKind, out)
		if err != nil {
			switch {
			case sctx.Err() != nil && ctx.Err() != nil:
				rec.cancel(r.now())
				return
			case sctx.Err() != nil:
				timedOut()
				return
			}
			rec.fail(r.now(), "Tool "+rec.name+" succeeded but its output could not be stored: "+modelText(err))
			return
		}
		rec.results = forge.ArtifactResults(a)
	case forge.OutputMedia:
		rec.results = forge.MediaResults(out.Media()...)
	case forge.OutputArtifact:
		rec.results = forge.ArtifactResults(out.Artifact())
	default:
		rec.results = forge.TextResults(forge.NewTokenizable("(no output)"))
	}
	rec.complete, rec.completedAt = true, now
	if out.Kind() == forge.OutputReader {
		rec.completedAt = r.now() // the stream has been read to its end
	}
}

// observer forwards forge's execution events to the channel. At the end
// event, before it may wait on the consumer, it notes whether the call's
// limit had expired (tctx's deadline, ctx being the turn's).
type observer struct {
	r                  *Runner
	em                 *emitter
	turnID, dispatchID string
	callID             string // the tool call's id (forge's CallID is its checksum)
	ctx, tctx          context.Context

	started time.Time // Options.Now at the start event
	// endedAt is Options.Now at the end event; zero when there was none,
	// or Options.Now panicked and the event was stamped with the wall clock.
	endedAt        time.Time
	ended, expired bool
}

// deadlineExpired reports whether tctx's own deadline expired while ctx is
// live: the call's limit, not the turn, ended it.
func deadlineExpired(ctx, tctx context.Context) bool {
	return ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded)
}

// The events are stamped with Options.Now, as every other event is: with
// the times forge stamps its own with only when Options.Now is the wall
// clock.
func (o *observer) ToolExecutionStart(e forge.ExecutionStart) {
	o.started, _ = o.r.clockAt(e.StartedAt)
	o.em.send(ToolExecutionStart{TurnID: o.turnID, DispatchID: o.dispatchID, ToolName: e.ToolName,
		ToolCallID: o.callID, Checksum: e.CallID, Args: e.Args, StartedAt: o.started})
}

func (o *observer) ToolExecutionEnd(e forge.ExecutionEnd) {
	o.ended, o.expired = true, deadlineExpired(o.ctx, o.tctx)
	end, onClock := o.r.clockAt(e.EndedAt)
	if onClock {
		o.endedAt = end
	}
	if o.started.IsZero() {
		o.started = end
	}
	o.em.send(ToolExecutionEnd{TurnID: o.turnID, DispatchID: o.dispatchID, ToolName: e.ToolName, ToolCallID: o.callID, Checksum: e.CallID,
		StartedAt: o.started, EndedAt: end, Duration: max(end.Sub(o.started), 0), IsError: e.IsError, Err: e.Err})
}

// badArgsText is the model-readable text for arguments that are not a JSON object.
func badArgsText(raw []byte) string {
	if !json.Valid(raw) {
		return ErrInvalidToolCallArgs.With(nil, "Tool arguments are not valid JSON. Raw value: %s", preview(string(raw), 200)).Error()
	}
	kind := "a value"
	switch raw[0] {
	case '[':
		kind = "array"
	case '"':
		kind = "string"
	case 't', 'f':
		kind = "boolean"
	case 'n':
		kind = "null"
	default:
		kind = "number"
	}
	return ErrInvalidToolCallArgs.With(nil, "Tool arguments must be a JSON object; received %s", kind).Error()
}

// notFoundText lists the visible tools, as the original does.
func notFoundText(name string, reg *forge.Registry) string {
	return ErrToolNotFound.With(nil, "Tool not found: %s. %s", name, availableTools(reg)).Error()
}

// badNameText is the result of a call whose name is no usable tool name.
func badNameText(why string, reg *forge.Registry) string {
	return ErrToolNotFound.With(nil, "Tool not found: %s %s", why, availableTools(reg)).Error()
}

func availableTools(reg *forge.Registry) string {
	var names []string
	for _, t := range reg.Visible() {
		names = append(names, t.Name())
	}
	if len(names) == 0 {
		return "No tools are available this turn."
	}
	return "Available tools: " + strings.Join(names, ", ") + "."
}

// toolErrorText keeps the code, the message and the cause, so the model
// sees which field was wrong.
func toolErrorText(err error) string {
	var fe *forge.Error
	if errors.As(err, &fe) && errors.Is(err, forge.ErrInvalidToolArgs) {
		return "Invalid tool arguments: " + modelText(err)
	}
	return "Tool failed: " + modelText(err)
}

// modelText is err's text as a model may read it: the absolute path of
// every *fs.PathError and *os.LinkError in err's chain (a disk spool
// store's files, say) is cut to its base name, so server directories stay
// out of the model's context.
func modelText(err error) string {
	msg := err.Error()
	eachError(err, func(e error) {
		var paths []string
		switch e := e.(type) {
		case *fs.PathError:
			paths = []string{e.Path}
		case *os.LinkError:
			paths = []string{e.Old, e.New}
		}
		for _, p := range paths {
			if filepath.IsAbs(p) {
				msg = strings.ReplaceAll(msg, p, filepath.Base(p))
			}
		}
	})
	return msg
}

// eachError calls fn on err and every error it wraps, depth first.
func eachError(err error, fn func(error)) {
	if err == nil {
		return
	}
	fn(err)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		eachError(u.Unwrap(), fn)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			eachError(e, fn)
		}
	}
}

// repeatText tells the model it already made this call and what it got.
// repeats is how many identical calls the response holds.
func (r *Runner) repeatText(ctx context.Context, dc *dispatch.Context, rec *callRecord, v turnstate.Verdict, repeats int) string {
	if v.Decision == turnstate.Finalize {
		return errRepeatedToolCall.With(nil,
			"Repeated tool call not executed: %s was already blocked for these exact arguments. Tool use is ending; answer with the information you have.",
			rec.name).Error()
	}
	if v.InResponse {
		ran := v.Limit - v.Earlier
		return errRepeatedToolCall.With(nil,
			"Repeated tool call blocked: this response repeats the same call to %s with these exact arguments %d times; only the first %d were executed (limit %d identical calls per turn). "+
				"Use their results; repeating this exact call in a later response ends tool use for this turn.",
			rec.name, repeats, ran, v.Limit).Error()
	}
	prev := "(no earlier result found)"
	if tc, ok := drive.LastExecutedToolCall(dc, rec.checksum); ok {
		prev = previewResult(ctx, tc, 300)
	}
	return errRepeatedToolCall.With(nil,
		"Repeated tool call blocked: you already called %s with these exact arguments %d time(s) in this turn (limit %d), so it was not executed again. "+
			"Its earlier result was: %s. Use that result or try something different; repeating this exact call again ends tool use for this turn.",
		rec.name, v.Count, v.Limit, prev).Error()
}

func preview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
