package turnrunner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// An open approval gate is found by its turn and id, settled through the
// lookup, and found no more once settled; another turn's id finds nothing;
// the id does not derive from the call id the model chose.
func TestGateLookup(t *testing.T) {
	tests := []struct {
		name    string
		approve bool
		want    string // the stored result text
	}{
		{"approve", true, "removed"},
		{"deny", false, "denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := textTool(t, "rm", func(context.Context, map[string]any) (string, error) { return "removed", nil }, nil)
			m := scripted.New(scripted.Use(scripted.Call{ID: "c", Name: "rm", Args: `{"q":"x"}`}), scripted.Say("done"))
			r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{rm}, RequireApproval: []string{"rm"}})
			ch, err := r.Run(context.Background(), turnrunner.Input{TurnID: "owner-turn", Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			var id string
			for ev := range ch {
				o, ok := ev.(turnrunner.GateOpen)
				if !ok {
					continue
				}
				id = o.Gate.ID()
				if strings.Contains(id, "c") && !strings.HasPrefix(id, "approval-") || len(id) < len("approval-")+32 {
					t.Errorf("gate id %q looks guessable", id)
				}
				if _, ok := r.Gate("other-turn", id); ok {
					t.Error("gate found under another turn's id")
				}
				if _, ok := r.Gate("owner-turn", "approval-c"); ok {
					t.Error("gate found by a guessed id")
				}
				g, ok := r.Gate("owner-turn", id)
				if !ok || g != o.Gate {
					t.Fatalf("Gate(owner-turn, %q) = %v, %v", id, g, ok)
				}
				if err := g.Resolve(tt.approve); err != nil {
					t.Fatal(err)
				}
				if _, ok := r.Gate("owner-turn", id); ok {
					t.Error("settled gate still found")
				}
			}
			if id == "" {
				t.Fatal("no gate opened")
			}
			if got := resultText(t, storedCalls(t, r, "owner-turn")[0]); !strings.Contains(got, tt.want) {
				t.Errorf("result %q, want %q", got, tt.want)
			}
		})
	}
}

// A gate of a turn that ends (cancelled) is no longer found.
func TestGateLookupAfterCancel(t *testing.T) {
	rm := textTool(t, "rm", func(context.Context, map[string]any) (string, error) { return "removed", nil }, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "c", Name: "rm", Args: `{"q":"x"}`}), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{rm}, RequireApproval: []string{"rm"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := r.Run(ctx, turnrunner.Input{TurnID: "t", Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for ev := range ch {
		if o, ok := ev.(turnrunner.GateOpen); ok {
			id = o.Gate.ID()
			cancel()
		}
	}
	if _, ok := r.Gate("t", id); ok || id == "" {
		t.Errorf("gate %q of an ended turn found (or none opened)", id)
	}
}
