package spooledartifact_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
)

// kindArtifact is a stand-in for a kind's artifact type.
type kindArtifact struct{ *spooledartifact.Artifact }

func TestKindCall(t *testing.T) {
	ctx := context.Background()
	call := spooledartifact.KindCall("TestKind", func(_ context.Context, a *kindArtifact, args map[string]any) (string, error) {
		return "ok " + a.ID(), nil
	})
	r, err := spooledartifact.WriteString(ctx, spooledartifact.NewMemoryStore(), "x", "text")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := call(ctx, &kindArtifact{spooledartifact.New("k_1", r)}, nil); got != "ok k_1" || err != nil {
		t.Errorf("own kind: %q, %v", got, err)
	}
	for _, c := range []struct {
		name string
		a    forge.Artifact
		want string
	}{
		{"other kind", spooledartifact.New("plain_1", r), "Error: tool call plain_1 results are not a TestKind instance"},
		{"nil", nil, "Error: tool call <nil> results are not a TestKind instance"},
		{"typed nil", (*kindArtifact)(nil), "Error: tool call <nil> results are not a TestKind instance"},
	} {
		if got, err := call(ctx, c.a, nil); got != c.want || err != nil {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

// A kind's Method.Call runs on its own artifact type through KindCall and
// refuses bad arguments with forge.ErrInvalidToolArgs.
func ExampleKindCall() {
	ctx := context.Background()
	r, _ := spooledartifact.WriteString(ctx, spooledartifact.NewMemoryStore(), "call_1", "a\nb\nc\nd")
	call := spooledartifact.KindCall("SpooledArtifact", func(ctx context.Context, a *spooledartifact.Artifact, args map[string]any) (string, error) {
		n, ok := args["n"].(float64)
		if !ok || n < 1 {
			return "", forge.ErrInvalidToolArgs.With(nil, "n must be a positive integer")
		}
		lines, err := a.Head(ctx, int(n))
		return strings.Join(lines, "\n"), err
	})
	out, _ := call(ctx, spooledartifact.New("call_1", r), map[string]any{"n": 3.0})
	fmt.Println(out)
	_, err := call(ctx, spooledartifact.New("call_1", r), map[string]any{"n": -1.0})
	fmt.Println(errors.Is(err, forge.ErrInvalidToolArgs))
	// Output:
	// a
	// b
	// c
	// true
}
