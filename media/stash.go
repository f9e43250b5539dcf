package media

import (
	"fmt"
	"maps"
	"strings"
	"unicode"
)

// Stash keys the renderers read for text fallbacks of unsupported
// modalities, in this order of preference.
const (
	StashTranscript  = "text:transcript"
	StashCaption     = "text:caption"
	StashDescription = "text:description"
)

// StashEntry is text derived from a media (a transcript, a caption, an OCR
// pass). Its TrustTier is required and is floored to the owning media's tier:
// derived text is never more trusted than what it was derived from.
type StashEntry struct {
	Value     string    `json:"value"`
	TrustTier TrustTier `json:"trustTier"`
	// DerivedFromMedia is the id of the media the text was derived from,
	// when that is not the owner itself.
	DerivedFromMedia string `json:"derivedFromMedia,omitempty"`
}

// buildStash copies in, floors entry tiers to tier and reports bad entries.
func buildStash(in map[string]StashEntry, tier TrustTier) (map[string]StashEntry, []Problem) {
	var probs []Problem
	out := make(map[string]StashEntry, len(in))
	for k, e := range in {
		field := fmt.Sprintf("stash[%q]", k)
		if strings.TrimSpace(k) == "" || strings.IndexFunc(k, unicode.IsControl) >= 0 {
			probs = append(probs, Problem{Field: field, Reason: "key must be non-blank without control characters"})
			continue
		}
		if e.Value == "" {
			probs = append(probs, Problem{Field: field + ".value", Reason: "is required"})
		}
		if !e.TrustTier.Valid() {
			probs = append(probs, Problem{Field: field + ".trustTier", Reason: fmt.Sprintf("%q is not a trust tier (no default)", e.TrustTier)})
		}
		e.TrustTier = e.TrustTier.Floor(tier)
		out[k] = e
	}
	return out, probs
}

// Stash returns the entry under key.
func (m *Media) Stash(key string) (StashEntry, bool) {
	e, ok := m.stash[key]
	return e, ok
}

// StashAll returns a copy of the whole stash.
func (m *Media) StashAll() map[string]StashEntry { return maps.Clone(m.stash) }

// WithStash returns a new Media that shares m's id, metadata and reader and
// whose stash also holds e under key (replacing any entry there). e's tier is
// floored to m's tier. m itself is unchanged. A bad key or entry yields
// [ErrInvalidInitialMediaValue].
func (m *Media) WithStash(key string, e StashEntry) (*Media, error) {
	_, probs := buildStash(map[string]StashEntry{key: e}, m.tier)
	if len(probs) > 0 {
		return nil, ErrInvalidInitialMediaValue.With(&ValidationError{Problems: probs}, "media: invalid stash entry")
	}
	c := *m
	c.stash = maps.Clone(m.stash)
	if c.stash == nil {
		c.stash = map[string]StashEntry{}
	}
	e.TrustTier = e.TrustTier.Floor(m.tier)
	c.stash[key] = e
	return &c, nil
}
