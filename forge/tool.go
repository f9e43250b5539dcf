package forge

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/ebbforge/adk/media"
)

// Scope is the view of the running dispatch that forge hands to handlers and
// dynamic Tokenizables. dispatch.Context implements it; it is nil outside a
// dispatch.
type Scope interface {
	// DispatchID identifies the running dispatch.
	DispatchID() string
	// Iteration is the 0-based iteration number.
	Iteration() int
	// ToolCallCount is how many tool calls with this checksum the turn holds.
	ToolCallCount(checksum string) int
}

// Invocation is what a handler learns about the call it serves.
type Invocation struct {
	Tool   string         // the tool's name
	ID     string         // the provider's call id, when known
	CallID string         // canonical.Checksum(tool, raw args)
	Meta   map[string]any // a copy of the tool's Meta
	Scope  Scope          // nil outside a dispatch
}

// OutputKind tells what a handler returned.
type OutputKind int

// Output kinds.
const (
	OutputNone OutputKind = iota
	OutputText
	OutputBytes
	OutputReader
	OutputMedia
	OutputArtifact
)

// Output is a handler's return value: text or bytes (spooled into an artifact
// by the turn runner), a stream (spooled without buffering), media (landed
// untouched) or an artifact the handler built itself.
type Output struct {
	kind     OutputKind
	text     string
	bytes    []byte
	reader   io.Reader
	media    []*media.Media
	artifact Artifact
}

// TextOutput returns text to be spooled.
func TextOutput(s string) Output { return Output{kind: OutputText, text: s} }

// BytesOutput returns bytes to be spooled.
func BytesOutput(b []byte) Output { return Output{kind: OutputBytes, bytes: b} }

// ReaderOutput returns a stream to be spooled; the spooler closes it if it is
// an io.Closer.
func ReaderOutput(r io.Reader) Output { return Output{kind: OutputReader, reader: r} }

// MediaOutput returns media results.
func MediaOutput(m ...*media.Media) Output { return Output{kind: OutputMedia, media: m} }

// ArtifactOutput returns an artifact the handler built itself.
func ArtifactOutput(a Artifact) Output { return Output{kind: OutputArtifact, artifact: a} }

// Kind reports what the output holds.
func (o Output) Kind() OutputKind { return o.kind }

// Text returns the text of an OutputText.
func (o Output) Text() string { return o.text }

// Bytes returns the bytes of an OutputBytes.
func (o Output) Bytes() []byte { return o.bytes }

// Reader returns the stream of an OutputReader.
func (o Output) Reader() io.Reader { return o.reader }

// Media returns the media of an OutputMedia.
func (o Output) Media() []*media.Media { return o.media }

// Artifact returns the artifact of an OutputArtifact.
func (o Output) Artifact() Artifact { return o.artifact }

// Handler serves an untyped tool: args is the validated JSON object.
type Handler func(ctx context.Context, args map[string]any, inv Invocation) (Output, error)

// TypedHandler serves a typed tool: args is decoded and validated.
type TypedHandler[A any] func(ctx context.Context, args A, inv Invocation) (Output, error)

// ArtifactHandler serves an ArtifactTool: it answers with text, inline.
type ArtifactHandler func(ctx context.Context, args map[string]any, inv Invocation) (string, error)

// Collision is a name-collision policy for Registry.Merge.
type Collision string

// Collision policies.
const (
	CollisionThrow   Collision = "throw"
	CollisionReplace Collision = "replace"
	CollisionKeep    Collision = "keep"
)

// ToolOptions are a tool's optional settings; nil means defaults.
type ToolOptions struct {
	ArtifactKind ArtifactKind   // wraps returned text/bytes; nil means the plain artifact
	Trusted      bool           // render output in the trusted envelope
	Ephemeral    bool           // dropped by Registry.PruneEphemeral
	OnCollision  Collision      // "" means CollisionThrow
	Meta         map[string]any // handed to the handler
	Timeout      time.Duration  // per-call limit; 0 means none beyond the caller's context
}

// Tool is a named, described, schema-validated handler. Immutable and safe
// for concurrent use.
type Tool struct {
	name, description string
	schema            json.RawMessage
	opts              ToolOptions
	handler           Handler
	artifactHandler   ArtifactHandler
}

// NewTool returns an untyped tool whose arguments are validated against the
// JSON Schema document schema (root type "object").
func NewTool(name, description string, schema json.RawMessage, h Handler, opts *ToolOptions) (*Tool, error) {
	return nil, ErrInvalidInitialToolValue.With(nil, "not implemented yet")
}

// NewTypedTool returns a tool whose JSON Schema is derived from A.
func NewTypedTool[A any](name, description string, h TypedHandler[A], opts *ToolOptions) (*Tool, error) {
	return nil, ErrInvalidInitialToolValue.With(nil, "not implemented yet")
}

// NewArtifactTool returns an ArtifactTool: its answers are inline text and its
// calls are marked FromArtifactTool. opts.ArtifactKind must be nil.
func NewArtifactTool(name, description string, schema json.RawMessage, h ArtifactHandler, opts *ToolOptions) (*Tool, error) {
	return nil, ErrInvalidInitialToolValue.With(nil, "not implemented yet")
}

// Name is the tool's name.
func (t *Tool) Name() string { return t.name }

// Description is shown to the model.
func (t *Tool) Description() string { return t.description }

// Schema is the resolved input JSON Schema.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// IsArtifactTool reports whether t is an ArtifactTool.
func (t *Tool) IsArtifactTool() bool { return t.artifactHandler != nil }

// ArtifactKind is the wrapper for returned bytes, or nil.
func (t *Tool) ArtifactKind() ArtifactKind { return t.opts.ArtifactKind }

// Trusted reports whether output renders in the trusted envelope.
func (t *Tool) Trusted() bool { return t.opts.Trusted }

// Ephemeral reports whether PruneEphemeral drops the tool.
func (t *Tool) Ephemeral() bool { return t.opts.Ephemeral }

// OnCollision is the tool's merge policy.
func (t *Tool) OnCollision() Collision {
	if t.opts.OnCollision == "" {
		return CollisionThrow
	}
	return t.opts.OnCollision
}

// Timeout is the per-call limit, 0 for none.
func (t *Tool) Timeout() time.Duration { return t.opts.Timeout }

// Meta returns a copy of the tool's meta.
func (t *Tool) Meta() map[string]any { return nil }

// Validate checks raw JSON arguments against the schema without coercion and
// returns the validated object (defaults applied), or ErrInvalidToolArgs with
// a model-readable message naming each bad field.
func (t *Tool) Validate(raw json.RawMessage) (map[string]any, error) { return nil, nil }

// ExecutionStart is reported before a handler runs.
type ExecutionStart struct {
	ToolName  string
	CallID    string
	Args      map[string]any
	StartedAt time.Time
}

// ExecutionEnd is reported after a handler settles.
type ExecutionEnd struct {
	ToolName  string
	CallID    string
	StartedAt time.Time
	EndedAt   time.Time
	Duration  time.Duration
	IsError   bool
	Err       error
}

// ExecutionObserver receives execution events; calls are synchronous.
type ExecutionObserver interface {
	ToolExecutionStart(ExecutionStart)
	ToolExecutionEnd(ExecutionEnd)
}

// Execute runs the tool once: checksum over the raw args (unless inv.CallID
// is set), validation (ErrInvalidToolArgs, no events, handler not called),
// start event, handler under the tool's timeout with panic recovery, end event.
// A handler error, panic or timeout is ErrToolDownstreamError with the cause
// kept; cancellation of ctx is returned as ctx's error, not a tool failure.
// ArtifactTools return an OutputText. obs may be nil.
func (t *Tool) Execute(ctx context.Context, raw json.RawMessage, inv Invocation, obs ExecutionObserver) (Output, error) {
	return Output{}, ErrToolDownstreamError.With(nil, "not implemented yet")
}
