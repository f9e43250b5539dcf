package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ebbforge/adk/examples/internal/modelenv"
)

// The quickstart runs on an OpenAI-compatible endpoint (a local fake
// server speaking the real wire).
func TestQuickstartOnEndpoint(t *testing.T) {
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Checkout fails "},"finish_reason":null}]}`+"\n\n")
		io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"because payments time out."},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	cfg := modelenv.Config{Provider: modelenv.OpenAI, BaseURL: srv.URL + "/v1", Model: "local-model"}
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"model: openai model local-model at " + srv.URL + "/v1", "Checkout fails because payments time out.", "turn completed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if !bytes.Contains(got, []byte(`"fetch_logs"`)) || !bytes.Contains(got, []byte(`"local-model"`)) {
		t.Errorf("request body lacks the tool or the model: %s", got)
	}
}

// An endpoint that refuses the key, or cannot be reached, ends the program
// with one line naming what to check, never the key.
func TestQuickstartEndpointFailures(t *testing.T) {
	refuse := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()

	tests := []struct {
		name string
		cfg  modelenv.Config
		want string
	}{
		{"openai refuses the key", modelenv.Config{Provider: modelenv.OpenAI, Model: "m", APIKey: "sk-test-secret",
			BaseURL: refuse(401, `{"error":{"message":"Incorrect API key provided: sk-test-secret","type":"invalid_request_error","code":"invalid_api_key"}}`)},
			"refused the credentials (ADK_API_KEY)"},
		{"anthropic refuses the key", modelenv.Config{Provider: modelenv.Anthropic, Model: "m", APIKey: "sk-test-secret",
			BaseURL: refuse(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}`)},
			"refused the credentials (ADK_API_KEY)"},
		{"unknown model", modelenv.Config{Provider: modelenv.OpenAI, Model: "nope",
			BaseURL: refuse(404, `{"error":{"message":"model \"nope\" not found","type":"not_found_error"}}`)},
			"is nope a model it serves? (ADK_MODEL)"},
		{"nothing listening", modelenv.Config{Provider: modelenv.OpenAI, Model: "m", APIKey: "sk-test-secret", BaseURL: closed + "/v1"},
			"cannot reach " + closed + "/v1: is the server running? (ADK_BASE_URL)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), &out, tt.cfg)
			if err == nil {
				t.Fatalf("run succeeded:\n%s", out.String())
			}
			line := tt.cfg.Explain(err)
			if !strings.Contains(line, tt.want) || strings.ContainsAny(line, "\n\r") {
				t.Errorf("Explain = %q, want one line with %q", line, tt.want)
			}
			if strings.Contains(line+out.String(), "sk-test-secret") {
				t.Errorf("the key leaked:\n%s\n%s", line, out.String())
			}
		})
	}
}
