package llm

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

// Model is what the turn runner needs from a language model: one streamed
// response per request. Adapters translate a provider's wire format into
// [Part] values; they never execute tools (the runner does).
//
// The sequence is single-use. It yields parts in wire order and stops at the
// end of the response; a failure is yielded once as a non-nil error (the
// runner stops reading there). Breaking out of the loop must release the
// underlying connection. ctx cancels the request.
type Model interface {
	Stream(ctx context.Context, req *Request) iter.Seq2[Part, error]
}

// ModelFunc adapts a function to [Model].
type ModelFunc func(ctx context.Context, req *Request) iter.Seq2[Part, error]

// Stream calls f.
func (f ModelFunc) Stream(ctx context.Context, req *Request) iter.Seq2[Part, error] {
	return f(ctx, req)
}

// Request is one model call. The runner builds a fresh Request per
// iteration and never reuses it, so a Model may keep it (a recorder does),
// but must not modify it or the entries it holds.
type Request struct {
	// TurnID and DispatchID identify the call (for logs and recordings).
	TurnID, DispatchID string
	// Iteration is the 0-based iteration of the dispatch.
	Iteration int
	// System is the rendered system prompt ("" when none).
	System string
	// Instructions are the standing developer rules; adapters put them in
	// the system prompt with [Renderer.System].
	Instructions []string
	// Timeline is the conversation so far, in order: messages, thoughts and
	// tool calls (with their results). Every entry a model response produced
	// carries that response's id (dispatch.Entry.ResponseID), in the order
	// the response streamed it; [Turns] groups the timeline back into
	// provider-neutral turns. Render a tool call's results with
	// [RenderResult].
	Timeline []dispatch.Entry
	// Tools are the tools offered (empty on a final iteration).
	Tools []forge.Definition
	// TrustedTools names the tools whose output renders in the trusted
	// envelope (forge.ToolOptions.Trusted); see [Request.Trusted].
	TrustedTools []string
	// Final is true on the loop guard's last iteration: no tools are
	// offered, and the Timeline ends with a user-side note asking the model
	// to answer with what it has.
	Final bool
	// Options are the runner's model options.
	Options ModelOptions
}

// A Request's slices may share their arrays with the runner and with other
// requests of the same turn: read them, never modify them (appending is
// fine, it copies).

// Trusted reports whether tool's output renders in the trusted envelope; a
// tool not listed (also one gone since it ran) is untrusted.
func (r *Request) Trusted(tool string) bool {
	for _, t := range r.TrustedTools {
		if t == tool {
			return true
		}
	}
	return false
}

// ModelOptions are provider-neutral generation settings; zero means the
// adapter's default.
type ModelOptions struct {
	MaxTokens   int
	Temperature *float64
	// Extra is opaque, adapter-specific configuration.
	Extra json.RawMessage
}

// PartKind tells which fields of a [Part] are set.
type PartKind uint8

// Part kinds.
const (
	// PartText: Text is a delta of the assistant's visible answer.
	PartText PartKind = iota + 1
	// PartThought: Text is a delta of reasoning; Index tells thinking blocks
	// apart; Payload (replacing any earlier one for the block) and
	// ReplayCompatibility carry opaque data such as a signature.
	PartThought
	// PartToolCall: a tool call, or a piece of one, keyed by Index. ID and
	// Name are taken from the first part that has them (never appended);
	// Text is appended to the raw argument text. The arguments are parsed
	// once, at the end of the response ("" means {}). Payload (replacing
	// any earlier one for the call) and ReplayCompatibility carry opaque
	// data, such as a thought signature, that the stored call keeps and
	// gives back to the adapter on later requests.
	PartToolCall
	// PartUsage: Usage holds the token counts so far; the last one wins
	// (adapters send cumulative values).
	PartUsage
	// PartStop: StopReason says why the response ended.
	PartStop
)

// StopReason is why a response ended, normalised across providers.
type StopReason string

// Stop reasons.
const (
	StopEnd           StopReason = "end"            // natural end or stop sequence
	StopToolUse       StopReason = "tool_use"       // the model called tools
	StopMaxTokens     StopReason = "max_tokens"     // truncated: tool calls are not run
	StopContentFilter StopReason = "content_filter" // withheld by a filter
	StopOther         StopReason = "other"
)

// Usage is the token accounting of one response.
type Usage struct {
	InputTokens     int
	OutputTokens    int
	TotalTokens     int
	CachedTokens    int
	ReasoningTokens int
}

// Part is one piece of a streamed response. It is a plain value (no
// interface) so the hot path does not allocate per part.
type Part struct {
	Kind PartKind
	// Index keys thought blocks and tool calls within the response.
	Index int
	// Text is the text, thought or argument delta.
	Text string
	// ID and Name identify a tool call.
	ID, Name string
	// Payload and ReplayCompatibility carry opaque thought or tool-call
	// data (a signature) to replay verbatim; a Payload must be valid JSON.
	Payload             json.RawMessage
	ReplayCompatibility string
	Usage               Usage
	StopReason          StopReason
}

// TextPart returns a text delta.
func TextPart(s string) Part { return Part{Kind: PartText, Text: s} }

// ThoughtPart returns a thought delta for block index.
func ThoughtPart(index int, s string) Part { return Part{Kind: PartThought, Index: index, Text: s} }

// ToolCallPart returns a whole tool call (or its first piece).
func ToolCallPart(index int, id, name, args string) Part {
	return Part{Kind: PartToolCall, Index: index, ID: id, Name: name, Text: args}
}

// UsagePart returns a usage report.
func UsagePart(u Usage) Part { return Part{Kind: PartUsage, Usage: u} }

// StopPart returns the end-of-response marker.
func StopPart(r StopReason) Part { return Part{Kind: PartStop, StopReason: r} }
