package spooledartifact

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
	var names []string
	for _, m := range EffectiveMethods(nil) {
		names = append(names, m.Tool)
	}
	want := []string{handleIntro, "", "Artifact metadata:", "- callId: call_7", "- kind: SpooledArtifact",
		"- byteLength: 31", "- lineCount: 5", "",
		"Read it with these tools from your tool list, passing callId=call_7: " + strings.Join(names, ", ") + ".",
		"", handleClosing}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("handle lines (-want +got):\n%s", diff)
	}

	// With an encoding: the artifact's estimate appears.
	for _, enc := range []forge.Encoding{forge.EncodingCL100K, forge.EncodingO200K, forge.EncodingClaude} {
		opts := &HandleOptions{Encoding: enc}
		text, err := RenderHandle(ctx, c, opts)
		if err != nil {
			t.Fatal(err)
		}
		art, _ := new(forge.Estimators).Estimate(greek+"\n", enc)
		if !strings.Contains(text, "\n- estimatedTokens: "+strconv.Itoa(art)+" (encoding: "+string(enc)+")\n") {
			t.Errorf("%s: no estimate line in\n%s", enc, text)
		}
	}

	// A kind lists its effective tools.
	k := makeCall(t, "u1", spoolText(t, s, "u1", upperKind{}, "x"), false)
	text, _ := RenderHandle(ctx, k, nil)
	if !strings.Contains(text, "- kind: UpperArtifact") || !strings.Contains(text, "artifact_upper") ||
		!strings.Contains(text, "artifact_line_count") || strings.Contains(text, "Overridden line count.") {
		t.Errorf("kind handle:\n%s", text)
	}

	if _, err := RenderHandle(ctx, makeCall(t, "t", forge.NewTokenizable("x"), false), nil); !errors.Is(err, forge.ErrInvalidInitialToolCallValue) {
		t.Errorf("text result: %v", err)
	}
}

// A handle names its tools without repeating their descriptions, which the
// request's tool list already holds: it costs a fraction of a handle that
// repeats them.
func TestHandleTokens(t *testing.T) {
	ctx := context.Background()
	c := makeCall(t, "call_7", spoolText(t, NewMemoryStore(), "call_7", nil, greek+"\n"), false)
	text, err := RenderHandle(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The same handle listing every tool with its description.
	var listed strings.Builder
	listed.WriteString(text[:strings.Index(text, "Read it with")])
	listed.WriteString("Read it with the tools below; pass callId=call_7:")
	for _, m := range EffectiveMethods(nil) {
		listed.WriteString("\n- " + m.Tool + " — " + m.Description)
	}
	listed.WriteString("\n\n" + handleClosing)
	for _, enc := range []forge.Encoding{forge.EncodingCL100K, forge.EncodingClaude} {
		now, _ := new(forge.Estimators).Estimate(text, enc)
		before, _ := new(forge.Estimators).Estimate(listed.String(), enc)
		t.Logf("%s: handle %d tokens; with tool descriptions %d", enc, now, before)
		if now == 0 || now*2 > before {
			t.Errorf("%s: handle %d tokens, not under half of %d with descriptions", enc, now, before)
		}
		for _, m := range EffectiveMethods(nil) {
			if m.Description != "" && strings.Contains(text, m.Description) {
				t.Errorf("the handle repeats %s's description", m.Tool)
			}
		}
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
