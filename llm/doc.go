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
