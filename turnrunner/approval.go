package turnrunner

import (
	"context"
	"encoding/json"
	"fmt"

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

// approveAll asks for the approval of every call in asks together: all
// their gates open (GateOpen each) before the runner waits for any answer.
// A granted call runs; a denied, timed-out or rejected one is settled as
// not executed. With Options.SuspendOnApproval, on a turn of a
// conversation, the gates are not waited for: the calls are stored as
// awaiting approval, the gates persisted with the turn, and the turn ends
// suspended after this response's other calls ran (see Runner.Resume).
func (r *Runner) approveAll(ctx context.Context, tc *TurnContext, dc *dispatch.Context, em *emitter, asks []*callRecord) {
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
		og, err := r.openGate(em, dc.TurnID(), req)
		if err != nil { // the request above is always valid
			rec.run = false
			rec.fail(r.now(), notExecuted("its approval could not be asked: "+err.Error()))
			r.settle(ctx, dc, em, rec)
			continue
		}
		opened[i] = og
	}
	denied := func(v any) bool { return v != true }
	for i, rec := range asks {
		og := opened[i]
		if og == nil {
			continue
		}
		if suspend {
			r.suspendCall(ctx, tc, dc, em, og, rec)
			continue
		}
		res, _, err := og.wait(ctx, denied)
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
}

func deniedText(tool string) string {
	return ErrToolCallNotExecuted.With(nil, "Tool call denied: the user did not approve %s, so it was not executed. Do not retry it unless the user asks.", tool).Error()
}

// suspendCall leaves rec's gate open in the store instead of waiting: the
// call is stored incomplete, awaiting approval, and the turn will end
// suspended.
func (r *Runner) suspendCall(ctx context.Context, tc *TurnContext, dc *dispatch.Context, em *emitter, og *openedGate, rec *callRecord) {
	g := og.g
	payload, err := json.Marshal(rec.approval())
	if err != nil {
		payload = []byte("{}")
	}
	g.settle(GateSuspended, nil, nil)
	og.wait(ctx, nil) // returns at once: emits GateClosed (suspended) and unregisters
	rec.run = false
	rec.fail(r.now(), awaitingText)
	rec.complete = false
	r.settle(ctx, dc, em, rec)
	tc.mu.Lock()
	tc.suspended = append(tc.suspended, dispatch.OpenGate{ID: g.id, Reason: g.reason, ToolCallID: rec.id,
		Payload: payload, CreatedAt: g.createdAt})
	tc.mu.Unlock()
}

// isSuspended reports whether the turn stopped to wait on approvals.
func (tc *TurnContext) isSuspended() bool {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return len(tc.suspended) > 0
}
