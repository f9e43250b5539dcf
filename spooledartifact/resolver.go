package spooledartifact

import (
	"context"
	"fmt"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
)

// Resolver turns the artifact references of a persisted tool call back into
// artifacts read from Store: it is the forge.ResultResolver to hand
// forge.UnmarshalToolCall. Artifacts of PlainKind are always rebuilt; list
// the other kinds the calls may hold (jsonartifact.Kind{}, mdartifact.Kind{},
// your own) in Kinds, matched by Name. Media references go to Media. The
// zero Resolver has no store and refuses everything.
type Resolver struct {
	Store Store
	Kinds []Kind
	// Media finds a media result by its id; nil refuses media references
	// with ErrNotFound.
	Media func(ctx context.Context, id string) (*media.Media, error)
}

// ResolveArtifact reads id from the store and wraps it in the kind named
// kind. An unknown kind is ErrNotAnArtifactKind; a missing id, ErrNotFound.
func (r Resolver) ResolveArtifact(ctx context.Context, kind, id string) (forge.Artifact, error) {
	var k Kind
	if kind == (PlainKind{}).Name() {
		k = PlainKind{}
	}
	for _, c := range r.Kinds {
		if c != nil && c.Name() == kind {
			k = c
		}
	}
	if k == nil {
		return nil, ErrNotAnArtifactKind.With(nil, "spooledartifact: resolve %q: no kind named %q was given to the resolver", id, kind)
	}
	if r.Store == nil {
		return nil, fmt.Errorf("spooledartifact: resolve %q: the resolver has no store: %w", id, ErrNotFound)
	}
	rd, err := r.Store.Read(ctx, id)
	if err != nil {
		return nil, err
	}
	return k.Wrap(ctx, id, rd)
}

// ResolveMedia returns r.Media(ctx, id).
func (r Resolver) ResolveMedia(ctx context.Context, id string) (*media.Media, error) {
	if r.Media == nil {
		return nil, fmt.Errorf("spooledartifact: resolve media %q: the resolver has no media lookup: %w", id, ErrNotFound)
	}
	return r.Media(ctx, id)
}

var _ forge.ResultResolver = Resolver{}
