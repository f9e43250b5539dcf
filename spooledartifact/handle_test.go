package spooledartifact

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/ebbforge/adk/forge"
)

func TestRenderHandle(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	c := makeCall(t, "call_7", spoolText(t, s, "call_7", nil, greek+"\n"), false)
	got, err := RenderHandle(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(got, "\n")
	want := []string{handleIntro, "", "Artifact metadata:", "- callId: call_7", "- kind: SpooledArtifact",
		"- byteLength: 31", "- lineCount: 6", "", "Read it with the tools below; pass callId=call_7:"}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
	for i, m := range BaseMethods() {
		if l := lines[len(want)+i]; l != "- "+m.Tool+" — "+m.Description {
			t.Errorf("tool line %q", l)
		}
	}
	if lines[len(lines)-2] != "" || lines[len(lines)-1] != handleClosing {
		t.Errorf("closing %q", lines[len(lines)-2:])
	}

	// With an encoding: the artifact's estimate appears, and the handle's
	// own estimate is the estimate of exactly the rendered text.
	for _, enc := range []forge.Encoding{forge.EncodingCL100K, forge.EncodingO200K, forge.EncodingClaude} {
		opts := &HandleOptions{Encoding: enc}
		text, err := RenderHandle(ctx, c, opts)
		if err != nil {
			t.Fatal(err)
		}
		art, _ := forge.EstimateTokens(greek+"\n", enc)
		if !strings.Contains(text, "\n- estimatedTokens: "+strconv.Itoa(art)+" (encoding: "+string(enc)+")\n") {
			t.Errorf("%s: no estimate line in\n%s", enc, text)
		}
		n, err := EstimateHandleTokens(ctx, c, enc, opts)
		if err != nil {
			t.Fatal(err)
		}
		direct, _ := forge.EstimateTokens(text, enc)
		if n != direct || n == 0 {
			t.Errorf("%s: EstimateHandleTokens = %d, estimate of rendered text = %d", enc, n, direct)
		}
	}

	// A kind lists its effective tools.
	k := makeCall(t, "u1", spoolText(t, s, "u1", upperKind{}, "x"), false)
	text, _ := RenderHandle(ctx, k, nil)
	if !strings.Contains(text, "- kind: UpperArtifact") || !strings.Contains(text, "- artifact_upper — Upper-case") ||
		!strings.Contains(text, "- artifact_line_count — Overridden line count.") {
		t.Errorf("kind handle:\n%s", text)
	}

	if _, err := RenderHandle(ctx, makeCall(t, "t", forge.NewTokenizable("x"), false), nil); !errors.Is(err, forge.ErrInvalidInitialToolCallValue) {
		t.Errorf("text result: %v", err)
	}
}

func TestHandleAbove(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	small := makeCall(t, "s", spoolText(t, s, "s", nil, "tiny"), false)
	big := makeCall(t, "b", spoolText(t, s, "b", nil, strings.Repeat("x", 100)), false)
	hook := HandleAbove(10)
	got, err := hook(ctx, small)
	if err != nil || got != small || !got.Inline() {
		t.Errorf("small changed: %v %v", got, err)
	}
	got, err = hook(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	if got.Inline() || !big.Inline() || got.ID() != "b" || got.Results().Artifacts()[0] != big.Results().Artifacts()[0] {
		t.Errorf("big: inline %v (original %v)", got.Inline(), big.Inline())
	}
}
