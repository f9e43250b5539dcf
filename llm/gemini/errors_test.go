package gemini

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

const secretKey = "AIzaSy-test-SECRET-0123456789"

func googleError(code int, status, msg, details string) string {
	return `{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `","status":"` + status + `"` + details + `}}`
}

func TestErrors(t *testing.T) {
	jsonReply := func(status int, body string, header http.Header) reply {
		return reply{Status: status, ContentType: "application/json; charset=UTF-8", Body: body, Header: header}
	}
	retryInfo := `,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]`
	badKey := `,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]`
	tests := []struct {
		name       string
		reply      reply
		want       error
		retryAfter time.Duration
	}{
		{"429 with RetryInfo", jsonReply(429, googleError(429, "RESOURCE_EXHAUSTED", "quota", retryInfo), nil), llm.ErrRateLimited, 37 * time.Second},
		{"429 Retry-After wins", jsonReply(429, googleError(429, "RESOURCE_EXHAUSTED", "quota", retryInfo), http.Header{"Retry-After": {"3"}}), llm.ErrRateLimited, 3 * time.Second},
		{"429 as an array", jsonReply(429, "["+googleError(429, "RESOURCE_EXHAUSTED", "quota", "")+"]", nil), llm.ErrRateLimited, 0},
		{"invalid key is a 400", jsonReply(400, googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key. "+secretKey, badKey), nil), llm.ErrAuth, 0},
		{"403", jsonReply(403, googleError(403, "PERMISSION_DENIED", "denied", ""), nil), llm.ErrAuth, 0},
		{"400", jsonReply(400, googleError(400, "INVALID_ARGUMENT", "bad", ""), nil), llm.ErrBadRequest, 0},
		{"404 model", jsonReply(404, googleError(404, "NOT_FOUND", "models/x is not found", ""), nil), llm.ErrBadRequest, 0},
		{"context length", jsonReply(400, googleError(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", ""), nil), llm.ErrContextLength, 0},
		{"500", jsonReply(500, googleError(500, "INTERNAL", "An internal error has occurred.", ""), nil), llm.ErrServer, 0},
		{"503 overloaded", jsonReply(503, googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.", ""), nil), llm.ErrOverloaded, 0},
		{"504 deadline", jsonReply(504, googleError(504, "DEADLINE_EXCEEDED", "Deadline expired.", ""), nil), llm.ErrTimeout, 0},
		{"502 HTML", reply{Status: 502, ContentType: "text/html", Body: "<html>bad gateway</html>"}, llm.ErrServer, 0},
		{"error inside the stream", sseReply(frame(chunk(`{"text":"a"}`, "", ""), googleError(429, "RESOURCE_EXHAUSTED", "quota", ""))), llm.ErrRateLimited, 0},
		{"stream cut without a finish reason", sseReply(frame(chunk(`{"text":"a"}`, "", ""))), llm.ErrTruncated, 0},
		{"not JSON", sseReply("data: {\"candidates\": [\r\n\r\n"), llm.ErrProtocol, 0},
		{"blocked prompt", sseReply(frame(`{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":8}}`)), llm.ErrBadRequest, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.reply)
			got := run(t, newModel(t, Config{BaseURL: s.URL, APIKey: secretKey}), nil)
			wiretest.CheckFailure(t, got, tt.want, tt.retryAfter, secretKey)
			if h := s.Header(0); h.Get("x-goog-api-key") != secretKey {
				t.Errorf("headers: %v", h)
			}
		})
	}
}

func TestTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := wiretest.Hang{Head: []byte("data: " + chunk(`{"text":"a"}`, "", "") + "\r\n\r\n")}
		m := newModel(t, Config{IdleTimeout: time.Second, HTTPClient: &http.Client{Transport: hang}})
		if got := run(t, m, nil); !errors.Is(got.Err, llm.ErrTimeout) || got.Text != "a" {
			t.Fatalf("idle: %v", got)
		}
		m = newModel(t, Config{RequestTimeout: time.Second, HTTPClient: &http.Client{Transport: wiretest.Hang{NoHeaders: true}}})
		if got := run(t, m, nil); !errors.Is(got.Err, llm.ErrTimeout) {
			t.Fatalf("request: %v", got)
		}
	})
}

func TestCancelled(t *testing.T) {
	wiretest.CheckCancelled(t, newModel(t, Config{BaseURL: "http://127.0.0.1:1"}))
}

func TestTransportErrorHidesKey(t *testing.T) {
	got := run(t, newModel(t, Config{BaseURL: "http://127.0.0.1:1/" + secretKey, APIKey: secretKey}), nil)
	wiretest.CheckFailure(t, got, llm.ErrTransport, 0, secretKey)
}
