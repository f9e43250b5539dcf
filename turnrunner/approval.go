package turnrunner

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/ebbforge/adk/dispatch"
)

// ApprovalPolicy decides whether a tool call waits for a human's approval
// before it runs, by tool and arguments (say, payments above an amount).
// It sees only calls whose tool exists and whose arguments are a JSON
// object; the runner then asks only for those whose arguments validate
// against the tool's schema. A panicking policy asks for approval.
type ApprovalPolicy func(ctx context.Context, call ToolApproval) bool

// awaitingText is the result a call holds while its turn is suspended on
// its approval (stored incomplete).
const awaitingText = "Tool call awaiting approval: the turn is suspended until a human answers."

// queuedText is the result a runnable call holds in the store while the
// response's approvals are awaited: it has not started, so a resumed turn
// runs it.
const queuedText = "(queued: waiting for the response's approvals)"

// needsApproval applies Options.RequireApproval and Options.Approval.
func (r *Runner) needsApproval(ctx context.Context, rec *callRecord) (ask bool) {
	if r.approval[rec.name] {
		return true
	}
	if r.opts.Approval == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ask = true
		}
	}()
	return r.opts.Approval(ctx, rec.approval())
}

func (rec *callRecord) approval() ToolApproval {
	return ToolApproval{ToolCallID: rec.id, Tool: rec.name, Args: rec.raw, Checksum: rec.checksum}
}

// approveAll asks for the approval of every call in asks together and
// waits for the answers together: every gate opens (GateOpen each) before
// the runner waits for any, the answers may come in any order, and each
// gate closes (GateClosed) as it is answered. Once all are answered, a
// granted call runs with the response's other calls; a denied, timed-out
// or rejected one is settled as not executed.
//
// On a turn of a conversation the response's calls and the open gates are
// stored before the first GateOpen, so a process that dies while it waits
// leaves a turn Runner.Resume continues with the human's answers; the
// stored gates are cleared once answered. With Options.SuspendOnApproval
// the gates are not waited for: the calls stay stored as awaiting
// approval and the turn ends suspended after this response's other calls
// ran.
func (r *Runner) approveAll(ctx context.Context, tc *TurnContext, dc *dispatch.Context, em *emitter, respID string, recs, asks []*callRecord) error {
	suspend := r.opts.SuspendOnApproval && tc.conv != ""
	opened := make([]*openedGate, len(asks))
	for i, rec := range asks {
		req := dispatch.GateRequest{
			// Random, not derived from the call id the model chose: the id
			// answers the approval from outside (Runner.Gate, Resume) and
			// must not be guessable.
			ID:      "approval-" + uuid.NewString(),
			Reason:  "tool " + rec.name + " requires approval",
			Payload: rec.approval(),
			Validate: func(v any) error {
				if _, ok := v.(bool); !ok {
					return fmt.Errorf("resolution must be a bool, got %T", v)
				}
				return nil
			},
		}
		if !suspend {
			req.Timeout = r.opts.ApprovalTimeout
		}
		og, err := r.newGate(em, dc.TurnID(), req)
		if err != nil { // the request above is always valid
			rec.run = false
			rec.fail(r.now(), notExecuted("its approval could not be asked: "+err.Error()))
			r.settle(ctx, dc, em, rec)
			continue
		}
		opened[i] = og
	}
	if err := r.storeGates(ctx, tc, respID, recs, asks, opened); err != nil {
		for _, og := range opened {
			if og != nil {
				og.abort(err)
				og.unregister()
			}
		}
		return err
	}
	for _, og := range opened {
		if og != nil {
			og.open()
		}
	}
	if suspend {
		for i, rec := range asks {
			if opened[i] != nil {
				r.suspendCall(ctx, tc, dc, em, opened[i], rec)
			}
		}
		return nil
	}
	type answer struct {
		res GateResult
		err error
	}
	answers := make([]answer, len(asks))
	denied := func(v any) bool { return v != true }
	var wg sync.WaitGroup
	for i, og := range opened {
		if og == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, _, err := og.wait(ctx, denied)
			answers[i] = answer{res, err}
		}()
	}
	wg.Wait()
	if tc.conv != "" && ctx.Err() == nil {
		// Answered: the turn no longer waits on these gates.
		cs := r.opts.Store.(dispatch.ConversationStore)
		if err := cs.SetTurnState(context.WithoutCancel(ctx), tc.id, dispatch.TurnRunning, nil); err != nil {
			em.send(Warning{Kind: "turn-state", Message: err.Error(), Err: err, EmittedAt: r.now()})
		}
	}
	for i, rec := range asks {
		if opened[i] == nil {
			continue
		}
		res, err := answers[i].res, answers[i].err
		switch {
		case ctx.Err() != nil:
			rec.run = false
			rec.cancel(r.now())
		case res == GateResolved:
			continue // runs
		case res == GateTimeout:
			rec.run = false
			rec.fail(r.now(), notExecuted("approval for "+rec.name+" timed out."))
		case err != nil && res != GateDenied: // rejected with a reason, or aborted
			rec.run = false
			rec.fail(r.now(), ErrToolCallNotExecuted.With(nil, "Tool call denied: %s was not approved (%s), so it was not executed.", rec.name, err.Error()).Error())
		default:
			rec.run = false
			rec.fail(r.now(), deniedText(rec.name))
		}
		r.settle(ctx, dc, em, rec)
	}
	return nil
}

// storeGates writes, on a turn of a conversation, the response's calls
// (those awaiting approval as such, the other runnable ones as queued) and
// the turn's open gates, so that the wait survives the process.
func (r *Runner) storeGates(ctx context.Context, tc *TurnContext, respID string, recs, asks []*callRecord, opened []*openedGate) error {
	if tc.conv == "" {
		return nil
	}
	waiting := make(map[*callRecord]bool, len(asks))
	var gates []dispatch.OpenGate
	for i, og := range opened {
		if og == nil {
			continue
		}
		waiting[asks[i]] = true
		gates = append(gates, storedGate(og.g, asks[i]))
	}
	err := r.storePending(ctx, tc, respID, recs, func(rec *callRecord) string {
		if waiting[rec] {
			return awaitingText
		}
		return queuedText
	})
	if err != nil {
		return err
	}
	cs := r.opts.Store.(dispatch.ConversationStore)
	if err := cs.SetTurnState(context.WithoutCancel(ctx), tc.id, dispatch.TurnRunning, gates); err != nil {
		return dispatch.ErrStore.With(err, "turnrunner: store the approval gates of %q", tc.id)
	}
	return nil
}

// storedGate is the stored form of g, the approval gate of rec.
func storedGate(g *Gate, rec *callRecord) dispatch.OpenGate {
	payload, err := json.Marshal(rec.approval())
	if err != nil {
		payload = []byte("{}")
	}
	return dispatch.OpenGate{ID: g.id, Reason: g.reason, ToolCallID: rec.id, Payload: payload, CreatedAt: g.createdAt}
}

func deniedText(tool string) string {
	return ErrToolCallNotExecuted.With(nil, "Tool call denied: the user did not approve %s, so it was not executed. Do not retry it unless the user asks.", tool).Error()
}

// suspendCall leaves rec's gate open in the store instead of waiting: the
// call is stored incomplete, awaiting approval, and the turn will end
// suspended.
func (r *Runner) suspendCall(ctx context.Context, tc *TurnContext, dc *dispatch.Context, em *emitter, og *openedGate, rec *callRecord) {
	g := og.g
	g.settle(GateSuspended, nil, nil)
	og.wait(ctx, nil) // returns at once: emits GateClosed (suspended) and unregisters
	rec.run = false
	rec.fail(r.now(), awaitingText)
	rec.complete = false
	r.settle(ctx, dc, em, rec)
	tc.mu.Lock()
	tc.suspended = append(tc.suspended, storedGate(g, rec))
	tc.mu.Unlock()
}

// isSuspended reports whether the turn stopped to wait on approvals.
func (tc *TurnContext) isSuspended() bool {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return len(tc.suspended) > 0
}
