package dispatch

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
)

// Role is who authored a [Message]. There is no system or tool role: the
// system prompt and tool results travel separately.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// RawMessage is the unvalidated input of [NewMessage].
type RawMessage struct {
	ID          string
	Role        Role
	Content     *forge.Tokenizable
	Attachments []*media.Media
	CreatedAt   time.Time // zero means now
	UpdatedAt   time.Time // zero means CreatedAt
}

// Message is one user or assistant message of a turn. Immutable; build a
// new one with the same ID and call Context.Save to change it.
type Message struct {
	id          string
	role        Role
	content     *forge.Tokenizable
	attachments []*media.Media
	createdAt   time.Time
	updatedAt   time.Time
}

// NewMessage validates raw: a non-empty ID, a user or assistant Role, and
// Content or at least one attachment. A failure is ErrInvalidInitialMessage
// naming every field at fault.
func NewMessage(raw RawMessage) (*Message, error) {
	var p []string
	if raw.ID == "" {
		p = append(p, "id: required")
	}
	if raw.Role != RoleUser && raw.Role != RoleAssistant {
		p = append(p, `role: must be "user" or "assistant"`)
	}
	if raw.Content == nil && len(raw.Attachments) == 0 {
		p = append(p, "content: required unless attachments are given")
	}
	for _, a := range raw.Attachments {
		if a == nil {
			p = append(p, "attachments: nil entry")
			break
		}
	}
	if len(p) > 0 {
		return nil, ErrInvalidInitialMessage.With(nil, "dispatch: invalid message: %s", strings.Join(p, "; "))
	}
	created, updated := timestamps(raw.CreatedAt, raw.UpdatedAt)
	return &Message{id: raw.ID, role: raw.Role, content: raw.Content,
		attachments: append([]*media.Media(nil), raw.Attachments...), createdAt: created, updatedAt: updated}, nil
}

// ID is the message id (for assistant messages, the stream id).
func (m *Message) ID() string { return m.id }

// Role is user or assistant.
func (m *Message) Role() Role { return m.role }

// Content is the text, or nil for an attachments-only message.
func (m *Message) Content() *forge.Tokenizable { return m.content }

// Text is Content's text ("" when nil).
func (m *Message) Text() string { return m.content.String() }

// Attachments returns a copy of the attached media.
func (m *Message) Attachments() []*media.Media { return append([]*media.Media(nil), m.attachments...) }

// CreatedAt is when the message was created.
func (m *Message) CreatedAt() time.Time { return m.createdAt }

// UpdatedAt is when the message last changed.
func (m *Message) UpdatedAt() time.Time { return m.updatedAt }

// plainText is the ReplayCompatibility tag of a thought that holds plain
// text only and can be replayed to any model.
const plainText = "plain-text"

// RawThought is the unvalidated input of [NewThought].
type RawThought struct {
	ID      string
	Content *forge.Tokenizable
	// Payload is opaque vendor data (a signature, redacted thinking); when set,
	// ReplayCompatibility is required and Content may be empty.
	Payload json.RawMessage
	// ReplayCompatibility tags the thought for replay filtering (see
	// [Thought.Replayable]). Without a Payload it is optional: "" or
	// "plain-text" lets any model take the thought, any other tag limits it
	// to adapters accepting that tag, as for an opaque thought.
	ReplayCompatibility string
	CreatedAt           time.Time // zero means now
	UpdatedAt           time.Time // zero means CreatedAt
}

// Thought is model reasoning kept for display and replay. Immutable.
type Thought struct {
	id                  string
	content             *forge.Tokenizable
	payload             json.RawMessage
	replayCompatibility string
	createdAt           time.Time
	updatedAt           time.Time
}

// NewThought validates raw: a non-empty ID; with a Payload (opaque mode) a
// ReplayCompatibility tag; without one (plain mode) a Content. As in the
// original, a Tokenizable counts as present without being evaluated: its
// text is never checked, so an empty one is accepted. (A dynamic one could
// not be checked up front anyway, and a streamed thought block may end
// with no text.) A failure is ErrInvalidInitialThought naming every field
// at fault.
func NewThought(raw RawThought) (*Thought, error) {
	var p []string
	if raw.ID == "" {
		p = append(p, "id: required")
	}
	opaque := len(raw.Payload) > 0 && string(raw.Payload) != "null"
	if opaque {
		if raw.ReplayCompatibility == "" {
			p = append(p, "replayCompatibility: required with a payload")
		}
		if !json.Valid(raw.Payload) {
			p = append(p, "payload: not valid JSON")
		}
	} else if raw.Content == nil {
		p = append(p, "content: required without a payload")
	}
	if len(p) > 0 {
		return nil, ErrInvalidInitialThought.With(nil, "dispatch: invalid thought: %s", strings.Join(p, "; "))
	}
	content := raw.Content
	if content == nil {
		content = forge.NewTokenizable("")
	}
	created, updated := timestamps(raw.CreatedAt, raw.UpdatedAt)
	var payload json.RawMessage
	if opaque {
		payload = append(json.RawMessage(nil), raw.Payload...)
	}
	return &Thought{id: raw.ID, content: content, payload: payload,
		replayCompatibility: raw.ReplayCompatibility, createdAt: created, updatedAt: updated}, nil
}

// ID is the thought id.
func (t *Thought) ID() string { return t.id }

// Content is the reasoning text; never nil (empty for opaque thoughts).
func (t *Thought) Content() *forge.Tokenizable { return t.content }

// Payload is the opaque vendor data, or nil.
func (t *Thought) Payload() json.RawMessage { return bytes.Clone(t.payload) }

// ReplayCompatibility tags the thought for replay filtering.
func (t *Thought) ReplayCompatibility() string { return t.replayCompatibility }

// Replayable reports whether an adapter accepting the tags in compat may
// send the thought back: a thought without a payload tagged "" or
// "plain-text" always; any other only when its tag is listed. That includes
// a thought without a payload carrying a vendor tag (its text may be
// vendor-specific reasoning): the tag, not the payload, decides.
func (t *Thought) Replayable(compat ...string) bool {
	if t.payload == nil && (t.replayCompatibility == "" || t.replayCompatibility == plainText) {
		return true
	}
	for _, c := range compat {
		if c == t.replayCompatibility {
			return true
		}
	}
	return false
}

// CreatedAt is when the thought was created.
func (t *Thought) CreatedAt() time.Time { return t.createdAt }

// UpdatedAt is when the thought last changed.
func (t *Thought) UpdatedAt() time.Time { return t.updatedAt }

// EntryKind tells which field of an [Entry] is set; it is also the
// "kind" of the entry's JSON form.
type EntryKind string

// Entry kinds.
const (
	EntryNone     EntryKind = "" // no field set, or more than one
	EntryMessage  EntryKind = "message"
	EntryThought  EntryKind = "thought"
	EntryToolCall EntryKind = "toolCall"
)

// Entry is one item of a turn's timeline: exactly one of Message, Thought or
// ToolCall is set. The timeline keeps them in the order they happened, which
// is the order a model must see them in.
type Entry struct {
	Message  *Message
	Thought  *Thought
	ToolCall *forge.ToolCall
	// ResponseID is the id of the model response that produced the entry
	// (its thoughts, text and tool calls, in the order it streamed them),
	// so an adapter regroups them into one assistant message exactly; ""
	// for entries no response produced (user messages, notes). It is
	// metadata of the timeline, not of the value: replacing an entry in
	// place with an Entry whose ResponseID is "" keeps the old one.
	ResponseID string
	// Executed marks a tool call the dispatch ran, as opposed to one it
	// refused (blocked, denied, cut off); the dispatch sets it on the
	// entries it saves. Stores keep it: a resumed turn counts its executed
	// calls against the loop guard.
	Executed bool
}

// Kind reports which field is set (EntryNone for an empty or ambiguous entry).
func (e Entry) Kind() EntryKind {
	n, k := 0, EntryNone
	if e.Message != nil {
		n, k = n+1, EntryMessage
	}
	if e.Thought != nil {
		n, k = n+1, EntryThought
	}
	if e.ToolCall != nil {
		n, k = n+1, EntryToolCall
	}
	if n != 1 {
		return EntryNone
	}
	return k
}

// ID is the id of whichever value is set.
func (e Entry) ID() string {
	switch e.Kind() {
	case EntryMessage:
		return e.Message.ID()
	case EntryThought:
		return e.Thought.ID()
	case EntryToolCall:
		return e.ToolCall.ID()
	}
	return ""
}

// timestamps fills in an entry's zero times: created defaults to now and
// updated to created.
func timestamps(created, updated time.Time) (time.Time, time.Time) {
	if created.IsZero() {
		created = time.Now()
	}
	if updated.IsZero() {
		updated = created
	}
	return created, updated
}
