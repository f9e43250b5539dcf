package jsonartifact

import (
	"context"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/internal/method"
)

// Format is the shape of a JSON artifact's bytes.
type Format string

// The formats. FormatNDJSON is never inferred, only hinted; it behaves like
// FormatJSONL.
const (
	FormatJSON   Format = "json"
	FormatJSON5  Format = "json5"
	FormatJSONL  Format = "jsonl"
	FormatNDJSON Format = "ndjson"
)

// lines reports whether f holds one record per non-empty line.
func (f Format) lines() bool { return f == FormatJSONL || f == FormatNDJSON }

// Defaults for the zero Kind's limits.
const (
	// DefaultMaxDocumentBytes caps a single json/json5 document, which is
	// held in memory once parsed. JSON Lines have no size limit.
	DefaultMaxDocumentBytes = 64 << 20
	// DefaultMaxRecordBytes caps one JSON Lines record (one line).
	DefaultMaxRecordBytes = 64 << 20
	// DefaultMaxMatches caps the values (or keys) one tool answer lists.
	DefaultMaxMatches = 1000
	// DefaultMaxAnswerBytes caps the text of one tool answer.
	DefaultMaxAnswerBytes = 64 << 10
)

// Name is the kind's name, shown as the artifact's kind in handles.
const Name = "SpooledJsonArtifact"

// Kind is the JSON artifact kind ("SpooledJsonArtifact"). The zero value
// infers the format and uses the default limits; set Format to hint it.
// Kind is comparable, so it can be used as a map key or compared with ==.
type Kind struct {
	// Format hints the format; "" infers it (json, then JSON Lines, then
	// json5). Any other value makes every query fail with
	// ErrUnsupportedFormat.
	Format Format
	// MaxDocumentBytes caps a single json/json5 document (it is parsed in
	// memory); 0 means DefaultMaxDocumentBytes. Inference above the cap only
	// considers JSON Lines.
	MaxDocumentBytes int64
	// MaxRecordBytes caps one JSON Lines record; 0 means
	// DefaultMaxRecordBytes.
	MaxRecordBytes int
	// MaxMatches caps the values or keys one forged-tool answer lists; 0
	// means DefaultMaxMatches. The Go iterators are not capped.
	MaxMatches int
	// MaxAnswerBytes caps the text of one forged-tool answer; 0 means
	// DefaultMaxAnswerBytes.
	MaxAnswerBytes int
}

// Name returns "SpooledJsonArtifact".
func (Kind) Name() string { return Name }

// Wrap returns New(id, r, k). Nothing is read until the first query.
func (k Kind) Wrap(ctx context.Context, id string, r spooledartifact.Reader) (forge.Artifact, error) {
	return New(id, r, k), nil
}

// Methods returns the seven forged JSON query methods (artifact_json_*).
func (k Kind) Methods() []spooledartifact.Method { return methods() }

// The limits in effect: a field of 0 means its default.
func (k Kind) maxDocumentBytes() int64 {
	return method.LimitOr(k.MaxDocumentBytes, DefaultMaxDocumentBytes)
}

func (k Kind) maxRecordBytes() int {
	return method.LimitOr(k.MaxRecordBytes, DefaultMaxRecordBytes)
}

func (k Kind) maxMatches() int { return method.LimitOr(k.MaxMatches, DefaultMaxMatches) }

func (k Kind) maxAnswerBytes() int {
	return method.LimitOr(k.MaxAnswerBytes, DefaultMaxAnswerBytes)
}

var _ spooledartifact.Kind = Kind{}
