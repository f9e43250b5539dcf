// Package anthropic is a model adapter for Anthropic's Messages API over
// net/http and a small streaming decoder, no SDK.
//
//	model, err := anthropic.New(anthropic.Config{
//		APIKey: os.Getenv("ANTHROPIC_API_KEY"),
//		Model:  "claude-sonnet-4-5",
//	})
//
// [Model.Stream] sends one request and yields the response as [llm.Part]
// values while it streams (or in one go with Config.NoStream): text
// deltas, tool_use blocks with their input_json_delta fragments, thinking
// deltas, usage and the stop reason. Thinking and redacted thinking blocks
// carry their signature or data as an opaque payload tagged
// [ReplayThinking], so that a later request replays them verbatim next to
// the tool calls, as the API requires. Tool results go back as tool_result
// blocks, with is_error for a failed call. Pings, padding after the JSON
// of a data line and unknown event types are accepted.
//
// What the model reads is rendered by Config.Renderer, an [llm.Renderer]:
// the system field holds the system prompt and the request's standing
// instructions, user text has fake system tags neutralised, and each
// tool_result holds its result in a nonce-keyed envelope (trusted only for
// the request's trusted tools). Images and PDFs go inline as base64 (a
// document in another format is named); audio and video are refused unless
// the renderer's policy says otherwise.
//
// Failures are typed with the llm package's errors: an HTTP status or an
// error event (also after a 200) becomes llm.ErrRateLimited (with the
// server's Retry-After), ErrAuth, ErrBadRequest, ErrContextLength,
// ErrOverloaded (529, overloaded_error) or ErrServer, wrapping an
// [llm.APIError]; a stream that ends without message_stop and without a
// stop reason is llm.ErrTruncated; an expired request or idle timeout is
// llm.ErrTimeout; a failed connection llm.ErrTransport. The API key never
// appears in an error. A response cut off by max_tokens ends with
// llm.StopMaxTokens, and the runner does not run its half-built calls.
//
// Retries are not the adapter's job: turnrunner applies its Options.Retry
// to every model call; elsewhere, wrap the adapter with llm.WithRetry.
package anthropic
