// Package openaicompat is a model adapter for the Chat Completions API as
// OpenAI and the servers that copy it speak it: Ollama, vLLM, llama.cpp's
// server, Groq, OpenRouter, DeepSeek and Gemini's OpenAI endpoint. It uses
// net/http and a small streaming decoder, no SDK.
//
//	model, err := openaicompat.New(openaicompat.Config{
//		BaseURL: "http://localhost:11434/v1", // Ollama
//		Model:   "qwen3",
//	})
//
// [Model.Stream] sends one request and yields the response as [llm.Part]
// values while it streams (or in one go with Config.NoStream). Tool-call
// deltas are assembled by index, then by id, so servers that leave out the
// index, reuse one index for different calls, or send a call whole all
// work; a call without an id gets a generated one. Whether tools were
// called is decided from the calls, not from finish_reason alone. Reasoning
// is read from reasoning_content or reasoning; OpenRouter's
// reasoning_details and Gemini's extra_content (thought signatures) are kept
// as opaque payloads and sent back as each server needs, following the
// [Profile] in use: chosen from the base URL, or set explicitly.
//
// What the model reads is rendered by Config.Renderer, an [llm.Renderer]:
// the system message holds the system prompt and the request's standing
// instructions, user text has fake system tags neutralised, and each tool
// message holds its result in a nonce-keyed envelope (trusted only for the
// request's trusted tools). Images go inline as data URLs; other media are
// refused unless the renderer's policy says otherwise.
//
// Failures are typed with the llm package's errors: an HTTP status or an
// error object (a JSON body, or an error event after a 200) becomes
// llm.ErrRateLimited (with the server's Retry-After), ErrAuth,
// ErrBadRequest, ErrContextLength, ErrOverloaded or ErrServer, wrapping an
// [llm.APIError]; a stream that ends without [DONE] and without a finish
// reason is llm.ErrTruncated; an expired request or idle timeout is
// llm.ErrTimeout; a failed connection llm.ErrTransport. The API key never
// appears in an error. A response cut off by the token limit ends with
// llm.StopMaxTokens, and the runner does not run its half-built calls.
//
// Retries are not the adapter's job: turnrunner applies its Options.Retry
// to every model call; elsewhere, wrap the adapter with llm.WithRetry.
package openaicompat
