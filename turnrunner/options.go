package turnrunner

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/spooledartifact"
)

// Defaults used when the corresponding Options field is zero.
const (
	// DefaultMaxParallelTools is 16: tools are mostly I/O-bound (HTTP,
	// databases, subprocesses), so a response's calls should overlap their
	// waits rather than queue behind a CPU-sized bound. Sixteen covers the
	// parallel fan-outs models produce in practice in one round; set
	// Options.MaxParallelTools lower for CPU-heavy tools.
	DefaultMaxParallelTools = 16
	// DefaultEventBuffer is 128: the 79 events of a turn of ten
	// quick tool calls fit, so such a turn wakes a waiting consumer once,
	// at its end, rather than also halfway when its queued events
	// outgrow the channel (each wake of a parked goroutine costs
	// microseconds of scheduler work).
	DefaultEventBuffer = 128
	// DefaultMaxToolCallArgBytes caps the tool-call argument bytes of one
	// model response (8 MiB).
	DefaultMaxToolCallArgBytes = 8 << 20
)

// Next continues a middleware chain.
type Next func(ctx context.Context) error

// TurnMiddleware wraps the turn: code before next runs on the way in, code
// after it on the way out. A TurnInput chain wraps the dispatch and, after a
// successful dispatch, the TurnOutput chain: they run inside its next, with
// the ctx given to next, so code after next runs after them and a value or
// deadline set on that ctx reaches the model and the tools. next returns the
// dispatch's or output chain's error; the turn's outcome does not depend on
// what the middleware does with it. A TurnOutput chain's next does nothing.
// Not calling next (and not failing) is E_PIPELINE_SHORT_CIRCUITED; calling
// it twice returns ErrNextCalledTwice. next may be called from another
// goroutine, but before the middleware returns: a next still running then is
// waited for (and runs the middlewares inside it and the rest as usual),
// and one called after the middleware returned does nothing and returns
// ErrNextCalledLate (no work of the turn outlives it). The same holds
// for a DispatchMiddleware's next.
type TurnMiddleware func(ctx context.Context, tc *TurnContext, next Next) error

// DispatchMiddleware wraps each iteration's input or output step; a fresh
// chain runs every iteration. A DispatchInput chain wraps the iteration's
// model call, its tool calls and the DispatchOutput chain, which run inside
// its next with the ctx given to next (a ctx ended there aborts the
// dispatch); a DispatchOutput chain's next does nothing. It may Ack or Nack
// the dispatch.
type DispatchMiddleware func(ctx context.Context, dc *dispatch.Context, next Next) error

// Options configure a [Runner]; nil means all defaults.
type Options struct {
	// Tools are registered in order into the runner's registry.
	Tools []*forge.Tool
	// Registry, when set, is the base registry (cloned); Tools are added to it.
	Registry *forge.Registry
	// SpoolStore keeps spooled tool output; nil means a new in-memory store
	// owned by the runner (see CleanupArtifacts for its retention).
	SpoolStore spooledartifact.Store
	// Store persists turns; nil means a new dispatch.MemoryStore.
	Store dispatch.Store
	// Loop is the loop guard (zero value: on, with defaults).
	Loop dispatch.LoopPolicy
	// MaxParallelTools bounds the tools of one response running at once;
	// 0 means DefaultMaxParallelTools (16), 1 runs them one by one.
	MaxParallelTools int
	// MaxToolCallArgBytes caps the tool-call bytes (arguments, ids and
	// names) of one model response; 0 means DefaultMaxToolCallArgBytes. Past the cap the runner
	// stops reading the response, and its calls are settled unexecuted with
	// an ErrToolCallArgsTooLarge error result.
	MaxToolCallArgBytes int
	// ToolTimeout limits a call of a tool that sets no Timeout; 0 means none.
	ToolTimeout time.Duration
	// ResultHooks run in order on every settled tool call before it is
	// emitted and stored; e.g. spooledartifact.HandleAbove(4096) surfaces
	// results over 4 KiB as handles. Results are inline by default.
	ResultHooks []ResultHook
	// CleanupArtifacts deletes a turn's spooled artifacts from SpoolStore
	// when the turn ends, also from a store the caller supplied.
	//
	// Retention by default: the runner's own in-memory store (SpoolStore
	// nil) is cleaned at every turn end unless KeepArtifacts is set, so a
	// long-running service does not grow without bound; a caller's store is
	// left alone (its owner decides, e.g. with ArtifactTTL). Cleaning is safe
	// for replay: a stored tool call keeps a snapshot reader of its artifact,
	// so rendering it and querying it with the artifact_* tools in later
	// turns still work in the same process. A call whose artifact is really
	// gone (say, rebuilt from a database after the bytes were swept) renders
	// as [llm.ArtifactExpiredText] rather than failing.
	CleanupArtifacts bool
	// KeepArtifacts keeps the turns' artifacts in the runner's own default
	// store after they end (for Runner.SpoolStore readers). That store then
	// grows with every turn: pair it with ArtifactTTL.
	KeepArtifacts bool
	// ArtifactTTL, when > 0, makes the runner sweep SpoolStore of artifacts
	// written more than ArtifactTTL ago at the start of every turn (stores
	// implementing spooledartifact.Sweeper, as both of that package's do).
	// 0 means no sweep.
	//
	// The sweep spares the artifacts of the turns still running on this
	// Runner, however old. A Runner cannot see the
	// turns of other Runners, in this process or another, sharing the
	// store: the TTL of each must exceed the longest turn of every Runner
	// on the store, or a sweep of one deletes artifacts another's running
	// turn still reads.
	ArtifactTTL time.Duration
	// RequireApproval names tools that wait on a gate (GateOpen with a
	// ToolApproval payload) before each call. The gates of one response
	// are awaited together and answered in any order; on a turn of a
	// conversation they are stored while open, so Runner.Resume can
	// continue the turn if its process dies while it waits.
	RequireApproval []string
	// Approval, when set, also puts to a human the calls it picks, by
	// tool and arguments (see ApprovalPolicy).
	Approval ApprovalPolicy
	// ApprovalTimeout bounds approval gates; 0 means until ctx ends.
	ApprovalTimeout time.Duration
	// SuspendOnApproval makes a turn of a conversation (Input.ConversationID)
	// that needs approvals end as TurnSuspended instead of waiting: the
	// response's other calls run, the calls awaiting approval and their
	// gates are stored, and Runner.Resume continues the turn with the
	// answers, in this process or after a restart. Store must be a
	// dispatch.ConversationStore. A turn outside a conversation waits as
	// usual.
	SuspendOnApproval bool
	// History limits the history a turn of a conversation loads
	// (dispatch.LoadHistory); the zero value loads every earlier turn.
	History dispatch.HistoryOptions
	// Turn and dispatch middleware.
	TurnInput, TurnOutput         []TurnMiddleware
	DispatchInput, DispatchOutput []DispatchMiddleware
	// Instructions are standing developer rules every llm.Request carries;
	// adapters render them into the system prompt (llm.Renderer.System).
	Instructions []string
	// ModelOptions are passed on every llm.Request.
	ModelOptions llm.ModelOptions
	// Retry is the policy for a model call that fails before the first part
	// of its response arrived (rate limited, overloaded, a server or
	// transport error, an incomplete stream): the zero value makes up to
	// llm.DefaultMaxAttempts attempts with backoff, honouring Retry-After;
	// MaxAttempts 1 turns retries off. Each retry is a Warning of kind
	// "model-retry". A response that fails after its first part is not
	// retried: what the caller saw of it is closed with the error
	// (MessageDelta.Err, ThoughtDelta.Err) and nothing of it is stored.
	Retry llm.RetryPolicy
	// EventBuffer is the event channel's capacity; 0 means DefaultEventBuffer.
	EventBuffer int
	// Logger receives diagnostics; the zero value is silent.
	Logger zerolog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// New validates opts and returns a Runner for model. A bad configuration is
// ErrInvalidConfig naming every field at fault.
func New(model llm.Model, opts *Options) (*Runner, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	var p []string
	if model == nil {
		p = append(p, "model: required")
	}
	if o.MaxParallelTools < 0 {
		p = append(p, "maxParallelTools: must be >= 0")
	}
	if o.ToolTimeout < 0 {
		p = append(p, "toolTimeout: must be >= 0")
	}
	if o.ArtifactTTL < 0 {
		p = append(p, "artifactTTL: must be >= 0")
	}
	if o.ApprovalTimeout < 0 {
		p = append(p, "approvalTimeout: must be >= 0")
	}
	if o.MaxToolCallArgBytes < 0 {
		p = append(p, "maxToolCallArgBytes: must be >= 0")
	}
	if o.Retry.MaxAttempts < 0 || o.Retry.BaseDelay < 0 || o.Retry.MaxDelay < 0 {
		p = append(p, "retry: attempts and delays must be >= 0")
	}
	if o.SuspendOnApproval && o.Store != nil {
		if _, ok := o.Store.(dispatch.ConversationStore); !ok {
			p = append(p, "suspendOnApproval: the store must be a dispatch.ConversationStore")
		}
	}
	if o.EventBuffer < 0 {
		p = append(p, "eventBuffer: must be >= 0")
	}
	p = append(p, nilEntries("turnInput", o.TurnInput, "middleware")...)
	p = append(p, nilEntries("turnOutput", o.TurnOutput, "middleware")...)
	p = append(p, nilEntries("dispatchInput", o.DispatchInput, "middleware")...)
	p = append(p, nilEntries("dispatchOutput", o.DispatchOutput, "middleware")...)
	p = append(p, nilEntries("resultHooks", o.ResultHooks, "hook")...)
	var reg *forge.Registry
	if o.Registry != nil {
		reg = o.Registry.Clone()
	} else {
		reg = &forge.Registry{}
	}
	for i, t := range o.Tools {
		if t == nil {
			p = append(p, "tools["+strconv.Itoa(i)+"]: nil tool")
			continue
		}
		if err := reg.Register(t, false); err != nil {
			p = append(p, "tools["+strconv.Itoa(i)+"]: "+err.Error())
		}
	}
	if len(p) > 0 {
		return nil, ErrInvalidConfig.With(nil, "turnrunner: invalid config: %s", strings.Join(p, "; "))
	}
	if o.MaxParallelTools == 0 {
		o.MaxParallelTools = DefaultMaxParallelTools
	}
	if o.EventBuffer == 0 {
		o.EventBuffer = DefaultEventBuffer
	}
	if o.MaxToolCallArgBytes == 0 {
		o.MaxToolCallArgBytes = DefaultMaxToolCallArgBytes
	}
	cleanup := o.CleanupArtifacts
	if o.SpoolStore == nil {
		o.SpoolStore = spooledartifact.NewMemoryStore()
		cleanup = cleanup || !o.KeepArtifacts
	}
	if o.Store == nil {
		o.Store = dispatch.NewMemoryStore()
	}
	wallClock := o.Now == nil
	if wallClock {
		o.Now = time.Now
	}
	approval := make(map[string]bool, len(o.RequireApproval))
	for _, n := range o.RequireApproval {
		approval[n] = true
	}
	return &Runner{model: model, opts: o, tools: reg, approval: approval, cleanup: cleanup, wallClock: wallClock}, nil
}

// nilEntries names every nil function in fs, as config problems.
func nilEntries[F interface {
	TurnMiddleware | DispatchMiddleware | ResultHook
}](field string, fs []F, what string) (p []string) {
	for i, f := range fs {
		if f == nil {
			p = append(p, field+"["+strconv.Itoa(i)+"]: nil "+what)
		}
	}
	return p
}
