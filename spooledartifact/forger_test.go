package spooledartifact

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/forge"
)

// toolSet maps each tool's name to the tool, to compare identities.
func toolSet(tools []*forge.Tool) map[string]*forge.Tool {
	m := make(map[string]*forge.Tool, len(tools))
	for _, t := range tools {
		m[t.Name()] = t
	}
	return m
}

// TestForgerRebuildsOnlyWhatNewArtifactsChange follows a turn's calls as
// they grow and checks, by identity, which tools each Update forged again.
func TestForgerRebuildsOnlyWhatNewArtifactsChange(t *testing.T) {
	s := NewMemoryStore()
	p1 := makeCall(t, "p1", spoolText(t, s, "p1", nil, "one\ntwo"), false)
	u1 := makeCall(t, "u1", spoolText(t, s, "u1", upperKind{}, "shout"), false)
	grep := makeCall(t, "g", forge.TextResults(forge.NewTokenizable("a grep answer")), true)
	p2 := makeCall(t, "p2", spoolText(t, s, "p2", nil, "three"), false)
	u2 := makeCall(t, "u2", spoolText(t, s, "u2", upperKind{}, "louder"), false)

	f := NewForger(nil)
	steps := []struct {
		name  string
		calls []*forge.ToolCall
		// same lists the tools that must be the very ones of the step
		// before; every other tool must be new.
		same []string
	}{
		{"no calls", nil, nil},
		{"a plain artifact", []*forge.ToolCall{p1}, nil},
		{"nothing new", []*forge.ToolCall{p1}, append([]string{}, baseNames...)},
		{"a kind's artifact adds its tool", []*forge.ToolCall{p1, u1}, nil},
		{"an artifact tool's answer is not queryable", []*forge.ToolCall{p1, u1, grep}, append(append([]string{}, baseNames...), "artifact_upper")},
		{"a plain artifact keeps the kind's tool", []*forge.ToolCall{p1, u1, grep, p2}, []string{"artifact_upper"}},
		{"a duplicate id changes nothing", []*forge.ToolCall{p1, u1, grep, p2, makeCall(t, "p1", spoolText(t, s, "p1b", nil, "x"), false)},
			append(append([]string{}, baseNames...), "artifact_upper")},
		{"another of the kind", []*forge.ToolCall{p1, u1, grep, p2, u2}, nil},
		{"a changed list starts over", []*forge.ToolCall{p2, u2}, nil},
	}
	var prev map[string]*forge.Tool
	for _, st := range steps {
		tools, err := f.Update(st.calls)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		cur := toolSet(tools)
		var same []string
		for _, tl := range tools {
			if prev[tl.Name()] == tl {
				same = append(same, tl.Name())
			}
		}
		if d := cmp.Diff(st.same, same); d != "" {
			t.Errorf("%s: tools kept (-want +got)\n%s", st.name, d)
		}
		// Whatever was reused, the tools are what ForgeTools forges.
		reg, err := ForgeTools(st.calls, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(names(reg), names(mustRegistry(t, tools))); d != "" {
			t.Errorf("%s: names (-ForgeTools +Forger)\n%s", st.name, d)
		}
		for _, want := range reg.All() {
			if got := cur[want.Name()]; string(got.Schema()) != string(want.Schema()) {
				t.Errorf("%s: %s schema\n got %s\nwant %s", st.name, want.Name(), got.Schema(), want.Schema())
			}
		}
		prev = cur
	}
	// The tools of an earlier Update still answer for their own ids.
	tools, err := f.Update([]*forge.ToolCall{p2, u2})
	if err != nil {
		t.Fatal(err)
	}
	reg := mustRegistry(t, tools)
	if got, err := call(t, reg, "artifact_upper", `{"callId":"u2"}`); err != nil || got != "LOUDER" {
		t.Errorf("artifact_upper(u2) = %q, %v", got, err)
	}
	if _, err := call(t, reg, ToolHead, `{"callId":"p1"}`); !errors.Is(err, forge.ErrInvalidToolArgs) {
		t.Errorf("an id of the list before the restart: %v, want ErrInvalidToolArgs", err)
	}
}

func mustRegistry(t *testing.T, tools []*forge.Tool) *forge.Registry {
	t.Helper()
	reg, err := forge.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
