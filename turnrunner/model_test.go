package turnrunner_test

import (
	"context"
	"testing"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// A tool call's opaque payload (a thought signature) is kept on the stored
// call and given back to the model on the next request.
func TestToolCallPayloadRoundTrip(t *testing.T) {
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(
		scripted.Use(scripted.Call{ID: "c1", Name: "echo", Args: `{"q":"a"}`, Pieces: 2,
			Payload: []byte(`{"thought_signature":"sig=="}`), ReplayCompatibility: "gemini"},
			scripted.Call{ID: "c2", Name: "echo", Args: `{"q":"b"}`}),
		scripted.Say("done"),
	)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	if end := turnEnd(t, run(t, r, turnrunner.Input{Prompt: "go"})); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("turn %s: %v", end.Status, end.Err)
	}
	var got []string
	for _, e := range m.Requests()[1].Timeline {
		if c := e.ToolCall; c != nil {
			got = append(got, c.ID()+" "+string(c.Payload())+" "+c.ReplayCompatibility())
		}
	}
	want := []string{`c1 {"thought_signature":"sig=="} gemini`, "c2  "}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("stored calls = %q, want %q", got, want)
	}
}
