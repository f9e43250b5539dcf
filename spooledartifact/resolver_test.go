package spooledartifact_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/jsonartifact"
)

// A persisted tool call comes back with its artifacts read from the store,
// each in its kind; unknown kinds, missing ids and media without a lookup
// are typed errors.
func TestResolverRoundTrip(t *testing.T) {
	ctx := context.Background()
	store := spooledartifact.NewMemoryStore()
	plain, err := spooledartifact.Spool(ctx, store, "t1/c1", spooledartifact.PlainKind{}, strings.NewReader("hello\nworld"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := spooledartifact.Spool(ctx, store, "t1/c2", jsonartifact.Kind{}, strings.NewReader(`{"a":[1,2]}`))
	if err != nil {
		t.Fatal(err)
	}
	persist := func(id string, a forge.Artifact) []byte {
		t.Helper()
		sum, err := canonical.Checksum("t", json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		c, err := forge.NewToolCall(forge.RawToolCall{ID: id, Tool: "t", Args: `{}`, Checksum: sum, Results: forge.ArtifactResults(a),
			IsComplete: true, CreatedAt: time.Unix(1, 0), CompletedAt: time.Unix(2, 0)})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	res := spooledartifact.Resolver{Store: store, Kinds: []spooledartifact.Kind{jsonartifact.Kind{}}}
	for _, a := range []forge.Artifact{plain, doc} {
		back, err := forge.UnmarshalToolCall(ctx, persist("c", a), res)
		if err != nil {
			t.Fatalf("%s: %v", a.Kind(), err)
		}
		got := back.Results().Artifacts()[0]
		if got.ID() != a.ID() || got.Kind() != a.Kind() {
			t.Errorf("resolved %s %q, want %s %q", got.Kind(), got.ID(), a.Kind(), a.ID())
		}
		wantLen, _ := a.ByteLength(ctx)
		if n, err := got.ByteLength(ctx); err != nil || n != wantLen {
			t.Errorf("%s: ByteLength %d, %v; want %d", a.Kind(), n, err, wantLen)
		}
	}
	lines, err := mustResolve(t, res, plain).(*spooledartifact.Artifact).Head(ctx, 5)
	if err != nil || cmp.Diff([]string{"hello", "world"}, lines) != "" {
		t.Errorf("Head = %q, %v", lines, err)
	}

	if _, err := (spooledartifact.Resolver{Store: store}).ResolveArtifact(ctx, doc.Kind(), doc.ID()); !errors.Is(err, spooledartifact.ErrNotAnArtifactKind) {
		t.Errorf("kind not given: %v", err)
	}
	if _, err := res.ResolveArtifact(ctx, plain.Kind(), "t1/gone"); !errors.Is(err, spooledartifact.ErrNotFound) {
		t.Errorf("missing id: %v", err)
	}
	if _, err := res.ResolveMedia(ctx, "m1"); !errors.Is(err, spooledartifact.ErrNotFound) {
		t.Errorf("media without a lookup: %v", err)
	}
	m, err := media.ToolGenerated(media.Raw{Kind: media.KindImage, MIMEType: "image/png", Filename: "a.png", Reader: media.NewMemoryReader([]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	withMedia := spooledartifact.Resolver{Media: func(context.Context, string) (*media.Media, error) { return m, nil }}
	if got, err := withMedia.ResolveMedia(ctx, m.ID()); err != nil || got != m {
		t.Errorf("ResolveMedia = %v, %v", got, err)
	}
}

func mustResolve(t *testing.T, res spooledartifact.Resolver, a forge.Artifact) forge.Artifact {
	t.Helper()
	got, err := res.ResolveArtifact(context.Background(), a.Kind(), a.ID())
	if err != nil {
		t.Fatal(err)
	}
	return got
}
