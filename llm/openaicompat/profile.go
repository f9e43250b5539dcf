package openaicompat

import (
	"net"
	"net/url"
	"strings"
)

// Profile is what the adapter must know about one server's dialect of
// Chat Completions. Reading is the same for every server: reasoning comes
// from reasoning_content (DeepSeek, llama.cpp, vLLM before 0.11) or
// reasoning (vLLM 0.11 and later, Ollama, OpenRouter, Groq), and
// reasoning_details and extra_content are kept. Profiles differ only in
// what is sent.
//
// The built-in profiles:
//
//	profile     chosen for base URL host           sends
//	OpenAI      api.openai.com                      max_completion_tokens
//	Ollama      port 11434                          nothing extra (the server ignores tool_choice)
//	VLLM        (explicitly)                        nothing extra (tool_choice "auto" needs the server's
//	                                                --enable-auto-tool-choice and --tool-call-parser)
//	LlamaCpp    (explicitly)                        reasoning_content on assistant turns with tool calls
//	                                                (its chat templates read it); a named tool choice as
//	                                                "required" with only that tool offered
//	Groq        api.groq.com                        nothing extra (it rejects reasoning fields)
//	OpenRouter  openrouter.ai                       reasoning_details on assistant turns
//	DeepSeek    api.deepseek.com                    reasoning_content on assistant turns with tool calls
//	Gemini      generativelanguage.googleapis.com   extra_content (thought signatures) on tool calls
//	Generic     any other                           nothing extra
type Profile struct {
	// Name identifies the profile in logs.
	Name string
	// ReasoningContent sends a response's reasoning text back as
	// reasoning_content on its assistant message when that message has tool
	// calls (DeepSeek's thinking mode rejects a tool turn without it).
	ReasoningContent bool
	// ReasoningDetails sends reasoning_details back on the assistant message
	// that produced them.
	ReasoningDetails bool
	// ExtraContent echoes a tool call's extra_content on the replayed call.
	ExtraContent bool
	// MaxCompletionTokens sends the token limit as max_completion_tokens
	// instead of max_tokens.
	MaxCompletionTokens bool
	// NoStreamUsage leaves out stream_options.include_usage (for servers
	// that reject stream_options).
	NoStreamUsage bool
	// NamedChoiceAsRequired sends a tool choice naming a tool as
	// tool_choice "required" with only that tool offered, for servers that
	// take the string forms only (llama.cpp reads a named choice as auto).
	NamedChoiceAsRequired bool
}

// Built-in profiles; see [Profile].
var (
	OpenAI     = Profile{Name: "openai", MaxCompletionTokens: true}
	Ollama     = Profile{Name: "ollama"}
	VLLM       = Profile{Name: "vllm"}
	LlamaCpp   = Profile{Name: "llama.cpp", ReasoningContent: true, NamedChoiceAsRequired: true}
	Groq       = Profile{Name: "groq"}
	OpenRouter = Profile{Name: "openrouter", ReasoningDetails: true}
	DeepSeek   = Profile{Name: "deepseek", ReasoningContent: true}
	Gemini     = Profile{Name: "gemini", ExtraContent: true}
	Generic    = Profile{Name: "generic"}
)

// hostProfiles maps a base URL host (or a parent domain of it) to its
// profile.
var hostProfiles = []struct {
	host    string
	profile *Profile
}{
	{"api.openai.com", &OpenAI},
	{"api.groq.com", &Groq},
	{"openrouter.ai", &OpenRouter},
	{"api.deepseek.com", &DeepSeek},
	{"generativelanguage.googleapis.com", &Gemini},
}

// ProfileFor picks the profile for a base URL: by host (a subdomain
// matches its parent), Ollama by its default port 11434, else [Generic].
func ProfileFor(baseURL string) Profile {
	u, err := url.Parse(baseURL)
	if err != nil {
		return Generic
	}
	host := strings.ToLower(u.Hostname())
	for _, hp := range hostProfiles {
		if host == hp.host || strings.HasSuffix(host, "."+hp.host) {
			return *hp.profile
		}
	}
	if _, port, err := net.SplitHostPort(u.Host); err == nil && port == "11434" {
		return Ollama
	}
	return Generic
}
