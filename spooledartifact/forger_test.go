package spooledartifact

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

// TestForgerForgesEachToolOnce follows a turn's calls as they grow and
// checks, by identity, that each Update forged only the tools that were not
// there.
func TestForgerForgesEachToolOnce(t *testing.T) {
	s := NewMemoryStore()
	p1 := makeCall(t, "p1", spoolText(t, s, "p1", nil, "one\ntwo"), false)
	u1 := makeCall(t, "u1", spoolText(t, s, "u1", upperKind{}, "shout"), false)
	grep := makeCall(t, "g", forge.TextResults(forge.NewTokenizable("a grep answer")), true)
	p2 := makeCall(t, "p2", spoolText(t, s, "p2", nil, "three"), false)
	u2 := makeCall(t, "u2", spoolText(t, s, "u2", upperKind{}, "louder"), false)
	dup := makeCall(t, "p1", spoolText(t, s, "p1b", nil, "x"), false)

	withUpper := append(append([]string{}, baseNames...), "artifact_upper")
	f := &Forger{}
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
		{"a kind's artifact adds its tool", []*forge.ToolCall{p1, u1}, append([]string{}, baseNames...)},
		{"an artifact tool's answer is not queryable", []*forge.ToolCall{p1, u1, grep}, withUpper},
		{"a plain artifact changes no tool", []*forge.ToolCall{p1, u1, grep, p2}, withUpper},
		{"a duplicate id changes nothing", []*forge.ToolCall{p1, u1, grep, p2, dup}, withUpper},
		{"another of the kind changes no tool", []*forge.ToolCall{p1, u1, grep, p2, dup, u2}, withUpper},
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
		reg, err := forgeTools(st.calls, 0)
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
	if _, err := call(t, reg, ToolHead, `{"callId":"p1"}`); !errors.Is(err, forge.ErrInvalidToolArgs) || !errors.Is(err, ErrNotFound) {
		t.Errorf("an id of the list before the restart: %v, want ErrInvalidToolArgs and ErrNotFound", err)
	}
}

// The tools forged for the first artifact answer for the ones that come
// after: the handler reads the Forger's table, not a list in the schema.
func TestForgerToolsServeLaterArtifacts(t *testing.T) {
	s := NewMemoryStore()
	f := &Forger{}
	calls := []*forge.ToolCall{makeCall(t, "p1", spoolText(t, s, "p1", nil, "one"), false)}
	first, err := f.Update(calls)
	if err != nil {
		t.Fatal(err)
	}
	reg := mustRegistry(t, first)
	if _, err := call(t, reg, ToolHead, `{"callId":"p2"}`); !errors.Is(err, ErrNotFound) {
		t.Errorf("p2 before it arrived: %v, want ErrNotFound", err)
	}
	calls = append(calls, makeCall(t, "p2", spoolText(t, s, "p2", nil, "two"), false))
	if again, err := f.Update(calls); err != nil || &again[0] != &first[0] {
		t.Fatalf("Update with a new plain artifact returned another list (%v)", err)
	}
	if got, err := call(t, reg, ToolHead, `{"callId":"p2"}`); err != nil || got != "two" {
		t.Errorf("artifact_head(p2) with the first tools = %q, %v", got, err)
	}
}

// An id a tool cannot query fails as an argument error that lists the most
// recent ids it can query, at most maxListedIDs of them, and only those of
// the tool's kind.
func TestForgedToolUnknownIDListsValidIDs(t *testing.T) {
	s := NewMemoryStore()
	var calls []*forge.ToolCall
	for i := range maxListedIDs + 5 {
		id := fmt.Sprintf("p%d", i)
		calls = append(calls, makeCall(t, id, spoolText(t, s, id, nil, "x"), false))
	}
	calls = append(calls, makeCall(t, "u1", spoolText(t, s, "u1", upperKind{}, "x"), false),
		makeCall(t, "g\x1b", forge.TextResults(forge.NewTokenizable("x")), true))
	reg, err := forgeTools(calls, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, id string
		want     []string // in the message
		not      []string
	}{
		{ToolHead, "nope", []string{`"nope"`, `can query: "p6", "p7"`, `"p24", "u1" (and 6 earlier)`}, []string{`"p5"`}},
		{"artifact_upper", "p1", []string{`"p1"`, `can query: "u1"`}, []string{`"p2"`}},
		{ToolHead, "g\x1b", []string{`callId "g\x1b"`}, []string{"\x1b"}}, // an artifact tool's answer, quoted
	}
	for _, tt := range tests {
		args, _ := json.Marshal(map[string]string{"callId": tt.id})
		_, err := call(t, reg, tt.tool, string(args))
		if !errors.Is(err, forge.ErrInvalidToolArgs) || !errors.Is(err, ErrNotFound) {
			t.Fatalf("%s(%q): err = %v, want ErrInvalidToolArgs and ErrNotFound", tt.tool, tt.id, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s(%q): %q lacks %s", tt.tool, tt.id, err, w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(err.Error(), w) {
				t.Errorf("%s(%q): %q holds %s", tt.tool, tt.id, err, w)
			}
		}
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

// Forgers share the tools' templates, forged once per answer cap, but each
// Forger's copies answer for its own artifacts only.
func TestForgersShareTemplatesNotArtifacts(t *testing.T) {
	for _, limit := range []int{DefaultMaxAnswerBytes, 1000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			s := NewMemoryStore()
			a := makeCall(t, "a", spoolText(t, s, "a", nil, "alpha"), false)
			b := makeCall(t, "b", spoolText(t, s, "b", nil, "beta"), false)
			var regs []*forge.Registry
			for _, c := range []*forge.ToolCall{a, b} {
				tools, err := (&Forger{MaxAnswerBytes: limit}).Update([]*forge.ToolCall{c})
				if err != nil {
					t.Fatal(err)
				}
				regs = append(regs, mustRegistry(t, tools))
			}
			for i, want := range []struct{ own, other, text string }{{"a", "b", "alpha"}, {"b", "a", "beta"}} {
				if got, err := call(t, regs[i], ToolCat, `{"callId":"`+want.own+`"}`); err != nil || !strings.Contains(got, want.text) {
					t.Errorf("Forger %d, its own %s: %q, %v", i, want.own, got, err)
				}
				if _, err := call(t, regs[i], ToolCat, `{"callId":"`+want.other+`"}`); !errors.Is(err, ErrNotFound) {
					t.Errorf("Forger %d, the other's %s: %v, want ErrNotFound", i, want.other, err)
				}
			}
			first, err := forgeBaseFor(limit)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := forgeBaseFor(limit)
			t1, _ := first.templates()
			t2, _ := again.templates()
			if first != again || &t1[0] != &t2[0] {
				t.Error("the templates of one cap were forged twice")
			}
		})
	}
}
