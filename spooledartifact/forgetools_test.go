package spooledartifact

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func makeCall(t testing.TB, id string, results any, fromArtifactTool bool) *forge.ToolCall {
	t.Helper()
	c, err := forge.NewToolCall(forge.RawToolCall{ID: id, Tool: "fetch", Args: map[string]any{},
		Checksum: strings.Repeat("a", 64), Results: results, IsComplete: true,
		FromArtifactTool: fromArtifactTool, CreatedAt: t0, CompletedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func spoolText(t *testing.T, s Store, id string, kind forge.ArtifactKind, text string) forge.Artifact {
	t.Helper()
	a, err := SpoolString(context.Background(), s, id, kind, text)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// call runs a forged tool with JSON args, as a dispatch would.
func call(t *testing.T, reg *forge.Registry, tool, args string) (string, error) {
	t.Helper()
	tl, ok := reg.Get(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	out, err := tl.Execute(context.Background(), json.RawMessage(args), forge.Invocation{CallID: strings.Repeat("b", 64)}, nil)
	if err != nil {
		return "", err
	}
	return out.Text(), nil
}

func names(reg *forge.Registry) []string {
	var out []string
	for _, tl := range reg.All() {
		out = append(out, tl.Name())
	}
	return out
}

var baseNames = []string{ToolHead, ToolTail, ToolGrep, ToolCat, ToolByteLength, ToolLineCount, ToolEstimateTokens}

func TestForgeToolsEmpty(t *testing.T) {
	text := makeCall(t, "t1", forge.NewTokenizable("hi"), false)
	reg, err := forgeTools([]*forge.ToolCall{text, nil}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.All()) != 0 {
		t.Errorf("want empty registry, got %v", names(reg))
	}
}

func TestForgeToolsBase(t *testing.T) {
	s := NewMemoryStore()
	c1 := makeCall(t, "call_1", spoolText(t, s, "call_1", nil, greek), false)
	c2 := makeCall(t, "call_2", spoolText(t, s, "call_2", nil, "x\ny\n"), false)
	fromTool := makeCall(t, "call_3", spoolText(t, s, "call_3", nil, "grep result"), true)
	two := makeCall(t, "call_4", []forge.Artifact{spoolText(t, s, "c4a", nil, "a"), spoolText(t, s, "c4b", nil, "b")}, false)
	reg, err := forgeTools([]*forge.ToolCall{c1, fromTool, c2, two, c1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(baseNames, names(reg)); diff != "" {
		t.Fatalf("names (-want +got)\n%s", diff)
	}
	for _, tl := range reg.All() {
		if o := tl.Options(); !o.Ephemeral || o.OnCollision != forge.CollisionReplace || !tl.IsArtifactTool() {
			t.Errorf("%s: ephemeral %v onCollision %v artifact %v", tl.Name(), o.Ephemeral, o.OnCollision, tl.IsArtifactTool())
		}
		if got := gjson.GetBytes(tl.Schema(), "properties.callId").Raw; got != string(callIDSchema) {
			t.Errorf("%s callId schema %s", tl.Name(), got)
		}
	}

	tests := []struct {
		tool, args, want string
	}{
		{ToolHead, `{"callId":"call_1","n":2}`, "alpha\nbeta"},
		{ToolHead, `{"callId":"call_1"}`, greek},
		{ToolTail, `{"callId":"call_1","n":2}`, "delta\nepsilon"},
		{ToolCat, `{"callId":"call_1","start":1,"end":3}`, "beta\ngamma"},
		{ToolCat, `{"callId":"call_2"}`, "x\ny"},
		{ToolGrep, `{"callId":"call_1","pattern":"a$"}`, "alpha\nbeta\ngamma\ndelta"},
		{ToolGrep, `{"callId":"call_1","pattern":"A$","flags":""}`, "(empty list)"},
		{ToolGrep, `{"callId":"call_1","pattern":"A$","flags":"ims"}`, "alpha\nbeta\ngamma\ndelta"},
		{ToolGrep, `{"callId":"call_1","pattern":"zzz"}`, "(empty list)"},
		{ToolGrep, `{"callId":"call_1","pattern":"^e","lineNumbers":true,"context":1}`, "3-delta\n4:epsilon"},
		{ToolGrep, `{"callId":"call_1","pattern":"a","maxMatches":1}`, "alpha\n(truncated: showing the first 1 matching lines; more lines match. Narrow the pattern or raise maxMatches/maxBytes.)"},
		{ToolByteLength, `{"callId":"call_1"}`, "30"},
		{ToolLineCount, `{"callId":"call_2"}`, "2"},
		{ToolCat, `{"callId":"call_1","start":7}`, "(empty list)"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			got, err := call(t, reg, tt.tool, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}

	bad := []struct{ tool, args string }{
		{ToolHead, `{"callId":"call_3"}`}, // from an artifact tool: not queryable
		{ToolHead, `{"callId":"nope"}`},
		{ToolHead, `{}`},
		{ToolHead, `{"callId":"call_1","n":0}`},
		{ToolGrep, `{"callId":"call_1","pattern":"a","flags":"g"}`},
		{ToolGrep, `{"callId":"call_1","pattern":"a","flags":"y"}`},
		{ToolGrep, `{"callId":"call_1","pattern":"a","flags":"gi"}`},
		{ToolGrep, `{"callId":"call_1"}`},
		{ToolEstimateTokens, `{"callId":"call_1","encoding":"nope"}`},
		{ToolCat, `{"callId":"call_1","extra":1}`},
	}
	for _, tt := range bad {
		t.Run("bad "+tt.args, func(t *testing.T) {
			if _, err := call(t, reg, tt.tool, tt.args); !errors.Is(err, forge.ErrInvalidToolArgs) {
				t.Errorf("err = %v, want ErrInvalidToolArgs", err)
			}
		})
	}
	_, err = call(t, reg, ToolGrep, `{"callId":"call_1","pattern":"(?<=a)b"}`)
	if !errors.Is(err, ErrUnsupportedRegex) {
		t.Errorf("lookbehind: %v", err)
	}
	got, err := call(t, reg, ToolEstimateTokens, `{"callId":"call_1","encoding":"cl100k_base"}`)
	want, _ := new(forge.Estimators).Estimate(greek, forge.EncodingCL100K)
	if err != nil || got != strconv.Itoa(want) {
		t.Errorf("estimate = %q, %v; want %d", got, err, want)
	}
}

// upperKind is a test kind: base tools plus artifact_upper, and an
// artifact_line_count override.
type upperKind struct{}

func (upperKind) Name() string { return "UpperArtifact" }
func (k upperKind) Wrap(ctx context.Context, id string, r Reader) (forge.Artifact, error) {
	return &upperArtifact{Artifact: New(id, r)}, nil
}
func (upperKind) Methods() []Method {
	return []Method{
		{Tool: "artifact_upper", Description: "Upper-case the first line.", Params: json.RawMessage(`{}`),
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				lines, err := a.(*upperArtifact).Head(ctx, 1)
				return strings.ToUpper(strings.Join(lines, "")), err
			}},
		{Tool: ToolLineCount, Description: "Overridden line count.", Params: json.RawMessage(`{}`),
			Call: func(ctx context.Context, a forge.Artifact, args map[string]any) (string, error) {
				return "many", nil
			}},
	}
}

type upperArtifact struct{ *Artifact }

func (u *upperArtifact) Kind() string       { return upperKind{}.Name() }
func (u *upperArtifact) ArtifactKind() Kind { return upperKind{} }

func TestForgeToolsKinds(t *testing.T) {
	s := NewMemoryStore()
	plain := makeCall(t, "p", spoolText(t, s, "p", nil, "plain\ntext"), false)
	up := makeCall(t, "u", spoolText(t, s, "u", upperKind{}, "shout\nthis"), false)
	reg, err := forgeTools([]*forge.ToolCall{plain, up}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append(append([]string{}, baseNames...), "artifact_upper"), names(reg)); diff != "" {
		t.Fatalf("names (-want +got)\n%s", diff)
	}
	if got, _ := call(t, reg, "artifact_upper", `{"callId":"u"}`); got != "SHOUT" {
		t.Errorf("artifact_upper = %q", got)
	}
	if _, err := call(t, reg, "artifact_upper", `{"callId":"p"}`); !errors.Is(err, forge.ErrInvalidToolArgs) || !errors.Is(err, ErrNotFound) {
		t.Errorf("plain artifact accepted by kind tool: %v", err)
	}
	if got, _ := call(t, reg, ToolLineCount, `{"callId":"u"}`); got != "many" {
		t.Errorf("override not used: %q", got)
	}
	if got, _ := call(t, reg, ToolLineCount, `{"callId":"p"}`); got != "2" {
		t.Errorf("base line count: %q", got)
	}
	eff := EffectiveMethods(upperKind{})
	if len(eff) != 8 || eff[5].Description != "Overridden line count." || eff[7].Tool != "artifact_upper" {
		t.Errorf("EffectiveMethods = %d methods", len(eff))
	}
}

type mediaKind struct{}

func (mediaKind) Name() string { return "image/png" }

func TestSpoolKinds(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	if _, err := SpoolString(ctx, s, "m", mediaKind{}, "x"); !errors.Is(err, ErrNotAnArtifactKind) {
		t.Errorf("media kind: %v", err)
	}
	if ids, _ := s.List(ctx, ""); len(ids) != 0 {
		t.Errorf("stored despite error: %v", ids)
	}
	a := spoolText(t, s, "k", nil, "x")
	if a.Kind() != "SpooledArtifact" || a.ID() != "k" {
		t.Errorf("plain: %s %s", a.Kind(), a.ID())
	}
	scope := NewScope(s, "turn-1", nil)
	a = spoolText(t, scope, "call_9", upperKind{}, "x")
	if a.Kind() != "UpperArtifact" || a.ID() != "turn-1/call_9" {
		t.Errorf("scoped: %s %s", a.Kind(), a.ID())
	}
	if _, err := s.Read(ctx, a.ID()); err != nil {
		t.Errorf("scoped id does not resolve in the store: %v", err)
	}
}

// forgeTools forges the artifact tools over calls, answers capped at
// maxAnswerBytes (0: the default), into a registry.
func forgeTools(calls []*forge.ToolCall, maxAnswerBytes int) (*forge.Registry, error) {
	f := Forger{MaxAnswerBytes: maxAnswerBytes}
	tools, err := f.Update(calls)
	if err != nil {
		return nil, err
	}
	return forge.NewRegistry(tools...)
}
