package scripted_test

import (
	"context"
	"fmt"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
)

func ExampleNew() {
	model := scripted.New(scripted.Step{
		Thoughts: []string{"easy"},
		Text:     []string{"Hello, ", "world."},
		Usage:    &llm.Usage{InputTokens: 3, OutputTokens: 4},
	})
	for p, err := range model.Stream(context.Background(), &llm.Request{System: "be nice"}) {
		if err != nil {
			panic(err)
		}
		switch p.Kind {
		case llm.PartThought:
			fmt.Printf("thought %q\n", p.Text)
		case llm.PartText:
			fmt.Printf("text %q\n", p.Text)
		case llm.PartUsage:
			fmt.Println("usage", p.Usage.InputTokens, p.Usage.OutputTokens)
		case llm.PartStop:
			fmt.Println("stop", p.StopReason)
		}
	}
	fmt.Println("requests seen:", len(model.Requests()), model.Requests()[0].System)
	// Output:
	// thought "easy"
	// text "Hello, "
	// text "world."
	// usage 3 4
	// stop end
	// requests seen: 1 be nice
}

// NewFunc decides each step from the request: here, call the tool until
// its result is in the timeline, then answer.
func ExampleNewFunc() {
	model := scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		for _, e := range req.Timeline {
			if e.ToolCall != nil {
				return scripted.Say("found it"), nil
			}
		}
		return scripted.Use(scripted.Call{Name: "search", Args: `{"q":"go"}`}), nil
	})
	for p, err := range model.Stream(context.Background(), &llm.Request{}) {
		if err != nil {
			panic(err)
		}
		if p.Kind == llm.PartToolCall {
			fmt.Printf("call %s %s\n", p.Name, p.Text)
		}
	}
	fmt.Println("calls:", model.Calls())
	// Output:
	// call search {"q":"go"}
	// calls: 1
}
