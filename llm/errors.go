package llm

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/ebbforge/adk/forge"
)

// Error codes of model calls. They use the kit's one error type,
// [forge.Error]: errors.Is(err, ErrRateLimited) matches on the code, and
// errors.As with *forge.Error reads Code and Status.
const (
	CodeRateLimited   forge.Code = "E_LLM_RATE_LIMITED"
	CodeAuth          forge.Code = "E_LLM_AUTHENTICATION"
	CodeBadRequest    forge.Code = "E_LLM_BAD_REQUEST"
	CodeContextLength forge.Code = "E_LLM_CONTEXT_LENGTH_EXCEEDED"
	CodeOverloaded    forge.Code = "E_LLM_OVERLOADED"
	CodeServer        forge.Code = "E_LLM_SERVER_ERROR"
	CodeTransport     forge.Code = "E_LLM_TRANSPORT"
	CodeTimeout       forge.Code = "E_LLM_TIMEOUT"
	CodeTruncated     forge.Code = "E_LLM_RESPONSE_INCOMPLETE"
	CodeProtocol      forge.Code = "E_LLM_PROTOCOL"
)

// Sentinels for errors.Is. Build a concrete error with
// ErrX.With(cause, format, ...), usually with an [*APIError] as the cause;
// never assign to a sentinel's fields.
var (
	// ErrRateLimited: the provider refused the call for its rate or quota
	// (HTTP 429). Retryable, honouring the server's Retry-After.
	ErrRateLimited = &forge.Error{Code: CodeRateLimited, Status: 429}
	// ErrAuth: the credentials were refused or may not be used (HTTP 401,
	// 402 billing, 403). Not retryable.
	ErrAuth = &forge.Error{Code: CodeAuth, Status: 401}
	// ErrBadRequest: the provider rejected the request itself (another 4xx:
	// an unknown model, an invalid field). Not retryable.
	ErrBadRequest = &forge.Error{Code: CodeBadRequest, Status: 400}
	// ErrContextLength: the prompt does not fit the model's context window.
	// Not retryable as is: shorten the timeline first.
	ErrContextLength = &forge.Error{Code: CodeContextLength, Status: 400}
	// ErrOverloaded: the provider is temporarily over capacity (HTTP 529,
	// Anthropic's overloaded_error, also inside a stream). Retryable.
	ErrOverloaded = &forge.Error{Code: CodeOverloaded, Status: 529}
	// ErrServer: the provider failed (HTTP 5xx, an api_error event).
	// Retryable.
	ErrServer = &forge.Error{Code: CodeServer, Status: 502}
	// ErrTransport: the connection failed (refused, reset, DNS, TLS) before
	// or during the response. Retryable.
	ErrTransport = &forge.Error{Code: CodeTransport, Status: 503}
	// ErrTimeout: the request timeout or the stream-idle timeout expired.
	// Retryable.
	ErrTimeout = &forge.Error{Code: CodeTimeout, Status: 504}
	// ErrTruncated: the stream ended without its terminator and without a
	// stop reason, so the response is incomplete. Retryable.
	ErrTruncated = &forge.Error{Code: CodeTruncated, Status: 502}
	// ErrProtocol: the provider answered with something the adapter cannot
	// read (an unexpected content type, malformed JSON). Not retryable.
	ErrProtocol = &forge.Error{Code: CodeProtocol, Status: 502}
)

// retryable are the sentinels a retry may cure.
var retryable = []error{ErrRateLimited, ErrOverloaded, ErrServer, ErrTransport, ErrTimeout, ErrTruncated}

// Retryable reports whether err is a failure a later attempt may not have:
// rate limited, overloaded, a server error, a transport failure, a timeout
// or an incomplete stream. Cancellation and every other error are not.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	for _, s := range retryable {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// APIError is what a provider said about a failed call. Adapters wrap it
// in the matching sentinel (see [StatusError]); callers read it with
// errors.As. It never holds request headers, so it cannot leak an API key;
// adapters pass provider text through [Redact] before putting it here.
type APIError struct {
	// Provider names the adapter ("openai", "anthropic").
	Provider string
	// StatusCode is the HTTP status; 200 for an error event inside a stream.
	StatusCode int
	// Type is the provider's error type or code ("rate_limit_error",
	// "context_length_exceeded").
	Type string
	// Message is the provider's message.
	Message string
	// RequestID is the provider's request id, for support.
	RequestID string
	// RetryAfter is the server's hint (Retry-After, retry-after-ms); 0 when
	// none.
	RetryAfter time.Duration
}

// Error renders "provider: status 429 rate_limit_error: message (request req_…)".
func (e *APIError) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider + ": ")
	}
	b.WriteString("status " + strconv.Itoa(e.StatusCode))
	if e.Type != "" {
		b.WriteString(" " + e.Type)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// StatusSentinel is the sentinel for an HTTP error status: 429 rate
// limited; 401, 402, 403 auth; 413 and other 4xx bad request; 529
// overloaded; 408 and 504 timeout; other 5xx server; anything else
// (including 2xx and 3xx, which are not failures a client expects) protocol.
func StatusSentinel(status int) *forge.Error {
	switch {
	case status == 429:
		return ErrRateLimited
	case status == 401 || status == 402 || status == 403:
		return ErrAuth
	case status == 408 || status == 504:
		return ErrTimeout
	case status == 529:
		return ErrOverloaded
	case status >= 400 && status < 500:
		return ErrBadRequest
	case status >= 500 && status < 600:
		return ErrServer
	}
	return ErrProtocol
}

// StatusError classifies api by its status ([StatusSentinel]) and returns
// the sentinel's error wrapping it. Adapters that know better from the
// provider's error type (context length, overloaded) use that sentinel's
// With instead.
func StatusError(api *APIError) error {
	return StatusSentinel(api.StatusCode).With(api, "model call failed")
}

// RetryAfter is the server's retry hint carried by err's [*APIError], or 0.
func RetryAfter(err error) time.Duration {
	var api *APIError
	if errors.As(err, &api) {
		return api.RetryAfter
	}
	return 0
}

// Redact replaces every occurrence of each non-empty secret in s with
// "[redacted]". Adapters pass any provider or transport text through it
// before it reaches an error, a log or an event, so an API key echoed by a
// server or a proxy never leaves the adapter.
func Redact(s string, secrets ...string) string {
	for _, k := range secrets {
		if k != "" {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}
