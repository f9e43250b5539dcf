package anthropic

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

const secretKey = "sk-ant-test-SECRET-0123456789"

func TestErrors(t *testing.T) {
	errorBody := func(typ, msg string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_1"}`
	}
	jsonReply := func(status int, body string, header http.Header) reply {
		return reply{Status: status, ContentType: "application/json", Body: body, Header: header}
	}
	tests := []struct {
		name       string
		reply      reply
		want       error
		retryAfter time.Duration
	}{
		{"429 with Retry-After", jsonReply(429, errorBody("rate_limit_error", "slow down"), http.Header{"Retry-After": {"3"}}), llm.ErrRateLimited, 3 * time.Second},
		{"401 plain JSON on a stream request", jsonReply(401, errorBody("authentication_error", "invalid x-api-key "+secretKey), nil), llm.ErrAuth, 0},
		{"403", jsonReply(403, errorBody("permission_error", "no"), nil), llm.ErrAuth, 0},
		{"400", jsonReply(400, errorBody("invalid_request_error", "bad"), nil), llm.ErrBadRequest, 0},
		{"context length", jsonReply(400, errorBody("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"), nil), llm.ErrContextLength, 0},
		{"500", jsonReply(500, errorBody("api_error", "Internal server error"), nil), llm.ErrServer, 0},
		{"529", jsonReply(529, errorBody("overloaded_error", "Overloaded"), nil), llm.ErrOverloaded, 0},
		{"502 HTML", reply{Status: 502, ContentType: "text/html", Body: "<html>bad gateway</html>"}, llm.ErrServer, 0},
		{"overloaded mid-stream", sseReply("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\nevent: error\ndata: " + errorBody("overloaded_error", "Overloaded") + "   \n\n"),
			llm.ErrOverloaded, 0},
		{"stream cut without message_stop", sseReply("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"),
			llm.ErrTruncated, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.reply)
			got := run(t, newModel(t, Config{BaseURL: s.URL, APIKey: secretKey}), nil)
			wiretest.CheckFailure(t, got, tt.want, tt.retryAfter, secretKey)
			h := s.Header(0)
			if h.Get("x-api-key") != secretKey || h.Get("anthropic-version") != DefaultVersion {
				t.Errorf("headers: %v", h)
			}
		})
	}
}

func TestTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := wiretest.Hang{Head: []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n")}
		m := newModel(t, Config{IdleTimeout: time.Second, HTTPClient: &http.Client{Transport: hang}})
		if got := run(t, m, nil); !errors.Is(got.Err, llm.ErrTimeout) {
			t.Fatalf("idle: %v", got)
		}
	})
}

func TestCancelled(t *testing.T) {
	wiretest.CheckCancelled(t, newModel(t, Config{BaseURL: "http://127.0.0.1:1"}))
}
