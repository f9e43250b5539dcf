package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
)

// The JSON forms of timeline entries. Times are written in UTC with
// nanoseconds, as forge.ToolCall's are, so the instant round-trips exactly.
type messageJSON struct {
	ID          string           `json:"id"`
	Role        Role             `json:"role"`
	Content     *string          `json:"content"`
	Attachments []media.Metadata `json:"attachments,omitempty"`
	CreatedAt   time.Time        `json:"createdAt"`
	UpdatedAt   time.Time        `json:"updatedAt"`
}

type thoughtJSON struct {
	ID                  string          `json:"id"`
	Content             string          `json:"content"`
	Payload             json.RawMessage `json:"payload,omitempty"`
	ReplayCompatibility string          `json:"replayCompatibility,omitempty"`
	CreatedAt           time.Time       `json:"createdAt"`
	UpdatedAt           time.Time       `json:"updatedAt"`
}

type entryJSON struct {
	Kind     string          `json:"kind"`
	Message  json.RawMessage `json:"message,omitempty"`
	Thought  json.RawMessage `json:"thought,omitempty"`
	ToolCall json.RawMessage `json:"toolCall,omitempty"`
	// ResponseID is Entry.ResponseID.
	ResponseID string `json:"responseId,omitempty"`
	// Executed is Entry.Executed.
	Executed bool `json:"executed,omitempty"`
}

// MarshalJSON writes {id, role, content, attachments, createdAt,
// updatedAt}: content is the text (a dynamic Tokenizable rendered with a nil
// scope) or null, attachments are media records (metadata plus the reader's
// descriptor when the reader can describe itself, never the bytes). Decode it
// with [UnmarshalEntry] (inside an Entry).
func (m *Message) MarshalJSON() ([]byte, error) {
	j := messageJSON{ID: m.id, Role: m.role, CreatedAt: m.createdAt.UTC(), UpdatedAt: m.updatedAt.UTC()}
	if m.content != nil {
		s, err := m.content.Render(nil)
		if err != nil {
			return nil, err
		}
		j.Content = &s
	}
	for _, a := range m.attachments {
		rec, err := a.Record()
		if err != nil {
			rec = a.Metadata() // resolved by id on decode
		}
		j.Attachments = append(j.Attachments, rec)
	}
	return json.Marshal(j)
}

// unmarshalMessage decodes [Message.MarshalJSON]'s form and validates it as
// [NewMessage] does. An attachment whose record carries a reader descriptor
// is rebuilt with media.FromRecord; any other is looked up by id through
// res (which may be nil when there is none). Every failure matches
// [ErrInvalidInitialMessage].
func unmarshalMessage(ctx context.Context, data []byte, res forge.ResultResolver) (*Message, error) {
	var j messageJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, ErrInvalidInitialMessage.With(err, "dispatch: decode message")
	}
	raw := RawMessage{ID: j.ID, Role: j.Role, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt}
	if j.Content != nil {
		raw.Content = forge.NewTokenizable(*j.Content)
	}
	for _, rec := range j.Attachments {
		var m *media.Media
		var err error
		switch {
		case rec.Reader != nil:
			m, err = media.FromRecord(rec, nil)
		case res != nil:
			m, err = res.ResolveMedia(ctx, rec.ID)
		default:
			return nil, ErrInvalidInitialMessage.With(nil, "dispatch: decode message %q: attachment %q has no reader and no resolver was given", j.ID, rec.ID)
		}
		if err != nil {
			return nil, ErrInvalidInitialMessage.With(err, "dispatch: decode message %q: attachment %q", j.ID, rec.ID)
		}
		raw.Attachments = append(raw.Attachments, m)
	}
	if raw.CreatedAt.IsZero() {
		return nil, ErrInvalidInitialMessage.With(nil, "dispatch: decode message %q: createdAt: required", j.ID)
	}
	return NewMessage(raw)
}

// MarshalJSON writes {id, content, payload, replayCompatibility, createdAt,
// updatedAt}; decode it with [UnmarshalEntry] (inside an Entry).
func (t *Thought) MarshalJSON() ([]byte, error) {
	s, err := t.content.Render(nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(thoughtJSON{ID: t.id, Content: s, Payload: t.payload,
		ReplayCompatibility: t.replayCompatibility, CreatedAt: t.createdAt.UTC(), UpdatedAt: t.updatedAt.UTC()})
}

// unmarshalThought decodes [Thought.MarshalJSON]'s form and validates it as
// [NewThought] does; every failure matches [ErrInvalidInitialThought].
func unmarshalThought(data []byte) (*Thought, error) {
	var j thoughtJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, ErrInvalidInitialThought.With(err, "dispatch: decode thought")
	}
	if j.CreatedAt.IsZero() {
		return nil, ErrInvalidInitialThought.With(nil, "dispatch: decode thought %q: createdAt: required", j.ID)
	}
	var payload json.RawMessage
	if len(j.Payload) > 0 {
		// Compact so the bytes survive a round trip whatever json.Marshal
		// did to the whitespace of the embedded value.
		var b bytes.Buffer
		if err := json.Compact(&b, j.Payload); err != nil {
			return nil, ErrInvalidInitialThought.With(err, "dispatch: decode thought %q: payload", j.ID)
		}
		payload = b.Bytes()
	}
	return NewThought(RawThought{ID: j.ID, Content: forge.NewTokenizable(j.Content), Payload: payload,
		ReplayCompatibility: j.ReplayCompatibility, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt})
}

// MarshalJSON writes {"kind": "message"|"thought"|"toolCall", <kind>: the
// value's own form, "responseId" when set, "executed": true for a tool
// call the dispatch executed}. An entry holding no value, or more than one, is
// [ErrStore]. Decode it with [UnmarshalEntry].
func (e Entry) MarshalJSON() ([]byte, error) {
	var j entryJSON
	var err error
	switch e.Kind() {
	case EntryMessage:
		j.Message, err = e.Message.MarshalJSON()
	case EntryThought:
		j.Thought, err = e.Thought.MarshalJSON()
	case EntryToolCall:
		j.ToolCall, err = e.ToolCall.MarshalJSON()
	default:
		return nil, ErrStore.With(nil, "dispatch: encode entry: it must hold exactly one value")
	}
	if err != nil {
		return nil, err
	}
	j.Kind = string(e.Kind())
	j.ResponseID = e.ResponseID
	j.Executed = e.Executed && e.ToolCall != nil
	return json.Marshal(j)
}

// UnmarshalEntry decodes [Entry.MarshalJSON]'s form. res resolves the
// artifact and media references of tool calls and attachments (see
// forge.UnmarshalToolCall and spooledartifact.Resolver); it may be nil
// when there are none. The error is the decoded kind's (ErrInvalidInitial…),
// or [ErrStore] for an unknown kind.
func UnmarshalEntry(ctx context.Context, data []byte, res forge.ResultResolver) (Entry, error) {
	var j entryJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return Entry{}, ErrStore.With(err, "dispatch: decode entry")
	}
	e := Entry{ResponseID: j.ResponseID, Executed: j.Executed && j.Kind == "toolCall"}
	var err error
	switch j.Kind {
	case "message":
		e.Message, err = unmarshalMessage(ctx, j.Message, res)
	case "thought":
		e.Thought, err = unmarshalThought(j.Thought)
	case "toolCall":
		e.ToolCall, err = forge.UnmarshalToolCall(ctx, j.ToolCall, res)
	default:
		return Entry{}, ErrStore.With(nil, "dispatch: decode entry: unknown kind %q", j.Kind)
	}
	if err != nil {
		return Entry{}, err
	}
	return e, nil
}
