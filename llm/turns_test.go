package llm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
)

// entry builds a timeline entry from a short code: "u:id" user message,
// "a:id" assistant message, "t:id" thought, "c:id" tool call; "@resp"
// appends a response id.
func entry(t *testing.T, code string) dispatch.Entry {
	t.Helper()
	code, resp, _ := strings.Cut(code, "@")
	kind, id, _ := strings.Cut(code, ":")
	e := dispatch.Entry{ResponseID: resp}
	var err error
	switch kind {
	case "u":
		e.Message, err = dispatch.NewMessage(dispatch.RawMessage{ID: id, Role: dispatch.RoleUser, Content: forge.NewTokenizable("text " + id)})
	case "a":
		e.Message, err = dispatch.NewMessage(dispatch.RawMessage{ID: id, Role: dispatch.RoleAssistant, Content: forge.NewTokenizable("text " + id)})
	case "t":
		e.Thought, err = dispatch.NewThought(dispatch.RawThought{ID: id, Content: forge.NewTokenizable("thinking " + id)})
	case "c":
		sum, _ := canonical.Checksum("echo", map[string]any{})
		e.ToolCall, err = forge.NewToolCall(forge.RawToolCall{ID: id, Tool: "echo", Args: "{}", Checksum: sum,
			Results: forge.TextResults(forge.NewTokenizable("ok")), IsComplete: true,
			CreatedAt: time.Unix(1, 0), CompletedAt: time.Unix(2, 0)})
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// shape renders turns as "kind[@resp](ids)".
func shape(turns []llm.Turn) []string {
	var out []string
	for _, tu := range turns {
		var ids []string
		for _, e := range tu.Entries {
			ids = append(ids, e.ID())
		}
		s := tu.Kind.String()
		if tu.ResponseID != "" {
			s += "@" + tu.ResponseID
		}
		out = append(out, s+"("+strings.Join(ids, " ")+")")
	}
	return out
}

func TestTurns(t *testing.T) {
	tests := []struct {
		name     string
		timeline []string
		want     []string
	}{
		{"empty", nil, nil},
		{"a plain exchange",
			[]string{"u:u1", "a:m1@r1"},
			[]string{"user(u1)", "assistant@r1(m1)"}},
		{"consecutive user messages are one turn",
			[]string{"u:u1", "u:u2", "a:m1@r1", "u:u3"},
			[]string{"user(u1 u2)", "assistant@r1(m1)", "user(u3)"}},
		{"a response with thoughts, text and calls, then its results",
			[]string{"u:u1", "t:t1@r1", "a:m1@r1", "c:c1@r1", "c:c2@r1", "a:m2@r2"},
			[]string{"user(u1)", "assistant@r1(t1 m1 c1 c2)", "toolResults(c1 c2)", "assistant@r2(m2)"}},
		{"two consecutive tool-only responses stay apart",
			[]string{"u:u1", "c:c1@r1", "c:c2@r2", "a:m1@r3"},
			[]string{"user(u1)", "assistant@r1(c1)", "toolResults(c1)", "assistant@r2(c2)", "toolResults(c2)", "assistant@r3(m1)"}},
		{"interleaved thinking keeps its place",
			[]string{"u:u1", "t:t1@r1", "c:c1@r1", "t:t2@r1", "c:c2@r1"},
			[]string{"user(u1)", "assistant@r1(t1 c1 t2 c2)", "toolResults(c1 c2)"}},
		{"history without ids groups as a response stores it",
			[]string{"u:u1", "t:t1", "a:m1", "c:c1", "t:t2", "c:c2", "a:m2", "a:m3"},
			[]string{"user(u1)", "assistant(t1 m1 c1)", "toolResults(c1)", "assistant(t2 c2)", "toolResults(c2)", "assistant(m2)", "assistant(m3)"}},
		{"an entry without id next to a response is its own turn",
			[]string{"a:m1@r1", "c:c1"},
			[]string{"assistant@r1(m1)", "assistant(c1)", "toolResults(c1)"}},
		{"a user note after calls closes the turn",
			[]string{"c:c1@r1", "u:note"},
			[]string{"assistant@r1(c1)", "toolResults(c1)", "user(note)"}},
	}
	for _, tt := range tests {
		var tl []dispatch.Entry
		for _, c := range tt.timeline {
			tl = append(tl, entry(t, c))
		}
		tl = append(tl, dispatch.Entry{}) // holding no value: skipped
		if diff := cmp.Diff(tt.want, shape(llm.Turns(tl))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestTurnToolCalls(t *testing.T) {
	turns := llm.Turns([]dispatch.Entry{entry(t, "t:t1@r"), entry(t, "c:c1@r"), entry(t, "c:c2@r")})
	var ids []string
	for _, c := range turns[0].ToolCalls() {
		ids = append(ids, c.ID())
	}
	if diff := cmp.Diff([]string{"c1", "c2"}, ids); diff != "" {
		t.Errorf("ToolCalls (-want +got):\n%s", diff)
	}
}
