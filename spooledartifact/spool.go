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
// is an io.Closer, as forge.ReaderOutput promises.
//
// Spool returns ctx's error as soon as ctx ends, even while r's Read is
// blocked: r is then closed (when an io.Closer) at once, which unblocks the
// pipes, network bodies and files tools return, and nothing is stored. A
// reader that is not an io.Closer, or whose Close does not unblock a
// pending Read, leaves one goroutine blocked in that Read until it
// returns. With a *Scope the
// artifact's ID is the id in the scope's base store ([Scope.BaseID]:
// qualified by the scope and every Scope it is nested in), so it resolves
// against that store (a [Resolver] over it, say).
func Spool(ctx context.Context, store Store, id string, kind forge.ArtifactKind, r io.Reader) (forge.Artifact, error) {
	src, release := cancelableReader(ctx, r) // closes r
	defer release()
	k := Kind(PlainKind{})
	if kind != nil {
		var ok bool
		if k, ok = kind.(Kind); !ok {
			return nil, ErrNotAnArtifactKind.With(nil, "spooledartifact: %q (%T) is not a spooledartifact.Kind", kind.Name(), kind)
		}
	}
	var reader Reader
	var err error
	artID := id
	if s, ok := store.(*Scope); ok {
		reader, artID, err = s.writeBase(ctx, id, src)
	} else {
		reader, err = store.Write(ctx, id, src)
	}
	if err != nil {
		return nil, err
	}
	return k.Wrap(ctx, artID, reader)
}

// SpoolString is Spool over a string. A MemoryStore (also under a Scope)
// keeps the string itself rather than a copy of it.
func SpoolString(ctx context.Context, store Store, id string, kind forge.ArtifactKind, text string) (forge.Artifact, error) {
	return Spool(ctx, store, id, kind, newTextReader(text))
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
// them too. The base store of a scope is the first store under it that is
// not a Scope; [Scope.BaseID] is an id's name there.
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

// qualify returns the id in the underlying store (the one the scope was
// made over) of the scope's id: the scope's prefix and id. Over another
// Scope that is not yet the id the base store holds: see BaseID.
func (s *Scope) qualify(id string) string { return s.prefix + id }

// BaseID returns the id in the base store of the scope's id: id qualified
// by the scope and then by every Scope it is nested in, innermost first
// ("session/turn/call" for id "call" of scope "turn" over scope "session").
// It is the id the base store validates ([ValidateID]) and holds, and the
// ID [Spool] gives the artifact. Without nesting it is qualify(id).
func (s *Scope) BaseID(id string) string {
	id = s.qualify(id)
	for o, ok := s.store.(*Scope); ok; o, ok = o.store.(*Scope) {
		id = o.qualify(id)
	}
	return id
}

// Write stores r under the scoped id.
func (s *Scope) Write(ctx context.Context, id string, r io.Reader) (Reader, error) {
	reader, _, err := s.writeBase(ctx, id, r)
	return reader, err
}

// writeBase is Write, also returning BaseID(id), built once for both.
func (s *Scope) writeBase(ctx context.Context, id string, r io.Reader) (Reader, string, error) {
	id = s.qualify(id)
	if inner, ok := s.store.(*Scope); ok {
		return inner.writeBase(ctx, id, r)
	}
	reader, err := s.store.Write(ctx, id, r)
	return reader, id, err
}

// Read returns the reader of the scoped id.
func (s *Scope) Read(ctx context.Context, id string) (Reader, error) {
	return s.store.Read(ctx, s.qualify(id))
}

// Delete removes the scoped id.
func (s *Scope) Delete(ctx context.Context, id string) (bool, error) {
	return s.store.Delete(ctx, s.qualify(id))
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
	return deleteAll(ctx, s.store, s.prefix)
}
