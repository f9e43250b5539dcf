package gemini

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wire"
)

// provider names this adapter in an [llm.APIError].
const provider = "gemini"

var errMalformed = errors.New("malformed JSON")

// sentinels type the failures of the call itself (see [wire.Failure]).
var sentinels = wire.Sentinels{Timeout: llm.ErrTimeout, Protocol: llm.ErrProtocol, Transport: llm.ErrTransport}

// errorBody is a Google API error object: {"code", "message", "status",
// "details"}, from an error body or inside a stream.
type errorBody struct {
	code       int
	status     string // the canonical code's name, e.g. RESOURCE_EXHAUSTED
	msg        string
	reason     string        // an ErrorInfo detail's reason, e.g. API_KEY_INVALID
	retryDelay time.Duration // a RetryInfo detail's delay
}

func parseError(v gjson.Result) *errorBody {
	eb := &errorBody{code: int(v.Get("code").Int()), status: v.Get("status").String(), msg: v.Get("message").String()}
	v.Get("details").ForEach(func(_, d gjson.Result) bool {
		typ := d.Get(`@type`).String()
		switch {
		case strings.HasSuffix(typ, "google.rpc.RetryInfo"):
			// A protobuf Duration in JSON: "37s", "0.5s".
			if dur, err := time.ParseDuration(d.Get("retryDelay").String()); err == nil && dur > 0 {
				eb.retryDelay = dur
			}
		case strings.HasSuffix(typ, "google.rpc.ErrorInfo"):
			eb.reason = d.Get("reason").String()
		}
		return true
	})
	return eb
}

// statusErr types a non-2xx answer from its status and error body (an
// object, or a one-element array of one).
func (m *Model) statusErr(resp *http.Response, raw []byte) error {
	v := gjson.ParseBytes(raw)
	if v.IsArray() {
		v = v.Get("0")
	}
	eb := &errorBody{msg: strings.TrimSpace(string(raw))}
	if e := v.Get("error"); e.IsObject() {
		eb = parseError(e)
	}
	if eb.code == 0 {
		eb.code = resp.StatusCode
	}
	return m.bodyErr(resp, eb)
}

// bodyErr types an error object; inside a 200 stream its own code is the
// status.
func (m *Model) bodyErr(resp *http.Response, eb *errorBody) error {
	status := eb.code
	if status == 0 {
		status = resp.StatusCode
	}
	api := &llm.APIError{Provider: provider, StatusCode: status, Type: eb.status, Message: llm.Redact(eb.msg, m.cfg.APIKey),
		RetryAfter: llm.ParseRetryAfter(resp.Header, time.Now())}
	if api.RetryAfter == 0 {
		api.RetryAfter = eb.retryDelay
	}
	if eb.reason != "" && api.Type != "" {
		api.Type += "/" + eb.reason
	}
	return sentinel(status, eb).With(api, "gemini")
}

// sentinel classifies an error by its canonical status where that is
// specific, else by the HTTP status. An invalid API key comes as
// INVALID_ARGUMENT, told apart by its reason.
func sentinel(status int, eb *errorBody) *forge.Error {
	msg := strings.ToLower(eb.msg)
	if strings.HasPrefix(eb.reason, "API_KEY_") || strings.Contains(msg, "api key not valid") {
		return llm.ErrAuth
	}
	switch eb.status {
	case "RESOURCE_EXHAUSTED":
		return llm.ErrRateLimited
	case "UNAVAILABLE":
		return llm.ErrOverloaded
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		return llm.ErrAuth
	case "DEADLINE_EXCEEDED":
		return llm.ErrTimeout
	case "INTERNAL", "UNKNOWN", "DATA_LOSS", "ABORTED":
		return llm.ErrServer
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "NOT_FOUND", "OUT_OF_RANGE":
		if strings.Contains(msg, "exceeds the maximum number of tokens") || strings.Contains(msg, "context window") {
			return llm.ErrContextLength
		}
		return llm.ErrBadRequest
	}
	if status/100 != 2 {
		return llm.StatusSentinel(status)
	}
	return llm.ErrServer
}

// blockedErr reports a prompt the API refused to answer: a request that
// fails again as long as it is unchanged.
func (m *Model) blockedErr(resp *http.Response, d *decoder) error {
	api := &llm.APIError{Provider: provider, StatusCode: resp.StatusCode, Type: "PROMPT_BLOCKED/" + d.blocked,
		Message: llm.Redact(d.blockMsg, m.cfg.APIKey)}
	return llm.ErrBadRequest.With(api, "gemini: the prompt was blocked (%s)", d.blocked)
}

func protocolErr(msg string) error { return llm.ErrProtocol.With(nil, "gemini: %s", msg) }

func incompleteErr() error {
	return llm.ErrTruncated.With(nil, "gemini: the stream ended without a finish reason")
}
