package forge

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ebbforge/adk/media"
)

// ResultResolver turns the references in a persisted ToolCall back into live
// results. spooledartifact.Resolver implements it over a spool store, with a
// media lookup the caller supplies.
type ResultResolver interface {
	// ResolveArtifact returns the artifact of the given kind stored under id.
	ResolveArtifact(ctx context.Context, kind, id string) (Artifact, error)
	// ResolveMedia returns the media stored under id.
	ResolveMedia(ctx context.Context, id string) (*media.Media, error)
}

// The persisted form of a ToolCall. Results are referenced, never inlined,
// except text, which is the answer itself.
type toolCallJSON struct {
	ID                  string          `json:"id"`
	Tool                string          `json:"tool"`
	Args                json.RawMessage `json:"args"`
	Checksum            string          `json:"checksum"`
	Results             resultsJSON     `json:"results"`
	IsComplete          bool            `json:"isComplete"`
	IsError             bool            `json:"isError"`
	Inline              *bool           `json:"inline,omitempty"`
	FromArtifactTool    bool            `json:"fromArtifactTool"`
	CreatedAt           time.Time       `json:"createdAt"`
	UpdatedAt           time.Time       `json:"updatedAt"`
	CompletedAt         *time.Time      `json:"completedAt,omitempty"`
	Payload             json.RawMessage `json:"payload,omitempty"`
	ReplayCompatibility string          `json:"replayCompatibility,omitempty"`
}

type resultsJSON struct {
	Kind      string        `json:"kind"` // text, artifacts or media
	Text      *string       `json:"text,omitempty"`
	Artifacts []artifactRef `json:"artifacts,omitempty"`
	Media     []mediaRef    `json:"media,omitempty"`
}

type artifactRef struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// mediaRef is the media's id plus descriptive metadata; only the id is used
// to resolve it.
type mediaRef struct {
	ID       string     `json:"id"`
	Kind     media.Kind `json:"kind,omitempty"`
	MIMEType string     `json:"mimeType,omitempty"`
	Filename string     `json:"filename,omitempty"`
}

// MarshalJSON writes the persisted form: text results inline (a dynamic
// Tokenizable rendered with a nil scope), artifacts as {kind, id} and media
// as {id, kind, mimeType, filename} references. Decode it with
// UnmarshalToolCall.
//
// Times are written in UTC (RFC 3339 with nanoseconds), so the instant comes
// back exactly but the zone does not: an offset with seconds (local mean
// time, e.g. Europe/Amsterdam in 1900 is +00:19:32) has no RFC 3339
// spelling, and writing it would move the instant. Older forms written with
// an offset still decode to the same instant.
//
// Args and payload are written as the same JSON value, not always the same
// bytes: json.Marshal escapes <, >, & and U+2028/U+2029 in a Marshaler's
// output, so "<" comes back as "\u003c". Undoing that on decode would also
// rewrite a "\u003c" the model wrote itself, so the bytes are left as they
// come; both spellings are the same value and have the same checksum.
//
// The receiver is a value so a ToolCall held by value (json.Marshal(*c), a
// struct field) encodes like a *ToolCall instead of as {}; a ToolCall holds
// no lock, so copying it is safe. The zero ToolCall, which NewToolCall never
// returns, is refused with ErrInvalidInitialToolCallValue rather than
// written as a form UnmarshalToolCall would reject.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	if c.id == "" {
		return nil, ErrInvalidInitialToolCallValue.With(nil, "forge: cannot encode a zero ToolCall: build it with forge.NewToolCall")
	}
	j := toolCallJSON{ID: c.id, Tool: c.tool, Args: c.args, Checksum: c.checksum,
		IsComplete: c.isComplete, IsError: c.isError, Inline: &c.inline, FromArtifactTool: c.fromArtTool,
		CreatedAt: c.createdAt.UTC(), UpdatedAt: c.updatedAt.UTC(), Payload: c.payload,
		ReplayCompatibility: c.replayCompatibility}
	if !c.completedAt.IsZero() {
		done := c.completedAt.UTC()
		j.CompletedAt = &done
	}
	j.Results.Kind = c.results.kind()
	switch j.Results.Kind {
	case "text":
		s, err := c.results.text.Render(nil)
		if err != nil {
			return nil, err
		}
		j.Results.Text = &s
	case "artifacts":
		for _, a := range c.results.artifacts {
			j.Results.Artifacts = append(j.Results.Artifacts, artifactRef{Kind: a.Kind(), ID: a.ID()})
		}
	case "media":
		for _, m := range c.results.media {
			j.Results.Media = append(j.Results.Media, mediaRef{ID: m.ID(), Kind: m.Kind(), MIMEType: m.MIMEType(), Filename: m.Filename()})
		}
	}
	return json.Marshal(j)
}

// UnmarshalToolCall decodes the persisted form written by MarshalJSON,
// resolving artifact and media references through res (which may be nil
// when the results are text), and re-runs NewToolCall's validation. Every
// failure matches ErrInvalidInitialToolCallValue; a resolver's error is kept
// as the cause.
func UnmarshalToolCall(ctx context.Context, data []byte, res ResultResolver) (*ToolCall, error) {
	var j toolCallJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, ErrInvalidInitialToolCallValue.With(err, "forge: decode tool call")
	}
	raw := RawToolCall{ID: j.ID, Tool: j.Tool, Checksum: j.Checksum, IsComplete: j.IsComplete,
		IsError: j.IsError, Inline: j.Inline, FromArtifactTool: j.FromArtifactTool,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, Payload: j.Payload,
		ReplayCompatibility: j.ReplayCompatibility}
	if j.Args != nil {
		raw.Args = j.Args
	}
	if j.CompletedAt != nil {
		raw.CompletedAt = *j.CompletedAt
	}
	needResolver := len(j.Results.Artifacts) > 0 || len(j.Results.Media) > 0
	if needResolver && res == nil {
		return nil, ErrInvalidInitialToolCallValue.With(nil, "forge: decode tool call %q: results reference stored %s but no resolver was given", j.ID, j.Results.Kind)
	}
	switch j.Results.Kind {
	case "text":
		if j.Results.Text == nil {
			return nil, ErrInvalidInitialToolCallValue.With(nil, "forge: decode tool call %q: text results without text", j.ID)
		}
		raw.Results = NewTokenizable(*j.Results.Text)
	case "artifacts":
		list := make([]Artifact, 0, len(j.Results.Artifacts))
		for _, ref := range j.Results.Artifacts {
			a, err := res.ResolveArtifact(ctx, ref.Kind, ref.ID)
			if err != nil {
				return nil, ErrInvalidInitialToolCallValue.With(err, "forge: decode tool call %q: resolve artifact %s %q", j.ID, ref.Kind, ref.ID)
			}
			list = append(list, a)
		}
		raw.Results = list
	case "media":
		list := make([]*media.Media, 0, len(j.Results.Media))
		for _, ref := range j.Results.Media {
			m, err := res.ResolveMedia(ctx, ref.ID)
			if err != nil {
				return nil, ErrInvalidInitialToolCallValue.With(err, "forge: decode tool call %q: resolve media %q", j.ID, ref.ID)
			}
			list = append(list, m)
		}
		raw.Results = list
	default:
		return nil, ErrInvalidInitialToolCallValue.With(nil, "forge: decode tool call %q: unknown results kind %q", j.ID, j.Results.Kind)
	}
	c, err := NewToolCall(raw)
	if err != nil {
		return nil, fmt.Errorf("forge: decode tool call: %w", err)
	}
	return c, nil
}
