package media

import (
	"context"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
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

// Valid reports whether k is one of the four kinds.
func (k Kind) Valid() bool {
	switch k {
	case KindImage, KindAudio, KindVideo, KindDocument:
		return true
	}
	return false
}

// TrustTier says who authored the content; there is no default.
type TrustTier string

// Trust tiers, most trusted first.
const (
	FirstParty        TrustTier = "first-party"
	ThirdPartyPublic  TrustTier = "third-party-public"
	ThirdPartyPrivate TrustTier = "third-party-private"
)

// rank orders tiers by distrust: 0 is most trusted, -1 is not a tier.
func (t TrustTier) rank() int {
	switch t {
	case FirstParty:
		return 0
	case ThirdPartyPublic:
		return 1
	case ThirdPartyPrivate:
		return 2
	}
	return -1
}

// Valid reports whether t is one of the three tiers.
func (t TrustTier) Valid() bool { return t.rank() >= 0 }

// Floor returns t lowered to limit when t is more trusted than limit, else t:
// a tier can be lowered by its container, never raised. Both must be valid.
func (t TrustTier) Floor(limit TrustTier) TrustTier {
	if t.rank() < limit.rank() {
		return limit
	}
	return t
}

// Hazard says how the content could carry instructions; there is no default.
type Hazard string

// Modality hazards.
const (
	Inert                   Hazard = "inert"
	ExtractableInstructions Hazard = "extractable-instructions"
	OpaquePerceptual        Hazard = "opaque-perceptual"
)

// Valid reports whether h is one of the three hazards.
func (h Hazard) Valid() bool {
	switch h {
	case Inert, ExtractableInstructions, OpaquePerceptual:
		return true
	}
	return false
}

// Reader streams media bytes. Each Open returns a fresh stream.
type Reader interface {
	// Open returns a new stream over the bytes; the caller closes it.
	Open(ctx context.Context) (io.ReadCloser, error)
	// Size is a hint at the byte length, or -1 when unknown. It may be
	// stale or wrong (a server's Content-Length, a file that changed), so
	// callers use it to size buffers, never to decide a result.
	Size() int64
}

// Raw is the input to [New]. Every field is copied; Stash is copied too.
type Raw struct {
	ID        string // optional: a UUID is generated when empty
	Kind      Kind   // required
	MIMEType  string // required; sanitised (see [SanitizeMIMEType])
	Filename  string // required; sanitised (see [SanitizeFilename])
	Reader    Reader // required, non-nil
	TrustTier TrustTier
	Hazard    Hazard
	Source    string // optional: where the media came from
	// Stash holds text derived from the media (transcript, caption, ...),
	// keyed by e.g. [StashTranscript]. Entry tiers are floored to TrustTier.
	Stash map[string]StashEntry
}

// Media is a binary result (image, audio, video, document) with trust tier
// and modality hazard. Immutable once built; safe for concurrent use.
type Media struct {
	id, mimeType, filename, source string
	kind                           Kind
	reader                         Reader
	tier                           TrustTier
	hazard                         Hazard
	stash                          map[string]StashEntry // never mutated after New
}

// maxIDLen bounds a caller-supplied id; ids end up in prompts and logs.
// Ids are validated, never rewritten: other records (a stash entry's
// DerivedFromMedia, a persisted record) refer to them by value.
const maxIDLen = 256

// New validates raw and builds a Media. The MIME type and filename are
// sanitised; stash entry tiers are floored to the media's tier. Bad input
// yields [ErrInvalidInitialMediaValue] whose cause, a *[ValidationError],
// names every field at fault; a nil Reader alone yields [ErrNotAMediaReader].
func New(raw Raw) (*Media, error) {
	var probs []Problem
	bad := func(field, format string, args ...any) {
		probs = append(probs, Problem{Field: field, Reason: fmt.Sprintf(format, args...)})
	}

	id := raw.ID
	switch {
	case id == "":
		u, err := uuid.NewV7()
		if err != nil {
			return nil, ErrInvalidInitialMediaValue.With(err, "media: generate id")
		}
		id = u.String()
	case strings.TrimSpace(id) == "":
		bad("id", "must not be blank")
	case utf8.RuneCountInString(id) > maxIDLen:
		bad("id", "longer than %d characters", maxIDLen)
	case strings.IndexFunc(id, unsafeInPrompt) >= 0 || !utf8.ValidString(id):
		bad("id", "holds control, separator or format characters or invalid UTF-8")
	case strings.ContainsAny(id, "[]|"):
		bad("id", "holds a marker delimiter ('[', ']' or '|')")
	}
	if !raw.Kind.Valid() {
		bad("kind", "%q is not image, audio, video or document", raw.Kind)
	}
	mime := ""
	if strings.TrimSpace(raw.MIMEType) == "" {
		bad("mimeType", "is required")
	} else {
		mime = SanitizeMIMEType(raw.MIMEType)
	}
	filename := ""
	if raw.Filename == "" {
		bad("filename", "is required")
	} else if filename = SanitizeFilename(raw.Filename); filename == "" {
		bad("filename", "%q is empty once sanitised", raw.Filename)
	}
	if isNil(raw.Reader) {
		probs = append(probs, Problem{Field: "reader", Reason: "is nil", Err: ErrNotAMediaReader})
	}
	if !raw.TrustTier.Valid() {
		bad("trustTier", "%q is not first-party, third-party-public or third-party-private (no default)", raw.TrustTier)
	}
	if !raw.Hazard.Valid() {
		bad("modalityHazard", "%q is not inert, extractable-instructions or opaque-perceptual (no default)", raw.Hazard)
	}
	stash, stashProbs := buildStash(raw.Stash, raw.TrustTier)
	probs = append(probs, stashProbs...)

	if len(probs) == 1 && probs[0].Field == "reader" {
		return nil, ErrNotAMediaReader.With(nil, "media: reader is nil")
	}
	if len(probs) > 0 {
		verr := &ValidationError{Problems: probs}
		return nil, ErrInvalidInitialMediaValue.With(verr, "media: invalid initial value")
	}
	return &Media{
		id:       id,
		kind:     raw.Kind,
		mimeType: mime,
		filename: filename,
		reader:   raw.Reader,
		tier:     raw.TrustTier,
		hazard:   raw.Hazard,
		source:   raw.Source,
		stash:    stash,
	}, nil
}

// isNil reports "no reader": a nil interface, or a nil pointer in one (the
// typed-nil trap, `var r *MyReader; Raw{Reader: r}`), whose methods almost
// always dereference it. Other nil-able kinds are not refused: a nil slice or
// map type can be a perfectly good (empty) reader. (forge has a similar
// helper for tools; media sits below forge, so they cannot share one.)
func isNil(r Reader) bool {
	if r == nil {
		return true
	}
	v := reflect.ValueOf(r)
	return v.Kind() == reflect.Pointer && v.IsNil()
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

// Open returns a fresh stream over the bytes; the caller closes it. A Media
// not built by [New] has no reader and yields [ErrNotAMediaReader].
func (m *Media) Open(ctx context.Context) (io.ReadCloser, error) {
	if m.reader == nil {
		return nil, ErrNotAMediaReader.With(nil, "media: %q has no reader (not built by media.New)", m.id)
	}
	return m.reader.Open(ctx)
}

// Size is the reader's size hint, or -1 when unknown (see [Reader]).
func (m *Media) Size() int64 {
	if m.reader == nil {
		return -1
	}
	return m.reader.Size()
}

// Raw returns the media's fields as a Raw (with a copy of the stash), ready
// to be changed and passed to [New] again.
func (m *Media) Raw() Raw {
	return Raw{
		ID:        m.id,
		Kind:      m.kind,
		MIMEType:  m.mimeType,
		Filename:  m.filename,
		Reader:    m.reader,
		TrustTier: m.tier,
		Hazard:    m.hazard,
		Source:    m.source,
		Stash:     maps.Clone(m.stash),
	}
}

// StashKeys lists the stash keys, sorted.
func (m *Media) StashKeys() []string { return slices.Sorted(maps.Keys(m.stash)) }

// Marker is the line renderers put before a media item in a prompt,
// "[media id: <id> | <filename>]". It sits outside any envelope and carries
// no authority. It is always one marker on one line: the filename is
// sanitised ([SanitizeFilename]), [New] refuses ids holding '[', ']', '|',
// control, separator or format characters, and '\', '[', ']' and '|' in either
// part are escaped with a backslash ("photo [1].png" gives
// "[media id: m | photo \[1\].png]"), so neither part can close the marker
// or forge another.
func (m *Media) Marker() string {
	return "[media id: " + escapeMarker(m.id) + " | " + escapeMarker(m.filename) + "]"
}

// escapeMarker backslash-escapes the marker's delimiters and the backslash.
func escapeMarker(s string) string {
	const special = `\[]|`
	if !strings.ContainsAny(s, special) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(special, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
