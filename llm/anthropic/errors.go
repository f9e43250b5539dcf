package anthropic

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
const provider = "anthropic"

var errMalformed = errors.New("malformed JSON")

// sentinels type the failures of the call itself (see [wire.Failure]).
var sentinels = wire.Sentinels{Timeout: llm.ErrTimeout, Protocol: llm.ErrProtocol, Transport: llm.ErrTransport}

// statusErr types a non-2xx answer from its status and error body.
func (m *Model) statusErr(resp *http.Response, raw []byte) error {
	eb := &errorBody{}
	if e := gjson.GetBytes(raw, "error"); e.IsObject() {
		eb = parseError(e)
		eb.requestID = gjson.GetBytes(raw, "request_id").String()
	} else {
		eb.msg = strings.TrimSpace(string(raw))
	}
	return m.bodyErr(resp, eb)
}

// bodyErr types an error body or an error event (status 200).
func (m *Model) bodyErr(resp *http.Response, eb *errorBody) error {
	api := &llm.APIError{Provider: provider, StatusCode: resp.StatusCode, Type: eb.typ,
		Message: llm.Redact(eb.msg, m.cfg.APIKey), RequestID: eb.requestID,
		RetryAfter: llm.ParseRetryAfter(resp.Header, time.Now())}
	if api.RequestID == "" {
		api.RequestID = resp.Header.Get("request-id")
	}
	return sentinel(resp.StatusCode, eb).With(api, "anthropic")
}

// sentinel classifies an error by its type where that is specific (it is
// the only clue inside a stream), else by status.
func sentinel(status int, eb *errorBody) *forge.Error {
	switch eb.typ {
	case "rate_limit_error":
		return llm.ErrRateLimited
	case "overloaded_error":
		return llm.ErrOverloaded
	case "authentication_error", "permission_error", "billing_error":
		return llm.ErrAuth
	case "timeout_error":
		return llm.ErrTimeout
	case "api_error":
		return llm.ErrServer
	case "invalid_request_error", "request_too_large", "not_found_error":
		msg := strings.ToLower(eb.msg)
		if strings.Contains(msg, "prompt is too long") || strings.Contains(msg, "context window") || strings.Contains(msg, "context length") {
			return llm.ErrContextLength
		}
		return llm.ErrBadRequest
	}
	if status/100 != 2 {
		return llm.StatusSentinel(status)
	}
	return llm.ErrServer
}

func protocolErr(msg string) error { return llm.ErrProtocol.With(nil, "anthropic: %s", msg) }

func incompleteErr() error {
	return llm.ErrTruncated.With(nil, "anthropic: the stream ended without message_stop or a stop reason")
}
