// Package llm is the model contract of the kit: what a language model
// adapter implements and what the turn runner consumes, with nothing of the
// runner itself, so an adapter imports this light package only.
//
// # The contract
//
// A [Model] streams one response per [Request] as an iter.Seq2[[Part],
// error]: text and thought deltas, tool calls (keyed by index, arguments
// possibly in pieces, with an opaque Payload to replay), usage and a stop
// reason. Adapters only translate the wire; the runner alone runs tools.
//
//	func (a *Adapter) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
//		return func(yield func(llm.Part, error) bool) {
//			// send req, then for each decoded event:
//			if !yield(llm.TextPart("Hello"), nil) {
//				return // the consumer stopped: release the connection
//			}
//			yield(llm.StopPart(llm.StopEnd), nil)
//		}
//	}
//
// # The timeline
//
// A [Request] carries the conversation as timeline entries; every entry a
// model response produced carries that response's id, in the order it
// streamed. [Turns] groups a timeline into user, assistant and tool-result
// turns, the one grouping every adapter shares: two consecutive tool-only
// responses stay two assistant turns, and a thought between two tool calls
// keeps its place. A tool call's Payload and ReplayCompatibility (a thought
// signature) come back on the stored call (forge.ToolCall.Payload).
//
// # Rendering
//
// A [Renderer] renders what the model reads the same way for every
// adapter: the system prompt with the standing instructions, message text
// with fake system_instructions tags neutralised, tool results in
// nonce-keyed envelopes (untrusted unless the tool is trusted; artifact
// handles always untrusted) and media by each item's own trust tier, with a
// [MediaPolicy] for modalities the provider cannot take. [RenderResult] is
// the plain text of a result, without an envelope.
//
// # Errors and retries
//
// Adapters report failures with the coded sentinels of this package
// ([ErrRateLimited], [ErrAuth], [ErrBadRequest], [ErrContextLength],
// [ErrOverloaded], [ErrServer], [ErrTransport], [ErrTimeout],
// [ErrTruncated], [ErrProtocol]), built with With and usually wrapping an
// [*APIError] that carries the provider's status, type, request id and
// Retry-After hint. [Retryable] and [RetryAfter] read them back, and a
// [RetryPolicy] decides how long to wait before the next attempt.
// [WithRetry] applies a policy to any Model, retrying only failures that
// happen before the response's first part was yielded. Adapters do not
// retry themselves; the turn runner applies its policy once.
package llm
