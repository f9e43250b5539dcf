package wiretest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

// CallSpec is a completed tool call of a test timeline.
type CallSpec struct {
	ID, Tool, Args, Result string
	IsError                bool
	// Payload and Compat are the call's replay data; "" for none.
	Payload, Compat string
}

// ToolCall is the timeline entry of a completed call with its result.
func ToolCall(t testing.TB, c CallSpec) dispatch.Entry {
	t.Helper()
	sum, err := canonical.Checksum(c.Tool, json.RawMessage(c.Args))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	raw := forge.RawToolCall{ID: c.ID, Tool: c.Tool, Args: json.RawMessage(c.Args), Checksum: sum,
		Results: forge.NewTokenizable(c.Result), IsComplete: true, IsError: c.IsError, CreatedAt: now, CompletedAt: now,
		ReplayCompatibility: c.Compat}
	if c.Payload != "" {
		raw.Payload = json.RawMessage(c.Payload)
	}
	call, err := forge.NewToolCall(raw)
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Entry{ToolCall: call}
}

// UserMessage is the timeline entry of a user message.
func UserMessage(t testing.TB, id, text string) dispatch.Entry {
	t.Helper()
	m, err := dispatch.NewMessage(dispatch.RawMessage{ID: id, Role: dispatch.RoleUser, Content: forge.NewTokenizable(text)})
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Entry{Message: m}
}

// Exchange is one recorded request and its response, as the fixtures'
// wrapper stores them. A body is a JSON string (the bytes sent) or a JSON
// value (its meaning only); [BodyText] reads either.
type Exchange struct {
	Request struct {
		URL  string          `json:"url"`
		Body json.RawMessage `json:"body"`
	} `json:"request"`
	Response struct {
		Status      int             `json:"status"`
		ContentType string          `json:"content_type"`
		Body        json.RawMessage `json:"body"`
	} `json:"response"`
}

// LoadExchanges reads the recorded exchanges of testdata/name, and their
// responses as replies for [NewServer].
func LoadExchanges(t testing.TB, name string) ([]Exchange, []Reply) {
	t.Helper()
	var wrapper struct {
		Exchanges []Exchange `json:"exchanges"`
	}
	if err := json.Unmarshal([]byte(Fixture(t, name)), &wrapper); err != nil {
		t.Fatal(err)
	}
	var replies []Reply
	for _, e := range wrapper.Exchanges {
		replies = append(replies, Reply{Status: e.Response.Status, ContentType: e.Response.ContentType, Body: BodyText(e.Response.Body)})
	}
	return wrapper.Exchanges, replies
}

// BodyText is a recorded body as sent: a JSON string's value, or the JSON
// itself.
func BodyText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
