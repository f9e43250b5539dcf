package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
)

func TestStatusSentinel(t *testing.T) {
	tests := []struct {
		status int
		want   *forge.Error
		retry  bool
	}{
		{429, llm.ErrRateLimited, true},
		{401, llm.ErrAuth, false},
		{402, llm.ErrAuth, false},
		{403, llm.ErrAuth, false},
		{400, llm.ErrBadRequest, false},
		{404, llm.ErrBadRequest, false},
		{413, llm.ErrBadRequest, false},
		{408, llm.ErrTimeout, true},
		{504, llm.ErrTimeout, true},
		{500, llm.ErrServer, true},
		{502, llm.ErrServer, true},
		{503, llm.ErrServer, true},
		{529, llm.ErrOverloaded, true},
		{200, llm.ErrProtocol, false},
	}
	for _, tt := range tests {
		err := llm.StatusError(&llm.APIError{Provider: "p", StatusCode: tt.status, Type: "t", Message: "m"})
		if !errors.Is(err, tt.want) {
			t.Errorf("status %d: %v is not %s", tt.status, err, tt.want.Code)
		}
		if got := llm.Retryable(err); got != tt.retry {
			t.Errorf("status %d: Retryable = %v, want %v", tt.status, got, tt.retry)
		}
		var api *llm.APIError
		if !errors.As(err, &api) || api.StatusCode != tt.status {
			t.Errorf("status %d: the APIError is not reachable with errors.As", tt.status)
		}
	}
}

func TestRetryableOthers(t *testing.T) {
	for _, err := range []error{nil, context.Canceled, context.DeadlineExceeded, errors.New("x"),
		llm.ErrContextLength.With(nil, "too long"), llm.ErrProtocol.With(nil, "bad json")} {
		if llm.Retryable(err) {
			t.Errorf("Retryable(%v) = true", err)
		}
	}
	for _, err := range []error{llm.ErrTransport.With(errors.New("connection refused"), "dial"),
		llm.ErrTruncated.With(nil, "no [DONE]"), fmt.Errorf("wrapped: %w", llm.ErrOverloaded.With(nil, "busy"))} {
		if !llm.Retryable(err) {
			t.Errorf("Retryable(%v) = false", err)
		}
	}
}

func TestAPIErrorText(t *testing.T) {
	err := llm.ErrRateLimited.With(&llm.APIError{Provider: "anthropic", StatusCode: 429, Type: "rate_limit_error",
		Message: "slow down", RequestID: "req_1", RetryAfter: time.Second}, "model call failed")
	want := "E_LLM_RATE_LIMITED: model call failed: anthropic: status 429 rate_limit_error: slow down (request req_1)"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err.Error(), want)
	}
	if got := llm.RetryAfter(err); got != time.Second {
		t.Errorf("RetryAfter = %v", got)
	}
	if got := llm.RetryAfter(errors.New("plain")); got != 0 {
		t.Errorf("RetryAfter(plain) = %v", got)
	}
}

func TestRedact(t *testing.T) {
	got := llm.Redact("invalid key sk-123 (sk-123)", "", "sk-123")
	if got != "invalid key [redacted] ([redacted])" {
		t.Errorf("got %q", got)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{"milliseconds first", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"7"}}, 250 * time.Millisecond},
		{"bad milliseconds fall back", http.Header{"Retry-After-Ms": {"soon"}, "Retry-After": {"2"}}, 2 * time.Second},
		{"http date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"date in the past", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0},
		{"garbage", http.Header{"Retry-After": {"tomorrow"}}, 0},
		{"huge is capped", http.Header{"Retry-After": {"1e12"}}, 24 * time.Hour},
	}
	for _, tt := range tests {
		if got := llm.ParseRetryAfter(tt.h, now); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
