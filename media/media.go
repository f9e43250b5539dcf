package media

import (
	"context"
	"io"
)

// Kind is a media modality.
type Kind string

// Media kinds.
const (
	KindImage    Kind = "image"
	KindAudio    Kind = "audio"
	KindVideo    Kind = "video"
	KindDocument Kind = "document"
)

// TrustTier says who authored the content; there is no default.
type TrustTier string

// Trust tiers, most trusted first.
const (
	FirstParty        TrustTier = "first-party"
	ThirdPartyPublic  TrustTier = "third-party-public"
	ThirdPartyPrivate TrustTier = "third-party-private"
)

// Hazard says how the content could carry instructions; there is no default.
type Hazard string

// Modality hazards.
const (
	Inert                   Hazard = "inert"
	ExtractableInstructions Hazard = "extractable-instructions"
	OpaquePerceptual        Hazard = "opaque-perceptual"
)

// Reader streams media bytes. Each Open returns a fresh stream.
type Reader interface {
	// Open returns a new stream over the bytes; the caller closes it.
	Open(ctx context.Context) (io.ReadCloser, error)
	// Size is the byte length, or -1 when unknown.
	Size() int64
}

// Media is a binary result (image, audio, video, document) with trust tier
// and modality hazard. Immutable once built; safe for concurrent use.
type Media struct {
	id, mimeType, filename, source string
	kind                           Kind
	reader                         Reader
	tier                           TrustTier
	hazard                         Hazard
}

// ID is the media id.
func (m *Media) ID() string { return m.id }

// Kind is the modality.
func (m *Media) Kind() Kind { return m.kind }

// MIMEType is the sanitised MIME type.
func (m *Media) MIMEType() string { return m.mimeType }

// Filename is the sanitised filename.
func (m *Media) Filename() string { return m.filename }

// TrustTier is who authored the content.
func (m *Media) TrustTier() TrustTier { return m.tier }

// Hazard is the modality hazard.
func (m *Media) Hazard() Hazard { return m.hazard }

// Source is where the media came from, if known.
func (m *Media) Source() string { return m.source }

// Reader returns the media's reader.
func (m *Media) Reader() Reader { return m.reader }
