package spooledartifact

import (
	"context"
	"io"
	"strings"

	"github.com/ebbforge/adk/forge"
)

// Spool streams r into store under id and wraps the stored bytes in kind's
// artifact: what the turn runner does with a handler's text, bytes or
// stream. A nil kind means PlainKind; a kind that is not a Kind (a media
// type, say) gives ErrNotAnArtifactKind and stores nothing. r is closed if it
// is an io.Closer, as forge.ReaderOutput promises. With a *Scope the
// artifact's ID is the scoped id (Scope.Qualify), so it resolves against the
// underlying store too.
func Spool(ctx context.Context, store Store, id string, kind forge.ArtifactKind, r io.Reader) (forge.Artifact, error) {
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}
	k := Kind(PlainKind{})
	if kind != nil {
		var ok bool
		if k, ok = kind.(Kind); !ok {
			return nil, ErrNotAnArtifactKind.With(nil, "spooledartifact: %q (%T) is not a spooledartifact.Kind", kind.Name(), kind)
		}
	}
	reader, err := store.Write(ctx, id, r)
	if err != nil {
		return nil, err
	}
	artID := id
	if s, ok := store.(*Scope); ok {
		artID = s.Qualify(id)
	}
	return k.Wrap(ctx, artID, reader)
}

// SpoolString is Spool over a string.
func SpoolString(ctx context.Context, store Store, id string, kind forge.ArtifactKind, text string) (forge.Artifact, error) {
	return Spool(ctx, store, id, kind, strings.NewReader(text))
}

// Scope is a turn's view of a store: every id is prefixed with the scope's
// name and '/', and Cleanup deletes everything the scope wrote, so a turn
// leaves nothing behind. It implements Store (ids in and out are unscoped).
// Safe for concurrent use.
//
// In the prefix, '%' and '/' of the name are escaped ("%25", "%2F"), so no
// scope's prefix starts another's: the Cleanup of scope "t1" never touches
// the artifacts of scope "t1/x" (prefix "t1%2Fx/"). A Scope over a Scope
// nests: its ids live under the outer prefix, and the outer Cleanup removes
// them too.
type Scope struct {
	store  Store
	prefix string
	keep   bool
}

// ScopeOptions tune a Scope; nil means defaults.
type ScopeOptions struct {
	// Keep makes Cleanup a no-op, to keep a turn's artifacts (for replay or
	// debugging); a TTL sweep of the store still removes them.
	Keep bool
}

var _ Store = (*Scope)(nil)

// NewScope returns the scope name (a turn id, say) over store. Any name
// works; one that makes ids invalid (a control character, say) makes every
// Write fail with ErrInvalidID.
func NewScope(store Store, name string, opts *ScopeOptions) *Scope {
	s := &Scope{store: store, prefix: escapeScopeName(name) + "/"}
	if opts != nil {
		s.keep = opts.Keep
	}
	return s
}

// escapeScopeName escapes '%' and '/' so that the name holds no '/' and the
// mapping stays injective.
func escapeScopeName(name string) string {
	if !strings.ContainsAny(name, "%/") {
		return name
	}
	return strings.NewReplacer("%", "%25", "/", "%2F").Replace(name)
}

// Prefix is the id prefix of the scope: its name ('%' and '/' escaped as
// "%25" and "%2F") and '/'.
func (s *Scope) Prefix() string { return s.prefix }

// Qualify returns the id in the underlying store of the scope's id.
func (s *Scope) Qualify(id string) string { return s.prefix + id }

// Write stores r under the scoped id.
func (s *Scope) Write(ctx context.Context, id string, r io.Reader) (Reader, error) {
	return s.store.Write(ctx, s.Qualify(id), r)
}

// Read returns the reader of the scoped id.
func (s *Scope) Read(ctx context.Context, id string) (Reader, error) {
	return s.store.Read(ctx, s.Qualify(id))
}

// Delete removes the scoped id.
func (s *Scope) Delete(ctx context.Context, id string) (bool, error) {
	return s.store.Delete(ctx, s.Qualify(id))
}

// List returns the scope's ids with the given prefix, without the scope's
// prefix, sorted.
func (s *Scope) List(ctx context.Context, prefix string) ([]string, error) {
	ids, err := s.store.List(ctx, s.prefix+prefix)
	if err != nil {
		return nil, err
	}
	for i, id := range ids {
		ids[i] = id[len(s.prefix):]
	}
	return ids, nil
}

// Cleanup deletes every artifact of the scope (unless Keep) and returns how
// many it deleted. The turn runner calls it when the turn ends.
func (s *Scope) Cleanup(ctx context.Context) (int, error) {
	if s.keep {
		return 0, nil
	}
	return DeleteAll(ctx, s.store, s.prefix)
}
