package turnrunner

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/forgestate"
	"github.com/ebbforge/adk/llm"
)

// iterationLimitReason is the finalReason of the iteration cap.
const iterationLimitReason = "iteration limit reached"

// repeatFinalReason is the finalReason of a blocked call repeated again.
const repeatFinalReason = "a repeated tool call was blocked and then repeated again"

// finalNote is the user-side note of the loop guard's last iteration.
const finalNote = "[loop guard] Tool use has ended for this turn (%s). Do not call any tools. " +
	"Answer the user now with the information you already have, and say briefly what is still missing, if anything."

// dispatch runs the iteration loop until the dispatch is signalled or ctx ends.
//
// A panic on this (the turn's) goroutine — a user Store, Options.Now, a
// system prompt's renderer — fails the dispatch like any error: it is
// recovered, the dispatch is nacked with it and, once DispatchStart was
// sent, DispatchEnd reports it. Worker goroutines recover their own.
func (r *Runner) dispatch(ctx context.Context, tc *TurnContext, em *emitter) (status TurnStatus, derr error) {
	var (
		dc      *dispatch.Context
		started bool // DispatchStart was sent
		start   time.Time
		loop    = &dispatchLoop{r: r, tc: tc, em: em}
	)
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		status, derr = TurnFailed, panicError("dispatch", p)
		id, it := "", 0
		if dc != nil {
			id, it = dc.DispatchID(), dc.Iteration()
			if !dc.IsSignalled() {
				_ = dc.Nack(derr)
			}
		}
		r.emitError(em, id, it, derr)
		if started {
			end := r.safeNow()
			em.send(DispatchEnd{TurnID: tc.id, DispatchID: id, Status: status, Err: derr, Iterations: loop.iterations,
				StartedAt: start, EndedAt: end, Duration: end.Sub(start)})
		}
	}()
	tc.mu.Lock()
	var err error
	dc, err = drive.New(tc.id, tc.timeline, tc.resumed(), tc.tools, tc.stash, r.opts.Store, r.opts.Loop,
		func(ctx context.Context, req dispatch.GateRequest) (any, error) {
			return r.waitFor(ctx, em, tc.id, req)
		},
		func(level zerolog.Level, kind, message string, payload any) {
			r.log(em, Log{DispatchID: dc.DispatchID(), Iteration: dc.Iteration(), Level: level, Kind: kind,
				Message: message, Payload: payload, EmittedAt: r.now()})
		})
	if err == nil {
		dc.SetSystemPrompt(tc.systemPrompt)
		tc.dc, loop.dc = dc, dc
	}
	tc.mu.Unlock()
	if err != nil {
		r.emitError(em, "", 0, err)
		return TurnFailed, err
	}

	start = r.now()
	started = true
	em.send(DispatchStart{TurnID: tc.id, DispatchID: dc.DispatchID(), StartedAt: start})
	reported := false
	var failed error // the error that ended the dispatch, even after an Ack
	fail := func(it int, err error) {
		reported, failed = true, err
		r.emitError(em, dc.DispatchID(), it, err)
		if !dc.IsSignalled() {
			_ = dc.Nack(err)
		}
	}

	if tc.resume != nil {
		if finalizeNext(tc.resume.own, func(tool string) int { return drive.IdenticalCallLimit(dc, tool) }) {
			loop.finalReason = repeatFinalReason
		}
		if err := r.resumeCalls(ctx, tc, dc, em); err != nil {
			fail(dc.Iteration(), err)
		}
	}

	// The dispatch input chain wraps the model call, the tool calls and
	// the dispatch output chain: they run in loop.core, with the ctx its
	// innermost next was given, which records the iteration's outcome.
	core := loop.core
	var itStart time.Time // an iteration starts when the one before it ended
	for ctx.Err() == nil && !dc.IsSignalled() && !tc.isSuspended() {
		it := dc.Iteration()
		if itStart.IsZero() {
			itStart = r.now()
		}
		em.send(IterationStart{DispatchID: dc.DispatchID(), Iteration: it, StartedAt: itStart})

		loop.final = loop.finalReason != ""
		if limit := drive.IterationLimit(dc); limit > 0 && it >= limit-1 && !loop.final {
			loop.finalReason = iterationLimitReason
			loop.final = true
			em.send(LoopGuard{DispatchID: dc.DispatchID(), Iteration: it, Decision: LoopIterationLimit,
				Count: it + 1, Limit: limit,
				Message: errIterationLimit.With(nil, "iteration limit reached: this is the final iteration, no tools are offered").Error()})
		}

		if err := r.forgeArtifactTools(tc, dc); err != nil {
			em.send(Warning{DispatchID: dc.DispatchID(), Iteration: it, Kind: "artifact-tools", Message: err.Error(), Err: err, EmittedAt: r.now()})
		}

		loop.reset()
		reached, err := runOnion(ctx, dc, r.opts.DispatchInput, core)
		if ctx.Err() != nil || loop.aborted != nil {
			// A middleware's ctx ending (a timeout it set) aborts the
			// dispatch as the turn's would.
			break
		}
		if loop.stepErr != nil {
			fail(it, loop.stepErr)
			break
		}
		if loop.outErr != nil {
			fail(it, loop.outErr)
			break
		}
		if err != nil {
			fail(it, ErrDispatchPipeline.With(err, "turnrunner: dispatch input pipeline failed"))
			break
		}
		if dc.IsSignalled() {
			break
		}
		if !reached {
			fail(it, shortCircuited("dispatch-input"))
			break
		}
		if loop.stepped && !loop.outReached {
			fail(it, shortCircuited("dispatch-output"))
			break
		}
		if loop.res.done && !dc.IsSignalled() {
			_ = dc.Ack()
		}
		itEnd := r.now()
		em.send(IterationEnd{DispatchID: dc.DispatchID(), Iteration: it, StartedAt: itStart, EndedAt: itEnd, Duration: itEnd.Sub(itStart)})
		itStart = itEnd
		if loop.res.finalize && loop.finalReason == "" {
			loop.finalReason = repeatFinalReason
		}
		drive.Advance(dc)
	}

	tc.stream = streamState{} // drop the last response's buffers
	status, derr = TurnAborted, nil
	acked, nackErr := drive.Outcome(dc)
	switch {
	case failed != nil:
		// A tool may have acked before the error (a failed store, a
		// pipeline error) ended the dispatch: the error decides.
		status, derr = TurnFailed, failed
	case tc.isSuspended():
		status = TurnSuspended
	case acked:
		status = TurnCompleted
	case nackErr != nil:
		status, derr = TurnFailed, nackErr
		if !reported { // an explicit Nack from middleware is an error too
			r.emitError(em, dc.DispatchID(), dc.Iteration(), derr)
		}
	default:
		derr = context.Cause(ctx)
		if derr == nil {
			derr = loop.aborted
		}
	}
	end := r.now()
	em.send(DispatchEnd{TurnID: tc.id, DispatchID: dc.DispatchID(), Status: status, Err: derr, Iterations: loop.iterations,
		StartedAt: start, EndedAt: end, Duration: end.Sub(start)})
	return status, derr
}

// dispatchLoop is what the core of an iteration needs, and what it
// records: one per dispatch, its outcome reset at every iteration.
type dispatchLoop struct {
	r  *Runner
	tc *TurnContext
	dc *dispatch.Context
	em *emitter

	final       bool   // the iteration offers no tools
	finalReason string // set when the next iteration must be the final one
	iterations  int    // the steps taken
	aborted     error  // the cause when a middleware's ctx ended the dispatch

	// The iteration's outcome.
	res        stepResult
	stepErr    error
	stepped    bool
	outReached bool
	outErr     error
}

// reset clears the outcome of the iteration before.
func (l *dispatchLoop) reset() {
	l.res, l.stepErr, l.stepped, l.outReached, l.outErr = stepResult{}, nil, false, false, nil
}

// core is the innermost next of the dispatch input chain: the model call,
// the tool calls and the dispatch output chain.
func (l *dispatchLoop) core(ctx context.Context) error {
	if ctx.Err() != nil {
		l.aborted = context.Cause(ctx)
		return nil
	}
	if l.dc.IsSignalled() {
		return nil
	}
	l.stepped = true
	l.iterations++
	l.res, l.stepErr = l.r.safeStep(ctx, l.tc, l.dc, l.em, l.final, l.finalReason)
	if ctx.Err() != nil {
		l.aborted = context.Cause(ctx)
		return l.stepErr
	}
	if l.stepErr != nil || l.dc.IsSignalled() {
		return l.stepErr
	}
	l.outReached, l.outErr = runOutput(ctx, l.dc, l.r.opts.DispatchOutput, ErrDispatchPipeline, "dispatch")
	return l.outErr
}

// stepResult tells the loop what one model call led to.
type stepResult struct {
	done     bool // the model answered without (runnable) tool calls
	finalize bool // the loop guard asks for a final no-tools iteration
}

// safeStep is step with a panic (a user Store's, Options.Now's) turned into
// the step's error, so that the iteration fails as for any other error and
// no middleware around the step is blamed for it.
func (r *Runner) safeStep(ctx context.Context, tc *TurnContext, dc *dispatch.Context, em *emitter, final bool, finalReason string) (res stepResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = stepResult{}, panicError("iteration", p)
		}
	}()
	return r.step(ctx, tc, dc, em, final, finalReason)
}

// panicError is the error of a recovered panic; an error value is wrapped,
// so errors.Is and errors.As still match it.
func panicError(what string, p any) error {
	if err, ok := p.(error); ok {
		return fmt.Errorf("turnrunner: %s panicked: %w", what, err)
	}
	return fmt.Errorf("turnrunner: %s panicked: %v", what, p)
}

// retrier makes the runner's model calls under its retry policy. It is
// built once for the model calls of a dispatch rather than for each: a
// retry's warning names the dispatch and iteration of the call being made,
// set before it.
type retrier struct {
	r          *Runner
	em         *emitter
	policy     llm.RetryPolicy // Options.Retry, with onRetry as OnRetry
	dispatchID string
	it         int
}

func newRetrier(r *Runner, em *emitter) *retrier {
	m := &retrier{r: r, em: em, policy: r.opts.Retry}
	m.policy.OnRetry = m.onRetry
	return m
}

func (m *retrier) onRetry(attempt int, delay time.Duration, err error) {
	m.em.send(Warning{DispatchID: m.dispatchID, Iteration: m.it, Kind: "model-retry",
		Message: fmt.Sprintf("model call attempt %d failed; retrying in %s", attempt, delay.Round(time.Millisecond)),
		Err:     err, EmittedAt: m.r.now()})
	if m.r.opts.Retry.OnRetry != nil {
		m.r.opts.Retry.OnRetry(attempt, delay, err)
	}
}

// step makes one model call, streams its parts as events, stores the
// response and runs its tool calls.
func (r *Runner) step(ctx context.Context, tc *TurnContext, dc *dispatch.Context, em *emitter, final bool, finalReason string) (stepResult, error) {
	it := dc.Iteration()
	req, err := r.buildRequest(tc, dc, final, finalReason)
	if err != nil {
		return stepResult{}, ErrModel.With(err, "turnrunner: build request")
	}
	st := &tc.stream // nothing of a step outlives it, so the next reuses it
	*st = streamState{id: newEntryID()}
	callStart := r.now()
	modelErr := r.consume(ctx, tc, req, em, st, it)
	if modelErr == nil && ctx.Err() != nil {
		modelErr = context.Cause(ctx)
	}
	stats := func() {
		em.send(GenerationStats{DispatchID: dc.DispatchID(), Iteration: it, ResponseID: st.id, Usage: st.usage,
			HasUsage: st.hasUsage, StopReason: st.stop, Duration: st.responseEnd(r).Sub(callStart)})
	}
	if modelErr != nil && ctx.Err() == nil {
		// A response that failed part way is not an answer: what the
		// caller saw of it is closed with the error and nothing of it is
		// stored, so the timeline (and a retry) starts clean.
		r.abandon(em, st, modelErr)
		stats()
		return stepResult{}, ErrModel.With(modelErr, "turnrunner: model call failed")
	}
	// Store what arrived, also on cancellation: nothing is lost.
	pctx := context.WithoutCancel(ctx)
	if err := r.finish(em, st); err != nil {
		return stepResult{}, err
	}
	if err := st.flush(pctx, dc); err != nil {
		return stepResult{}, err
	}
	stats()
	res, err := r.settleResponse(ctx, tc, dc, em, st, final, finalReason, modelErr != nil)
	if ferr := st.flush(pctx, dc); err == nil {
		err = ferr
	}
	return res, err
}

// settleResponse runs or refuses the tool calls of a response that ended
// (cancelled, when cancelled is true) and tells the loop what follows.
func (r *Runner) settleResponse(ctx context.Context, tc *TurnContext, dc *dispatch.Context, em *emitter, st *streamState, final bool, finalReason string, cancelled bool) (stepResult, error) {
	it := dc.Iteration()
	if cancelled {
		r.settleUnrun(ctx, dc, em, st, func(c *callState) string { return cancelledText(c.name) })
		return stepResult{}, nil
	}
	switch {
	case len(st.calls) == 0:
		if st.stop == llm.StopMaxTokens {
			em.send(Warning{DispatchID: dc.DispatchID(), Iteration: it, Kind: "truncated",
				Message: "the answer was cut off at the token limit", Err: ErrTruncatedResponse, EmittedAt: r.now()})
		}
		return stepResult{done: true}, nil
	case final:
		r.settleUnrun(ctx, dc, em, st, func(*callState) string {
			if finalReason == iterationLimitReason {
				return errIterationLimit.With(nil, "Tool call not executed: the iteration limit is reached and tool use has ended for this turn. Answer with the information you have.").Error()
			}
			return notExecuted("tool use has ended for this turn. Answer with the information you have.")
		})
		em.send(Warning{DispatchID: dc.DispatchID(), Iteration: it, Kind: "tool-calls-on-final-iteration",
			Message: "the model called tools on the final iteration; they were not executed", EmittedAt: r.now()})
		return stepResult{done: true}, nil
	case st.overflow:
		limit := r.opts.MaxToolCallArgBytes
		r.settleUnrun(ctx, dc, em, st, func(c *callState) string {
			if c.overflow {
				return ErrToolCallArgsTooLarge.With(nil, "Tool call not executed: its arguments exceed the limit of %d bytes per response. Make the arguments smaller (for example, split the work into several calls).", limit).Error()
			}
			return ErrToolCallArgsTooLarge.With(nil, "Tool call not executed: the response's tool-call arguments exceeded the limit of %d bytes, so the response was cut off.", limit).Error()
		})
		em.send(Warning{DispatchID: dc.DispatchID(), Iteration: it, Kind: "tool-call-args-too-large",
			Message: "the response's tool-call arguments exceeded MaxToolCallArgBytes; its tool calls were not executed", Err: ErrToolCallArgsTooLarge, EmittedAt: r.now()})
		return stepResult{}, nil
	case st.stop == llm.StopMaxTokens:
		r.settleUnrun(ctx, dc, em, st, func(*callState) string {
			return notExecuted("your response was cut off at the token limit (max_tokens), so its arguments may be incomplete. Retry with a shorter response.")
		})
		em.send(Warning{DispatchID: dc.DispatchID(), Iteration: it, Kind: "truncated",
			Message: "the response was cut off at the token limit; its tool calls were not executed", Err: ErrTruncatedResponse, EmittedAt: r.now()})
		return stepResult{}, nil
	}
	finalize, err := r.runCalls(ctx, tc, dc, em, st)
	if err != nil {
		return stepResult{}, err
	}
	return stepResult{finalize: finalize}, nil
}

// consume reads one model response into st and returns the model's error.
// It stops at the first part seen after ctx ends (so the iterator's yield
// returns false even if the model ignores ctx), once the response's tool-call
// arguments exceed Options.MaxToolCallArgBytes, and turns a panicking
// iterator into an error.
func (r *Runner) consume(ctx context.Context, tc *TurnContext, req *llm.Request, em *emitter, st *streamState, it int) (modelErr error) {
	defer func() {
		if p := recover(); p != nil {
			modelErr = fmt.Errorf("turnrunner: model stream panicked: %v", p)
		}
	}()
	m := tc.model
	if m == nil || m.em != em {
		m = newRetrier(r, em)
		tc.model = m
	}
	m.dispatchID, m.it = req.DispatchID, it
	// As llm.WithRetry does: a response that failed before its first part
	// is tried again; once a part was read, its failure is final.
	return m.policy.Retry(ctx, func() (started bool, err error) {
		read := st.parts
		err = r.read(ctx, r.model.Stream(ctx, req), em, st)
		return st.parts > read, err
	})
}

// read applies a response's parts to st and streams them as events; see
// consume. Kept apart from consume's recover, so that each stays cheap.
func (r *Runner) read(ctx context.Context, parts iter.Seq2[llm.Part, error], em *emitter, st *streamState) error {
	for p, err := range parts {
		if err == nil {
			st.parts++
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err != nil {
			return err
		}
		switch p.Kind {
		case llm.PartText:
			if p.Text == "" {
				continue
			}
			if st.msgID == "" {
				st.msgID = newEntryID()
				st.msgCreated = r.now()
				st.msgBlock = st.addBlock(&block{})
			}
			st.msg.WriteString(p.Text)
			em.sendNow(MessageDelta{ID: st.msgID, Delta: p.Text, Full: st.msg.String(), CreatedAt: st.msgCreated})
		case llm.PartThought:
			t := st.thought(p.Index)
			if t.id == "" {
				t.id = newEntryID()
				t.created = r.now()
			}
			if p.Payload != nil {
				t.payload = append(t.payload[:0], p.Payload...)
			}
			if p.ReplayCompatibility != "" {
				t.compat = p.ReplayCompatibility
			}
			if p.Text != "" {
				t.text.WriteString(p.Text)
				em.sendNow(ThoughtDelta{ID: t.id, Delta: p.Text, Full: t.text.String(), CreatedAt: t.created})
			}
		case llm.PartToolCall:
			c := st.call(p.Index)
			// A call's id and name count against the cap too (the first
			// of each that arrives, the one kept): a 4 MiB name is as
			// costly as 4 MiB of arguments.
			if c.id == "" {
				c.id = p.ID
				st.argBytes += len(p.ID)
			}
			if c.name == "" {
				c.name = p.Name
				st.argBytes += len(p.Name)
			}
			if p.Payload != nil {
				c.payload = append(c.payload[:0], p.Payload...)
			}
			if p.ReplayCompatibility != "" {
				c.compat = p.ReplayCompatibility
			}
			st.argBytes += len(p.Text)
			if st.argBytes > r.opts.MaxToolCallArgBytes {
				// An endless or runaway argument stream: stop reading; the
				// response's calls are settled with an error result.
				c.overflow = true
				st.overflow = true
				return nil
			}
			c.args.WriteString(p.Text)
		case llm.PartUsage:
			st.usage, st.hasUsage = p.Usage, true
		case llm.PartStop:
			st.stop = p.StopReason
		}
	}
	return nil
}

func cancelledText(name string) string {
	return ErrToolCallCancelled.With(nil, "Tool call cancelled: the turn was aborted before %s finished.", name).Error()
}

// notExecuted is the model-facing text of a call the runner refused to run.
func notExecuted(why string) string {
	return ErrToolCallNotExecuted.With(nil, "Tool call not executed: %s", why).Error()
}

// buildRequest renders the system prompt and snapshots the timeline and the
// visible tools.
func (r *Runner) buildRequest(tc *TurnContext, dc *dispatch.Context, final bool, finalReason string) (*llm.Request, error) {
	tools := tc.offered.of(dc.Tools())
	req := &llm.Request{TurnID: dc.TurnID(), DispatchID: dc.DispatchID(), Iteration: dc.Iteration(),
		Timeline: drive.Snapshot(dc), Final: final, Options: r.opts.ModelOptions,
		Instructions: slices.Clone(r.opts.Instructions), TrustedTools: tools.trusted}
	if sp := dc.SystemPrompt(); sp != nil {
		s, err := sp.Render(dc)
		if err != nil {
			return nil, err
		}
		req.System = s
	}
	if final {
		note, err := dispatch.NewMessage(dispatch.RawMessage{ID: "loop-guard-" + dc.DispatchID(), Role: dispatch.RoleUser,
			Content: forge.NewTokenizable(strings.Replace(finalNote, "%s", finalReason, 1))})
		if err != nil {
			return nil, err
		}
		req.Timeline = append(req.Timeline, dispatch.Entry{Message: note})
		return req, nil
	}
	req.Tools = tools.defs
	return req, nil
}

// offeredTools are the tool definitions of a request and the names of the
// trusted tools, as of a registry's change count: requests share them
// while the registry does not change (the slices are full, so an append
// copies them).
type offeredTools struct {
	reg     *forge.Registry
	changes uint64
	defs    []forge.Definition
	trusted []string
}

// of returns the offered tools of reg, computing them again only when reg
// changed.
func (o *offeredTools) of(reg *forge.Registry) *offeredTools {
	changes := forgestate.Changes(reg)
	if o.reg == reg && o.changes == changes {
		return o
	}
	*o = offeredTools{reg: reg, changes: changes, defs: slices.Clip(reg.Definitions())}
	for _, t := range reg.All() {
		if t.Options().Trusted {
			o.trusted = append(o.trusted, t.Name())
		}
	}
	o.trusted = slices.Clip(o.trusted)
	return o
}
