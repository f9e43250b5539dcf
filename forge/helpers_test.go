package forge

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/ebbforge/adk/media"
)

// fakeArtifact is a minimal Artifact.
type fakeArtifact struct{ id, kind string }

func (a fakeArtifact) ID() string                                { return a.id }
func (a fakeArtifact) Kind() string                              { return a.kind }
func (a fakeArtifact) ByteLength(context.Context) (int64, error) { return 0, nil }
func (a fakeArtifact) LineCount(context.Context) (int, error)    { return 0, nil }

type fakeKind string

func (k fakeKind) Name() string { return string(k) }

// fakeResolver resolves from maps and counts calls.
type fakeResolver struct {
	artifacts map[string]Artifact
	media     map[string]*media.Media
}

func (r fakeResolver) ResolveArtifact(_ context.Context, kind, id string) (Artifact, error) {
	a, ok := r.artifacts[kind+"/"+id]
	if !ok {
		return nil, errors.New("no such artifact")
	}
	return a, nil
}

func (r fakeResolver) ResolveMedia(_ context.Context, id string) (*media.Media, error) {
	m, ok := r.media[id]
	if !ok {
		return nil, errors.New("no such media")
	}
	return m, nil
}

func newMedia(t testing.TB, id string) *media.Media {
	t.Helper()
	m, err := media.New(media.Raw{ID: id, Kind: media.KindImage, MIMEType: "image/png", Filename: "a.png",
		Reader: media.NewMemoryReader([]byte("png")), TrustTier: media.FirstParty, Hazard: media.OpaquePerceptual})
	if err != nil {
		t.Fatalf("media.New: %v", err)
	}
	return m
}

// recorder is an ExecutionObserver that keeps every event.
type recorder struct {
	mu     sync.Mutex
	starts []ExecutionStart
	ends   []ExecutionEnd
}

func (r *recorder) ToolExecutionStart(e ExecutionStart) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts = append(r.starts, e)
}

func (r *recorder) ToolExecutionEnd(e ExecutionEnd) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ends = append(r.ends, e)
}

// problemsOf returns the ValidationError problems of err, failing if none.
func problemsOf(t testing.TB, err error) []string {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v has no *ValidationError cause", err)
	}
	return ve.Problems
}

// mentionsAll fails unless every field appears at the start of some problem.
func mentionsAll(t testing.TB, err error, fields ...string) {
	t.Helper()
	probs := problemsOf(t, err)
	for _, f := range fields {
		found := false
		for _, p := range probs {
			if strings.HasPrefix(p, f) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no problem names %q; got %q", f, probs)
		}
	}
}

const sum64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
