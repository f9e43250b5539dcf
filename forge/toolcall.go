package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/internal/safetext"
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
	// LineCount is the number of lines ("" has 0; "a\nb" and "a\nb\n" have 2).
	LineCount(ctx context.Context) (int, error)
}

// ArtifactKind names the artifact type a Tool's returned bytes are wrapped in.
// spooledartifact's kinds implement it; a media type never does.
type ArtifactKind interface {
	Name() string
}

// Results is the outcome of a tool call: exactly one of a Tokenizable, one or
// more artifacts, or one or more media, so Text returning non-nil, or
// Artifacts or Media returning a non-empty list, tells which. The zero value
// holds nothing.
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

// kind names the shape r holds, as the persisted form writes it.
func (r Results) kind() string {
	switch {
	case r.text != nil:
		return "text"
	case len(r.artifacts) > 0:
		return "artifacts"
	case len(r.media) > 0:
		return "media"
	}
	return "none"
}

// Text returns the Tokenizable, or nil. In a ToolCall's Results it is the
// call's own, read-only copy (see NewToolCall): json.Unmarshal into it fails
// and leaves it unchanged.
func (r Results) Text() *Tokenizable { return r.text }

// Artifacts returns the artifacts, or nil.
func (r Results) Artifacts() []Artifact { return r.artifacts }

// Media returns the media, or nil.
func (r Results) Media() []*media.Media { return r.media }

// Bounds of a tool call's name and id. Providers accept tool names of at
// most 64 characters (^[a-zA-Z0-9_-]{1,64}$, the rule NewTool applies);
// their call ids are far shorter than MaxToolCallIDBytes.
const (
	MaxToolNameBytes   = 64
	MaxToolCallIDBytes = 256
)

// quotedPrefix is how many bytes of a bad id or name a problem quotes.
const quotedPrefix = 32

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
// ErrInvalidInitialToolCallValue that names every field at fault (its cause
// is a *ValidationError listing them).
//
// Rules:
//   - ID and Tool are non-empty, valid UTF-8, at most MaxToolCallIDBytes
//     and MaxToolNameBytes long. A problem quotes at most a short, safe
//     prefix of a bad id or name.
//   - Args is required and must be a JSON object: a map, a struct (or any
//     value encoding/json turns into an object), or JSON text as a string,
//     []byte or json.RawMessage. It is stored as compact JSON text.
//   - Checksum is 64 lowercase hex digits. It is not recomputed here; see
//     VerifyChecksum.
//   - Results is one of the three shapes, arrays non-empty, no nil entries,
//     artifacts and media with a non-empty ID; the slices are copied. A
//     Tokenizable is copied into one the call owns, read-only (UnmarshalJSON
//     into it fails), so changing the caller's never reaches the call; a
//     call's own (from Results or Raw) is shared as is. A static text is
//     fixed; a dynamic one keeps its evaluator and stays live, rendered
//     against each scope from whatever the evaluator reads.
//   - CreatedAt is required. A zero UpdatedAt means CreatedAt. CompletedAt
//     is required when IsComplete and must be zero otherwise. UpdatedAt and
//     CompletedAt may not precede CreatedAt. Every time lies in years
//     0-9999 UTC, the range the persisted form can write.
//   - Inline nil means true. A non-null Payload must be valid JSON and needs
//     a non-empty ReplayCompatibility.
func NewToolCall(raw RawToolCall) (*ToolCall, error) {
	var p problems
	c := &ToolCall{
		id: raw.ID, tool: raw.Tool, checksum: raw.Checksum,
		isComplete: raw.IsComplete, isError: raw.IsError,
		inline: raw.Inline == nil || *raw.Inline, fromArtTool: raw.FromArtifactTool,
		createdAt: raw.CreatedAt, updatedAt: raw.UpdatedAt, completedAt: raw.CompletedAt,
		replayCompatibility: raw.ReplayCompatibility,
	}
	// JSON strings cannot carry invalid UTF-8: the persisted form would come
	// back with U+FFFD in its place (a different tool name, a failed checksum).
	switch {
	case raw.ID == "":
		p.add("id: required")
	case len(raw.ID) > MaxToolCallIDBytes:
		p.add("id: %q is %d bytes, over the limit of %d", safetext.Prefix(raw.ID, quotedPrefix), len(raw.ID), MaxToolCallIDBytes)
	case !utf8.ValidString(raw.ID):
		p.add("id: %q is not valid UTF-8", safetext.Prefix(raw.ID, quotedPrefix))
	}
	switch {
	case raw.Tool == "":
		p.add("tool: required")
	case len(raw.Tool) > MaxToolNameBytes:
		p.add("tool: %q is %d bytes, over the limit of %d", safetext.Prefix(raw.Tool, quotedPrefix), len(raw.Tool), MaxToolNameBytes)
	case !utf8.ValidString(raw.Tool):
		p.add("tool: %q is not valid UTF-8", safetext.Prefix(raw.Tool, quotedPrefix))
	}
	if args, msg := normalizeArgs(raw.Args); msg != "" {
		p.add("args: %s", msg)
	} else {
		c.args = args
	}
	if !isChecksum(raw.Checksum) {
		if raw.Checksum == "" {
			p.add("checksum: required")
		} else {
			p.add("checksum: %q is not 64 lowercase hex digits", raw.Checksum)
		}
	}
	if res, msg := normalizeResults(raw.Results); msg != "" {
		p.add("results: %s", msg)
	} else {
		c.results = res
	}
	switch {
	case c.createdAt.IsZero():
		p.add("createdAt: required")
	case !persistableTime(c.createdAt):
		p.add("createdAt: %s", timeRangeMsg)
	}
	switch {
	case c.updatedAt.IsZero():
		c.updatedAt = c.createdAt
	case !persistableTime(c.updatedAt):
		p.add("updatedAt: %s", timeRangeMsg)
	case !c.createdAt.IsZero() && c.updatedAt.Before(c.createdAt):
		p.add("updatedAt: precedes createdAt")
	}
	switch {
	case c.isComplete && c.completedAt.IsZero():
		p.add("completedAt: required when isComplete")
	case !c.isComplete && !c.completedAt.IsZero():
		p.add("completedAt: must be zero when not isComplete")
	case !c.completedAt.IsZero() && !persistableTime(c.completedAt):
		p.add("completedAt: %s", timeRangeMsg)
	case !c.completedAt.IsZero() && !c.createdAt.IsZero() && c.completedAt.Before(c.createdAt):
		p.add("completedAt: precedes createdAt")
	}
	if pl := bytes.TrimSpace(raw.Payload); len(pl) > 0 && !bytes.Equal(pl, []byte("null")) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, pl); err != nil {
			p.add("payload: not valid JSON")
		} else {
			c.payload = buf.Bytes()
		}
		if raw.ReplayCompatibility == "" {
			p.add("replayCompatibility: required when payload is set")
		}
	}
	if err := p.err(ErrInvalidInitialToolCallValue, "tool call"); err != nil {
		return nil, err
	}
	return c, nil
}

const timeRangeMsg = "outside years 0-9999 UTC, which the persisted form (RFC 3339) cannot hold"

// persistableTime reports whether MarshalJSON can write t, which it does in
// UTC: time.Time.MarshalJSON fails outside years 0-9999.
func persistableTime(t time.Time) bool {
	return !t.Before(firstPersistable) && t.Before(afterPersistable)
}

// The bounds of the years 0-9999 UTC.
var (
	firstPersistable = time.Date(0, time.January, 1, 0, 0, 0, 0, time.UTC)
	afterPersistable = time.Date(10000, time.January, 1, 0, 0, 0, 0, time.UTC)
)

func isChecksum(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// normalizeArgs returns v as compact JSON object text, or why it cannot.
func normalizeArgs(v any) (json.RawMessage, string) {
	var text []byte
	switch a := v.(type) {
	case nil:
		return nil, "required"
	case json.RawMessage:
		text = a
	case []byte:
		text = a
	case string:
		text = []byte(a)
	default:
		if isNil(v) {
			return nil, "required"
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Sprintf("cannot encode %T as JSON: %v", v, err)
		}
		text = b
	}
	text = bytes.TrimSpace(text)
	if len(text) > 0 && text[0] == '{' {
		if c, ok := compactFlat(text); ok {
			return c, ""
		}
	}
	if !json.Valid(text) {
		return nil, "not valid JSON"
	}
	if text[0] != '{' {
		return nil, "must be a JSON object, got " + jsonKind(text[0])
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, text) // valid, checked above
	return buf.Bytes(), ""
}

// normalizeResults accepts the documented shapes and returns a private copy.
func normalizeResults(v any) (Results, string) {
	switch r := v.(type) {
	case nil:
		return Results{}, "required"
	case Results:
		return r.normalized()
	case *Results:
		if r == nil {
			return Results{}, "required"
		}
		return r.normalized()
	case *Tokenizable:
		return textResults(r)
	case *media.Media:
		return mediaResults([]*media.Media{r})
	case []*media.Media:
		return mediaResults(r)
	case []Artifact:
		return artifactResults(r)
	case Artifact:
		return artifactResults([]Artifact{r})
	}
	return Results{}, fmt.Sprintf("unsupported type %T (want a Tokenizable, one or more Artifacts or one or more Media)", v)
}

// normalized is normalizeResults of r, which holds one shape at most.
func (r Results) normalized() (Results, string) {
	switch {
	case r.text != nil:
		return textResults(r.text)
	case len(r.artifacts) > 0:
		return artifactResults(r.artifacts)
	case len(r.media) > 0:
		return mediaResults(r.media)
	}
	return Results{}, "required (empty Results)"
}

func textResults(t *Tokenizable) (Results, string) {
	if t == nil {
		return Results{}, "nil Tokenizable"
	}
	return Results{text: t.sealedCopy()}, ""
}

func mediaResults(list []*media.Media) (Results, string) {
	if len(list) == 0 {
		return Results{}, "empty media list"
	}
	for i, m := range list {
		if m == nil {
			return Results{}, fmt.Sprintf("[%d]: nil media", i)
		}
		// The persisted form refers to media by id only (as to artifacts).
		if m.ID() == "" {
			return Results{}, fmt.Sprintf("[%d]: media with an empty id", i)
		}
	}
	return Results{media: slices.Clone(list)}, ""
}

func artifactResults(list []Artifact) (Results, string) {
	if len(list) == 0 {
		return Results{}, "empty artifact list"
	}
	for i, a := range list {
		if isNil(a) {
			return Results{}, fmt.Sprintf("[%d]: nil artifact", i)
		}
		if a.ID() == "" {
			return Results{}, fmt.Sprintf("[%d]: artifact with an empty id", i)
		}
	}
	return Results{artifacts: slices.Clone(list)}, ""
}

// ID is the provider's correlation key.
func (c *ToolCall) ID() string { return c.id }

// Tool is the tool name.
func (c *ToolCall) Tool() string { return c.tool }

// Args returns the arguments as canonical-ready JSON object text (a copy).
// A round trip through the persisted form keeps the JSON value, not the
// bytes: json.Marshal escapes <, >, & and U+2028/U+2029 (as \u003c ...).
// The checksum is of the value, so it still verifies.
func (c *ToolCall) Args() json.RawMessage { return bytes.Clone(c.args) }

// Checksum is canonical.Checksum(tool, args) as supplied at construction.
func (c *ToolCall) Checksum() string { return c.checksum }

// Results returns the call's results (the lists are copies).
func (c *ToolCall) Results() Results {
	r := c.results
	r.artifacts = slices.Clone(r.artifacts)
	r.media = slices.Clone(r.media)
	return r
}

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

// Payload is the optional vendor payload (a copy), or nil. Like Args, it
// keeps its JSON value through the persisted form, not its bytes.
func (c *ToolCall) Payload() json.RawMessage { return bytes.Clone(c.payload) }

// ReplayCompatibility tags the payload for replay filtering.
func (c *ToolCall) ReplayCompatibility() string { return c.replayCompatibility }

// Raw returns a RawToolCall equal to c, to derive a changed copy with NewToolCall.
func (c *ToolCall) Raw() RawToolCall {
	inline := c.inline
	return RawToolCall{ID: c.id, Tool: c.tool, Args: c.Args(), Checksum: c.checksum, Results: c.Results(),
		IsComplete: c.isComplete, IsError: c.isError, Inline: &inline, FromArtifactTool: c.fromArtTool,
		CreatedAt: c.createdAt, UpdatedAt: c.updatedAt, CompletedAt: c.completedAt,
		Payload: c.Payload(), ReplayCompatibility: c.replayCompatibility}
}

// VerifyChecksum recomputes canonical.Checksum(tool, args) and returns
// ErrChecksumMismatch if it differs from Checksum. If the checksum cannot be
// computed at all, that error is returned wrapped.
func (c *ToolCall) VerifyChecksum() error {
	sum, err := canonical.Checksum(c.tool, c.args)
	if err != nil {
		return fmt.Errorf("forge: verify checksum of tool call %q: %w", c.id, err)
	}
	if sum != c.checksum {
		return ErrChecksumMismatch.With(nil, "forge: tool call %q: checksum %s does not match tool and args (%s)", c.id, c.checksum, sum)
	}
	return nil
}
