package forge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ebbforge/adk/media"
)

// Artifact is what forge needs from a spooled tool result. The
// spooledartifact package implements it; forge never imports it.
type Artifact interface {
	// ID is the store id the artifact's bytes live under (its reference in
	// the persisted form of a ToolCall).
	ID() string
	// Kind is the artifact kind's name, e.g. "SpooledArtifact".
	Kind() string
	// ByteLength is the size of the content in bytes.
	ByteLength(ctx context.Context) (int64, error)
	// LineCount is the number of lines ("" has 0; "a\nb\n" has 3).
	LineCount(ctx context.Context) (int, error)
}

// ArtifactKind names the artifact type a Tool's returned bytes are wrapped in.
// spooledartifact's kinds implement it; a media type never does.
type ArtifactKind interface {
	Name() string
}

// ResultKind tells which of the three result shapes a Results holds.
type ResultKind int

// The result shapes.
const (
	ResultNone ResultKind = iota
	ResultText
	ResultArtifacts
	ResultMedia
)

// Results is the outcome of a tool call: exactly one of a Tokenizable, one or
// more artifacts, or one or more media. The zero value holds nothing.
type Results struct {
	text      *Tokenizable
	artifacts []Artifact
	media     []*media.Media
}

// TextResults holds a Tokenizable (artifact-tool answers and error text).
func TextResults(t *Tokenizable) Results { return Results{text: t} }

// ArtifactResults holds one or more artifacts.
func ArtifactResults(a ...Artifact) Results { return Results{artifacts: a} }

// MediaResults holds one or more media.
func MediaResults(m ...*media.Media) Results { return Results{media: m} }

// Kind reports the shape held.
func (r Results) Kind() ResultKind {
	switch {
	case r.text != nil:
		return ResultText
	case len(r.artifacts) > 0:
		return ResultArtifacts
	case len(r.media) > 0:
		return ResultMedia
	}
	return ResultNone
}

// Text returns the Tokenizable, or nil.
func (r Results) Text() *Tokenizable { return r.text }

// Artifacts returns the artifacts, or nil.
func (r Results) Artifacts() []Artifact { return r.artifacts }

// Media returns the media, or nil.
func (r Results) Media() []*media.Media { return r.media }

// RawToolCall is the unvalidated input of NewToolCall.
type RawToolCall struct {
	ID       string
	Tool     string
	Args     any // map[string]any, a struct, string, []byte or json.RawMessage decoding to a JSON object
	Checksum string
	// Results is a Results, *Tokenizable, Artifact, []Artifact, *media.Media or []*media.Media.
	Results             any
	IsComplete          bool
	IsError             bool
	Inline              *bool // nil means true
	FromArtifactTool    bool
	CreatedAt           time.Time
	UpdatedAt           time.Time
	CompletedAt         time.Time
	Payload             json.RawMessage // vendor-opaque; requires ReplayCompatibility
	ReplayCompatibility string
}

// ToolCall is one resolved, immutable tool invocation.
type ToolCall struct {
	id, tool, checksum  string
	args                json.RawMessage
	results             Results
	isComplete, isError bool
	inline, fromArtTool bool
	createdAt           time.Time
	updatedAt           time.Time
	completedAt         time.Time
	payload             json.RawMessage
	replayCompatibility string
}

// NewToolCall validates raw and returns the ToolCall, or an error matching
// ErrInvalidInitialToolCallValue that names every field at fault.
func NewToolCall(raw RawToolCall) (*ToolCall, error) {
	return nil, ErrInvalidInitialToolCallValue.With(nil, "not implemented yet")
}

// ID is the provider's correlation key.
func (c *ToolCall) ID() string { return c.id }

// Tool is the tool name.
func (c *ToolCall) Tool() string { return c.tool }

// Args returns the arguments as canonical-ready JSON object text.
func (c *ToolCall) Args() json.RawMessage { return c.args }

// Checksum is canonical.Checksum(tool, args) as supplied at construction.
func (c *ToolCall) Checksum() string { return c.checksum }

// Results returns the call's results.
func (c *ToolCall) Results() Results { return c.results }

// IsComplete reports whether the call has settled.
func (c *ToolCall) IsComplete() bool { return c.isComplete }

// IsError reports whether the results are error text.
func (c *ToolCall) IsError() bool { return c.isError }

// Inline reports whether a spooled result is rendered in full (true) or as a handle.
func (c *ToolCall) Inline() bool { return c.inline }

// FromArtifactTool reports whether an ArtifactTool produced the call.
func (c *ToolCall) FromArtifactTool() bool { return c.fromArtTool }

// CreatedAt is when the call was created.
func (c *ToolCall) CreatedAt() time.Time { return c.createdAt }

// UpdatedAt is when the call was last updated.
func (c *ToolCall) UpdatedAt() time.Time { return c.updatedAt }

// CompletedAt is when the call settled.
func (c *ToolCall) CompletedAt() time.Time { return c.completedAt }

// Payload is the optional vendor payload.
func (c *ToolCall) Payload() json.RawMessage { return c.payload }

// ReplayCompatibility tags the payload for replay filtering.
func (c *ToolCall) ReplayCompatibility() string { return c.replayCompatibility }

// Raw returns a RawToolCall equal to c, to derive a changed copy with NewToolCall.
func (c *ToolCall) Raw() RawToolCall {
	inline := c.inline
	return RawToolCall{ID: c.id, Tool: c.tool, Args: c.args, Checksum: c.checksum, Results: c.results,
		IsComplete: c.isComplete, IsError: c.isError, Inline: &inline, FromArtifactTool: c.fromArtTool,
		CreatedAt: c.createdAt, UpdatedAt: c.updatedAt, CompletedAt: c.completedAt,
		Payload: c.payload, ReplayCompatibility: c.replayCompatibility}
}

// VerifyChecksum recomputes canonical.Checksum(tool, args) and returns
// ErrChecksumMismatch if it differs from Checksum.
func (c *ToolCall) VerifyChecksum() error { return nil }
