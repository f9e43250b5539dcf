package turnrunner

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ebbforge/adk/dispatch"
)

// Gate is a suspended turn waiting for its caller: it arrives in a GateOpen
// event; call Resolve or Reject (from any goroutine). A gate settles once;
// later calls are ignored. Safe for concurrent use.
type Gate struct {
	id, turnID, reason string
	payload            any
	validate           func(any) error
	createdAt          time.Time
	done               chan struct{}

	mu      sync.Mutex
	settled bool
	result  GateResult
	value   any
	err     error
}

// ID identifies the gate.
func (g *Gate) ID() string { return g.id }

// TurnID is the turn the gate suspends.
func (g *Gate) TurnID() string { return g.turnID }

// Reason says why the turn waits.
func (g *Gate) Reason() string { return g.reason }

// Payload is what the caller needs to decide (a ToolApproval for tool
// approval gates).
func (g *Gate) Payload() any { return g.payload }

// CreatedAt is when the gate opened.
func (g *Gate) CreatedAt() time.Time { return g.createdAt }

// Resolve settles the gate with v. A value the gate's validator refuses is
// ErrInvalidGateResolution and the gate stays open. On a settled gate it
// does nothing and returns nil.
func (g *Gate) Resolve(v any) error {
	if g.Settled() {
		return nil
	}
	if g.validate != nil {
		if err := g.validate(v); err != nil {
			return ErrInvalidGateResolution.With(err, "turnrunner: gate %q: invalid resolution", g.id)
		}
	}
	g.settle(GateResolved, v, nil)
	return nil
}

// Reject settles the gate with an error (nil means ErrGateRejected); the
// waiting code receives it wrapped in ErrGateRejected.
func (g *Gate) Reject(err error) {
	g.settle(GateRejected, nil, ErrGateRejected.With(err, "turnrunner: gate %q rejected", g.id))
}

// Settled reports whether the gate has settled.
func (g *Gate) Settled() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.settled
}

func (g *Gate) settle(res GateResult, v any, err error) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.settled {
		return false
	}
	g.settled, g.result, g.value, g.err = true, res, v, err
	close(g.done)
	return true
}

// waitFor opens a gate, emits GateOpen, waits for it to settle (or time
// out, or ctx or the turn to end) and emits GateClosed. It sends as an
// external sender: a dispatch or turn context can be kept past its turn,
// and a gate opened then is aborted at once rather than sent on a closed
// channel. The turn's own context and end abort the gate too, whatever ctx
// the waiting code passed.
func (r *Runner) waitFor(ctx context.Context, em *emitter, turnID string, req dispatch.GateRequest) (any, error) {
	og, err := r.openGate(em, turnID, req)
	if err != nil {
		return nil, err
	}
	_, v, err := og.wait(ctx, nil)
	return v, err
}

// openedGate is a gate whose GateOpen was sent; wait settles it.
type openedGate struct {
	r          *Runner
	em         *emitter
	g          *Gate
	timeout    time.Duration
	timer      *time.Timer // nil without a timeout
	unregister func()
}

// openGate registers a gate and emits GateOpen; its timeout runs from now.
func (r *Runner) openGate(em *emitter, turnID string, req dispatch.GateRequest) (*openedGate, error) {
	og, err := r.newGate(em, turnID, req)
	if err != nil {
		return nil, err
	}
	og.open()
	return og, nil
}

// newGate checks req and registers its gate without announcing it, so
// that several gates can be stored before any opens.
func (r *Runner) newGate(em *emitter, turnID string, req dispatch.GateRequest) (*openedGate, error) {
	if req.Payload == nil {
		return nil, ErrInvalidGate.With(nil, "turnrunner: wait for: payload is required")
	}
	if req.Timeout < 0 {
		return nil, ErrInvalidGate.With(nil, "turnrunner: wait for: timeout must be >= 0")
	}
	id := req.ID
	if id == "" {
		id = uuid.NewString()
	}
	g := &Gate{id: id, turnID: turnID, reason: req.Reason, payload: req.Payload, validate: req.Validate,
		createdAt: r.now(), done: make(chan struct{})}
	// Open gates can be found by id (Runner.Gate) until they settle; the
	// registration ends before GateClosed is sent.
	return &openedGate{r: r, em: em, g: g, timeout: req.Timeout, unregister: r.gates.add(g)}, nil
}

// open emits GateOpen and starts the gate's timeout. Several gates opened
// before any is waited for are asked together.
func (og *openedGate) open() {
	if !og.em.sendExternal(GateOpen{Gate: og.g}) {
		cause := context.Cause(og.em.ctx)
		if cause == nil {
			cause = errTurnOver
		}
		og.abort(cause)
	}
	if og.timeout > 0 {
		og.timer = time.NewTimer(og.timeout)
	}
}

func (og *openedGate) abort(cause error) {
	og.g.settle(GateAborted, nil, ErrGateAborted.With(cause, "turnrunner: gate %q aborted", og.g.id))
}

// wait waits for the gate to settle, time out, or ctx or the turn to end,
// and emits GateClosed; denied, when not nil, tells a resolution that
// denies (GateDenied) from one that grants.
func (og *openedGate) wait(ctx context.Context, denied func(any) bool) (GateResult, any, error) {
	g, em := og.g, og.em
	defer og.unregister()
	var timeout <-chan time.Time
	if og.timer != nil {
		defer og.timer.Stop()
		timeout = og.timer.C
	}
	select {
	case <-g.done:
	case <-timeout:
		g.settle(GateTimeout, nil, ErrGateTimeout.With(nil, "turnrunner: gate %q timed out after %s", g.id, og.timeout))
	case <-ctx.Done():
		og.abort(context.Cause(ctx))
	case <-em.ctx.Done():
		og.abort(context.Cause(em.ctx))
	case <-em.stop:
		// A turn that ended because it was cancelled says so, whichever
		// of the two this select saw first.
		cause := context.Cause(em.ctx)
		if cause == nil {
			cause = errTurnOver
		}
		og.abort(cause)
	}
	g.mu.Lock()
	res, v, err := g.result, g.value, g.err
	g.mu.Unlock()
	if res == GateResolved && denied != nil && denied(v) {
		res = GateDenied
	}
	og.unregister()
	em.sendExternal(GateClosed{GateID: g.id, TurnID: g.turnID, Result: res, SettledAt: og.r.safeNow()})
	return res, v, err
}

// errTurnOver is the cause of a gate aborted because its turn had ended.
var errTurnOver = errors.New("turnrunner: the turn is over")

// Gate returns the open gate id of the turn turnID, so a request that
// answers an approval (an HTTP handler, a message from a queue) can resolve
// or reject it. A gate is found only while it is open and only together
// with its own turn's id: a caller that knows a gate id but not its turn
// finds nothing. Gate ids the runner generates (tool approvals, WaitFor
// without an id) hold 122 random bits, so they cannot be guessed; check
// that the caller owns the turn before you settle its gate.
func (r *Runner) Gate(turnID, id string) (*Gate, bool) {
	return r.gates.get(turnID, id)
}

// openGates indexes the open gates of a runner's turns by turn and gate id.
// The zero value is empty; safe for concurrent use.
type openGates struct {
	mu sync.Mutex
	m  map[gateKey][]*Gate // several turns may reuse a turn id and gate id
}

type gateKey struct{ turn, id string }

// add registers g until the returned func is called (again does nothing).
func (og *openGates) add(g *Gate) (remove func()) {
	k := gateKey{g.turnID, g.id}
	og.mu.Lock()
	defer og.mu.Unlock()
	if og.m == nil {
		og.m = make(map[gateKey][]*Gate)
	}
	og.m[k] = append(og.m[k], g)
	return sync.OnceFunc(func() {
		og.mu.Lock()
		defer og.mu.Unlock()
		gs := og.m[k]
		for i, x := range gs {
			if x == g {
				gs = append(gs[:i:i], gs[i+1:]...)
				break
			}
		}
		if len(gs) == 0 {
			delete(og.m, k)
		} else {
			og.m[k] = gs
		}
	})
}

// get is the oldest open gate registered under turn and id.
func (og *openGates) get(turn, id string) (*Gate, bool) {
	og.mu.Lock()
	defer og.mu.Unlock()
	for _, g := range og.m[gateKey{turn, id}] {
		if !g.Settled() {
			return g, true
		}
	}
	return nil, false
}
