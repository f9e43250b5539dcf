package openaicompat

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

const secretKey = "sk-test-SECRET-0123456789"

func TestErrors(t *testing.T) {
	jsonReply := func(status int, body string, header http.Header) reply {
		return reply{Status: status, ContentType: "application/json", Body: body, Header: header}
	}
	tests := []struct {
		name       string
		reply      reply
		want       error
		retryAfter time.Duration
		apiType    string
	}{
		{"429 with Retry-After", jsonReply(429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, http.Header{"Retry-After": {"7"}}),
			llm.ErrRateLimited, 7 * time.Second, "rate_limit_exceeded"},
		{"401", jsonReply(401, `{"error":{"message":"Incorrect API key provided: `+secretKey+`","type":"invalid_request_error","code":"invalid_api_key"}}`, nil),
			llm.ErrAuth, 0, "invalid_api_key"},
		{"403", jsonReply(403, `{"error":{"message":"forbidden"}}`, nil), llm.ErrAuth, 0, ""},
		{"400", jsonReply(400, `{"error":{"message":"Unknown parameter","type":"invalid_request_error","param":"x","code":"unknown_parameter"}}`, nil),
			llm.ErrBadRequest, 0, "unknown_parameter"},
		{"context length", jsonReply(400, `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, nil),
			llm.ErrContextLength, 0, "context_length_exceeded"},
		{"500 plain text", reply{Status: 500, ContentType: "text/plain", Body: "upstream failed"}, llm.ErrServer, 0, ""},
		{"529", jsonReply(529, `{"error":{"message":"Overloaded"}}`, nil), llm.ErrOverloaded, 0, ""},
		{"503 retry-after-ms", jsonReply(503, `{"error":{"message":"busy"}}`, http.Header{"Retry-After-Ms": {"1500"}}), llm.ErrServer, 1500 * time.Millisecond, ""},
		{"JSON error answering a stream request", jsonReply(200, `{"error":{"message":"model not found","type":"invalid_request_error"}}`, nil),
			llm.ErrBadRequest, 0, "invalid_request_error"},
		{"error object mid-stream without event name", sseReply(`data: {"choices":[{"index":0,"delta":{"content":"a"}}]}` + "\n\n" + `data: {"error":{"message":"boom","type":"server_error"}}` + "\n\n"),
			llm.ErrServer, 0, "server_error"},
		{"stream ends without [DONE] or finish", sseReply(`data: {"choices":[{"index":0,"delta":{"content":"a"}}]}` + "\n\n"),
			llm.ErrTruncated, 0, ""},
		{"malformed chunk", sseReply("data: {\"choices\":[\n\n"), llm.ErrProtocol, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.reply)
			got := run(t, newModel(t, Config{BaseURL: s.URL, APIKey: secretKey}), nil)
			wiretest.CheckFailure(t, got, tt.want, tt.retryAfter, secretKey)
			var api *llm.APIError
			if errors.As(got.Err, &api) && api.Type != tt.apiType {
				t.Errorf("APIError.Type = %q, want %q", api.Type, tt.apiType)
			}
			if h := s.Header(0).Get("Authorization"); h != "Bearer "+secretKey {
				t.Errorf("Authorization = %q", h)
			}
		})
	}
}

func TestTransportErrors(t *testing.T) {
	m := newModel(t, Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: secretKey})
	got := run(t, m, nil)
	if !errors.Is(got.Err, llm.ErrTransport) || !llm.Retryable(got.Err) {
		t.Fatalf("refused connection: err = %v, want ErrTransport", got.Err)
	}
	wiretest.CheckCancelled(t, newModel(t, Config{BaseURL: "http://127.0.0.1:1/v1"}))
}

func TestTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := wiretest.Hang{Head: []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n")}
		m := newModel(t, Config{BaseURL: "http://model.invalid/v1", IdleTimeout: time.Second, HTTPClient: &http.Client{Transport: hang}})
		got := run(t, m, nil)
		if !errors.Is(got.Err, llm.ErrTimeout) || got.Text != "a" {
			t.Fatalf("idle: %v", got)
		}
		m = newModel(t, Config{BaseURL: "http://model.invalid/v1", RequestTimeout: time.Second,
			HTTPClient: &http.Client{Transport: wiretest.Hang{NoHeaders: true}}})
		if got := run(t, m, nil); !errors.Is(got.Err, llm.ErrTimeout) {
			t.Fatalf("request: %v", got)
		}
	})
}

func TestConsumerStops(t *testing.T) {
	s := newServer(t, sseReply(fixture(t, "openai-chat-stream-parallel-tools.sse")))
	m := newModel(t, Config{BaseURL: s.URL})
	n := 0
	for _, err := range m.Stream(context.Background(), &llm.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("parts read = %d", n)
	}
}
