// Package modelenv chooses the model an example runs on from the
// environment, so one example runs offline on its scripted model or
// against a real endpoint:
//
//	ADK_PROVIDER  "" or "scripted" (offline), "openai" (any OpenAI-compatible
//	              server: OpenAI, Ollama, vLLM, llama.cpp, Groq, OpenRouter…),
//	              "anthropic" or "gemini" (the Gemini API's own protocol)
//	ADK_BASE_URL  the API root, e.g. http://localhost:11434/v1 for Ollama
//	              (default https://api.openai.com/v1, https://api.anthropic.com,
//	              https://generativelanguage.googleapis.com/v1beta)
//	ADK_MODEL     the model name (required with a provider)
//	ADK_API_KEY   the key, when the endpoint needs one; it never appears in
//	              output or errors
//
// [Explain] turns a failed turn's error into one line that says what to
// check.
package modelenv
