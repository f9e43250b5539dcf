package turnrunner_test

import (
	"context"
	"fmt"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// Every event marshals to its wire form: a type field and camelCase fields.
func ExampleMarshalEvent() {
	b, _ := turnrunner.MarshalEvent(context.Background(), turnrunner.MessageDelta{ID: "m1", Delta: "Hi", Full: "Hi"})
	fmt.Println(string(b))
	// Output:
	// {"type":"messageDelta","id":"m1","delta":"Hi","full":"Hi","isComplete":false}
}

// An approval is answered from outside the event loop (an HTTP handler, a
// queue consumer) by looking the gate up by its turn and id.
func ExampleRunner_Gate() {
	rm, _ := forge.NewTypedTool("rm", "Remove a file.",
		func(ctx context.Context, a struct {
			Path string `json:"path"`
		}, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("removed " + a.Path), nil
		}, nil)
	model := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "rm", Args: `{"path":"/tmp/x"}`}), scripted.Say("Done."))
	runner, _ := turnrunner.New(model, &turnrunner.Options{Tools: []*forge.Tool{rm}, RequireApproval: []string{"rm"}})
	events, _ := runner.Run(context.Background(), turnrunner.Input{TurnID: "turn-1", Prompt: "clean up"})
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.GateOpen:
			// Later, in the request that carries the user's answer:
			if g, ok := runner.Gate("turn-1", e.Gate.ID()); ok {
				_ = g.Resolve(true)
			}
		case turnrunner.ToolCallContent:
			if e.IsComplete {
				text, _ := llm.RenderResult(context.Background(), e.Call)
				fmt.Println(e.Tool, "->", text)
			}
		case turnrunner.TurnEnd:
			fmt.Println(e.Status)
		}
	}
	// Output:
	// rm -> removed /tmp/x
	// completed
}
