package media

import (
	"errors"
	"fmt"
)

// UserAttachment builds a Media for a file a user attached: tier
// third-party-private, hazard by kind (see [HazardFor]). raw.TrustTier and
// raw.Hazard must be empty or equal to what the factory sets.
func UserAttachment(raw Raw) (*Media, error) { return withTier(raw, ThirdPartyPrivate) }

// ToolGenerated builds a Media a tool produced itself: tier first-party,
// hazard by kind. raw.TrustTier and raw.Hazard must be empty or equal to what
// the factory sets.
func ToolGenerated(raw Raw) (*Media, error) { return withTier(raw, FirstParty) }

// RetrievedPublic builds a Media fetched from a public source: tier
// third-party-public, hazard by kind. raw.TrustTier and raw.Hazard must be
// empty or equal to what the factory sets.
func RetrievedPublic(raw Raw) (*Media, error) { return withTier(raw, ThirdPartyPublic) }

// RetrievedPrivate builds a Media fetched from a private source: tier
// third-party-private, hazard by kind. raw.TrustTier and raw.Hazard must be
// empty or equal to what the factory sets.
func RetrievedPrivate(raw Raw) (*Media, error) { return withTier(raw, ThirdPartyPrivate) }

// HazardFor is the hazard the factories assign: extractable-instructions for
// documents (their text can be read as instructions), opaque-perceptual for
// every other kind.
func HazardFor(k Kind) Hazard {
	if k == KindDocument {
		return ExtractableInstructions
	}
	return OpaquePerceptual
}

// withTier fills tier and hazard, refusing a conflicting caller value rather
// than silently overriding it.
func withTier(raw Raw, tier TrustTier) (*Media, error) {
	hazard := HazardFor(raw.Kind)
	var probs []Problem
	if raw.TrustTier != "" && raw.TrustTier != tier {
		probs = append(probs, Problem{Field: "trustTier", Reason: fmt.Sprintf("%q conflicts with the factory's %q", raw.TrustTier, tier)})
	}
	if raw.Hazard != "" && raw.Hazard != hazard {
		probs = append(probs, Problem{Field: "modalityHazard", Reason: fmt.Sprintf("%q conflicts with the factory's %q", raw.Hazard, hazard)})
	}
	raw.TrustTier, raw.Hazard = tier, hazard
	m, err := New(raw)
	if len(probs) == 0 {
		return m, err
	}
	// Report the conflicts together with anything else New found.
	var verr *ValidationError
	switch {
	case errors.As(err, &verr):
		probs = append(probs, verr.Problems...)
	case errors.Is(err, ErrNotAMediaReader):
		probs = append(probs, Problem{Field: "reader", Reason: "is nil", Err: ErrNotAMediaReader})
	case err != nil:
		return nil, err
	}
	return nil, ErrInvalidInitialMediaValue.With(&ValidationError{Problems: probs}, "media: invalid initial value")
}
