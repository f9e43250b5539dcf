// Package turnrunner runs a turn against a model: it calls the model,
// streams its answer, executes the tools it asks for, feeds the results
// back, and loops until the model answers — sending every event to the
// caller over a channel.
//
//	runner, err := turnrunner.New(model, &turnrunner.Options{Tools: tools})
//	events, err := runner.Run(ctx, turnrunner.Input{System: "…", Prompt: "…"})
//	for ev := range events { // closed after TurnEnd
//		switch e := ev.(type) {
//		case turnrunner.MessageDelta: fmt.Print(e.Delta)
//		case turnrunner.TurnEnd:      // e.Status, e.Err
//		}
//	}
//
// # The model
//
// A [llm.Model] (package llm holds the model contract) returns one streamed
// response per [llm.Request] as an iter.Seq2[[llm.Part], error]: text and
// thought deltas, tool calls (keyed by
// index, arguments possibly in pieces), usage and a stop reason. Adapters
// only translate the wire; the runner alone runs tools. llm/scripted is an
// offline model for tests and examples.
//
// # Tools
//
// The tool calls of one response are announced ([ToolCallContent] with
// IsComplete false), run in parallel with at most Options.MaxParallelTools
// at once (default 16, sized for I/O-bound tools), each under its own timeout, and completed with the
// same ID; they are stored in call order. Errors, panics, timeouts, unknown
// tools and bad arguments become error results the model sees — never a
// dead turn. Text, bytes and streams are spooled (spooledartifact) under
// the call id (or, for an id the store would refuse, a key derived from it:
// see [Runner.SpoolStore]); results are inline by default, and a
// [ResultHook] such as spooledartifact.HandleAbove surfaces large ones as
// handles the model reads with the artifact_* tools, forged once per turn
// when the first result arrives (see spooledartifact.Forger).
// [llm.RenderResult] is the text a model sees for a call. The runner's own in-memory spool store is
// emptied at every turn end (stored calls keep their bytes, so replay still
// works); Options.CleanupArtifacts, KeepArtifacts and ArtifactTTL tune
// retention (the TTL sweep spares the runner's turns still running), and
// an artifact that is gone renders as [llm.ArtifactExpiredText]. Tools listed in Options.RequireApproval
// wait on a [Gate] ([GateOpen] event) until the caller resolves it; an open
// gate is also found by its turn and id ([Runner.Gate]), so a later request
// can answer it. Gate ids the runner generates are random. Options.Approval
// picks calls by tool and arguments too; the approvals of one response are
// asked together, only for calls whose arguments validate, and a denial
// closes its gate as [GateDenied].
//
// # Conversations and durable approvals
//
// With Input.ConversationID (and a dispatch.ConversationStore, as the
// default in-memory store and store/sqlitestore are), a turn is recorded
// as the next of its conversation and sees the earlier turns as history.
// With Options.SuspendOnApproval, a turn needing approvals ends
// [TurnSuspended] with its gates stored; [Runner.Resume] continues it with
// the answers, in this process or after a restart, and also continues a
// turn cut off when its process stopped.
//
// # Loop, pipelines, persistence
//
// The built-in loop guard (dispatch.LoopPolicy, on by default) blocks
// repeated identical calls and finishes gracefully at the iteration cap. It
// counts the calls the turn executed: history, and calls it refused (cut
// off, denied, blocked), do not count.
// Turn and dispatch middleware wrap the turn and each iteration in the onion
// shape: Options.TurnInput wraps the dispatch and Options.TurnOutput,
// Options.DispatchInput wraps each iteration's model call, tool calls and
// Options.DispatchOutput, and the ctx a middleware hands to next is the one
// that work runs with. A middleware that neither calls next nor fails is
// [ErrShortCircuited]. A panic in code the turn calls (a Store, Options.Now)
// fails the dispatch and the turn with an error that wraps it; no panic
// crosses the API. Everything is stored through dispatch.Store
// (in-memory by default), each entry a model response produced with its
// response id (dispatch.Entry.ResponseID, see llm.Turns); on cancellation
// what completed is stored and what did not is marked.
//
// # Model failures and retries
//
// A model call that fails before the first part of its response arrived
// (rate limited, overloaded, a server or transport error) is retried under
// Options.Retry, honouring the server's Retry-After, each retry reported as
// a [Warning] of kind "model-retry". A response that fails after its first
// part ends the dispatch with [ErrModel] wrapping the model's error; what
// the caller saw of it is closed with the error ([MessageDelta].Err) and
// nothing of it is stored. A response cut off at max_tokens never runs its
// tool calls: they are stored with an error result telling the model why.
//
// # Events and backpressure
//
// Events are a closed set of types (a sealed [Event] interface).
// Middleware and tool handlers add their own notes with dispatch.Context.Log
// or [TurnContext.Log]: a [Log] event, in order with the events around it,
// also written to Options.Logger. The runner
// waits for a slow consumer and never drops events while ctx is live; when
// ctx ends every goroutine of the turn exits promptly and the channel is
// closed.
//
// Events reach the channel in order and in bursts. The runner queues them
// and hands the queue over a millisecond after the first event in it,
// whatever it is doing meanwhile (waiting on the model, a tool or
// middleware, or working on); at once when the queue outgrows the channel's
// buffer, with streamed text (MessageDelta, ThoughtDelta, which go as they
// come), when a gate opens or closes, for a Log, and when the turn ends. So
// a consumer has every event within a millisecond, and is woken once per
// burst rather than once per event: on a fast turn the wake-up is most of
// the cost of an event.
//
// [MarshalEvent] writes every event in a stable JSON
// wire form for UIs and logs: a "type" field, camelCase fields, RFC 3339
// times (zero ones left out), durations in milliseconds, errors as
// {code, message}, and for a settled tool call a renderable result (text,
// handle or media descriptors). The uistream package streams it to web
// UIs.
package turnrunner
