// Package gemini is a model adapter for the Gemini API's native
// generateContent protocol over net/http and a small streaming decoder,
// no SDK.
//
//	model, err := gemini.New(gemini.Config{
//		APIKey: os.Getenv("GEMINI_API_KEY"),
//		Model:  "gemini-2.5-flash",
//	})
//
// [Model.Stream] sends one request to models/{model}:streamGenerateContent
// with alt=sse (or :generateContent with Config.NoStream) and yields the
// response as [llm.Part] values while it streams: text, thought summaries
// (parts marked thought, with Config.IncludeThoughts) as reasoning,
// function calls, usage (the last usageMetadata wins; output tokens
// include the thoughts) and the stop reason. The API key goes in the
// x-goog-api-key header, never in the URL.
//
// Function calls arrive whole. The API usually sends them without an id:
// the adapter then makes one up, and sends it back with the call and with
// its function response; the responses also go back in call order and
// under the calls' names, which is how the API matches them. A thought
// signature is kept where it came: on a function call as the call's
// Payload, on a thought or a text part as a thought's, tagged
// [ReplaySignature], and the next request carries it on the same part, as
// the API requires for calls. Thought summaries without a signature are
// not sent back.
//
// Tools are declared as functionDeclarations with their JSON Schema
// converted to the API's OpenAPI-style schema: upper-case types, local
// references inlined, and keywords the API does not take dropped (the
// list is on the converter; notably additionalProperties, and formats
// other than enum, date-time, int32, int64, float and double).
// Config.ToolChoice sets toolConfig.functionCallingConfig. On a final
// iteration the tools the history called are declared by name with
// calling off.
//
// What the model reads is rendered by Config.Renderer, an [llm.Renderer]:
// the systemInstruction holds the system prompt and the request's standing
// instructions, user text has fake system tags neutralised, and each
// function response holds its result in a nonce-keyed envelope (trusted
// only for the request's trusted tools), as {"output": …}, or {"error": …}
// for a failed call. Images, audio, video, PDFs and plain text documents go
// inline as base64; other media are refused unless the renderer's policy
// says otherwise. Request fields the adapter does not set (safetySettings,
// cachedContent) can be added through the request's Options.Extra.
//
// Failures are typed with the llm package's errors: an HTTP status or a
// Google error object (also inside a stream) becomes llm.ErrRateLimited
// (RESOURCE_EXHAUSTED, with the server's Retry-After or RetryInfo delay),
// ErrAuth (UNAUTHENTICATED, PERMISSION_DENIED, an invalid API key),
// ErrBadRequest, ErrContextLength, ErrOverloaded (UNAVAILABLE), ErrTimeout
// (DEADLINE_EXCEEDED) or ErrServer, wrapping an [llm.APIError]; a prompt
// the API blocked (promptFeedback.blockReason) is llm.ErrBadRequest. The
// stream has no terminator: one that ends without a finishReason is
// llm.ErrTruncated. An expired request or idle timeout is llm.ErrTimeout; a
// failed connection llm.ErrTransport. The API key never appears in an
// error.
//
// finishReason STOP ends with llm.StopEnd, or llm.StopToolUse when the
// response called functions; MAX_TOKENS with llm.StopMaxTokens, and the
// runner does not run the response's calls; SAFETY, RECITATION,
// BLOCKLIST, PROHIBITED_CONTENT, SPII and the image filters with
// llm.StopContentFilter; any other reason (MALFORMED_FUNCTION_CALL,
// OTHER, …) with llm.StopOther. Only the first candidate is read.
//
// Retries are not the adapter's job: turnrunner applies its Options.Retry
// to every model call; elsewhere, wrap the adapter with llm.WithRetry.
package gemini
