package openaicompat

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
const provider = "openai"

var errMalformed = errors.New("malformed JSON")

// sentinels type the failures of the call itself (see [wire.Failure]).
var sentinels = wire.Sentinels{Timeout: llm.ErrTimeout, Protocol: llm.ErrProtocol, Transport: llm.ErrTransport}

// statusErr types a non-2xx answer from its status and error body.
func (m *Model) statusErr(resp *http.Response, raw []byte) error {
	var eb *errorBody
	if e := gjson.GetBytes(raw, "error"); e.Exists() {
		eb = parseError(e)
	} else {
		eb = &errorBody{msg: strings.TrimSpace(string(raw))}
	}
	eb.status = resp.StatusCode
	return m.bodyErr(resp, eb)
}

// bodyErr types an error object, from an error body or inside a stream
// (where its own status_code, if any, is the status).
func (m *Model) bodyErr(resp *http.Response, eb *errorBody) error {
	status := eb.status
	if status == 0 {
		status = resp.StatusCode
	}
	api := &llm.APIError{Provider: provider, StatusCode: status, Type: eb.code, Message: llm.Redact(eb.msg, m.cfg.APIKey),
		RequestID: resp.Header.Get("x-request-id"), RetryAfter: llm.ParseRetryAfter(resp.Header, time.Now())}
	if api.Type == "" {
		api.Type = eb.typ
	}
	return sentinel(status, eb).With(api, "openaicompat")
}

// sentinel classifies an error: by what the body says where it is
// specific, else by status; an error inside a 200 stream without a status
// of its own is a server error unless its type says the request was bad.
func sentinel(status int, eb *errorBody) *forge.Error {
	kind := eb.code + " " + eb.typ
	msg := strings.ToLower(eb.msg)
	switch {
	case strings.Contains(kind, "context_length_exceeded") || strings.Contains(msg, "context length") ||
		strings.Contains(msg, "context window") || strings.Contains(msg, "maximum context"):
		return llm.ErrContextLength
	case strings.Contains(kind, "rate_limit") || strings.Contains(kind, "insufficient_quota"):
		return llm.ErrRateLimited
	case strings.Contains(kind, "overloaded"):
		return llm.ErrOverloaded
	case status/100 != 2:
		return llm.StatusSentinel(status)
	case strings.Contains(kind, "invalid_request"):
		return llm.ErrBadRequest
	case strings.Contains(kind, "authentication") || strings.Contains(kind, "invalid_api_key"):
		return llm.ErrAuth
	}
	return llm.ErrServer
}

func protocolErr(msg string) error { return llm.ErrProtocol.With(nil, "openaicompat: %s", msg) }

func incompleteErr() error {
	return llm.ErrTruncated.With(nil, "openaicompat: the stream ended without [DONE] or a finish reason")
}
