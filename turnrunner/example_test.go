package turnrunner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
	"github.com/rs/zerolog"
)

type weatherArgs struct {
	City string `json:"city"`
}

func ExampleRunner_Run() {
	weather, _ := forge.NewTypedTool("weather", "Current weather of a city.",
		func(ctx context.Context, a weatherArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("sunny in " + a.City), nil
		}, nil)
	model := scripted.New(
		scripted.Use(scripted.Call{ID: "c1", Name: "weather", Args: `{"city":"Oslo"}`}),
		scripted.Say("It is ", "sunny in Oslo."),
	)
	runner, err := turnrunner.New(model, &turnrunner.Options{Tools: []*forge.Tool{weather}})
	if err != nil {
		panic(err)
	}
	events, err := runner.Run(context.Background(), turnrunner.Input{Prompt: "Weather in Oslo?"})
	if err != nil {
		panic(err)
	}
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.ToolCallContent:
			if e.IsComplete {
				text, _ := llm.RenderResult(context.Background(), e.Call)
				fmt.Printf("%s -> %s\n", e.Tool, text)
			}
		case turnrunner.MessageDelta:
			if e.IsComplete {
				fmt.Println("answer:", e.Full)
			}
		case turnrunner.TurnEnd:
			fmt.Println("turn", e.Status)
		}
	}
	// Output:
	// weather -> sunny in Oslo
	// answer: It is sunny in Oslo.
	// turn completed
}

func Example_loopPolicy() {
	ping, _ := forge.NewTypedTool("ping", "Ping a host.",
		func(ctx context.Context, a weatherArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("pong"), nil
		}, nil)
	// A model that keeps repeating the same call until tools are withdrawn.
	model := scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		if req.Final {
			return scripted.Say("The host answers."), nil
		}
		return scripted.Use(scripted.Call{Name: "ping", Args: `{"city":"x"}`}), nil
	})
	runner, _ := turnrunner.New(model, &turnrunner.Options{
		Tools: []*forge.Tool{ping},
		Loop:  dispatch.LoopPolicy{MaxIdenticalCalls: 2, MaxIterations: 10},
	})
	events, _ := runner.Run(context.Background(), turnrunner.Input{Prompt: "Is it up?"})
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.LoopGuard:
			fmt.Println("loop guard:", e.Decision)
		case turnrunner.MessageDelta:
			if e.IsComplete {
				fmt.Println("answer:", e.Full)
			}
		case turnrunner.TurnEnd:
			fmt.Println("turn", e.Status)
		}
	}
	// Output:
	// loop guard: blocked-repeat
	// loop guard: finalize
	// answer: The host answers.
	// turn completed
}

// Middleware and tool handlers log to the turn's event stream with
// dispatch.Context.Log; the notes arrive as Log events, in order.
func Example_log() {
	audit := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		dc.Log(zerolog.InfoLevel, "audit", fmt.Sprintf("iteration %d starts", dc.Iteration()), nil)
		return next(ctx)
	}
	runner, _ := turnrunner.New(scripted.New(scripted.Say("Hello.")), &turnrunner.Options{
		DispatchInput: []turnrunner.DispatchMiddleware{audit},
	})
	events, _ := runner.Run(context.Background(), turnrunner.Input{Prompt: "Hi"})
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.Log:
			fmt.Printf("log %s %s: %s\n", e.Level, e.Kind, e.Message)
		case turnrunner.MessageDelta:
			if e.IsComplete {
				fmt.Println("answer:", e.Full)
			}
		}
	}
	// Output:
	// log info audit: iteration 0 starts
	// answer: Hello.
}

// Tools listed in RequireApproval open a gate before each call: the
// consumer sees GateOpen and resolves it with true (run) or false (deny).
func Example_approval() {
	deploy, _ := forge.NewTypedTool("deploy", "Deploy a service.",
		func(ctx context.Context, a weatherArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("deployed " + a.City), nil
		}, nil)
	model := scripted.New(
		scripted.Use(scripted.Call{ID: "c1", Name: "deploy", Args: `{"city":"api"}`}),
		scripted.Say("Done."),
	)
	runner, _ := turnrunner.New(model, &turnrunner.Options{
		Tools: []*forge.Tool{deploy}, RequireApproval: []string{"deploy"},
	})
	events, _ := runner.Run(context.Background(), turnrunner.Input{Prompt: "Deploy the api."})
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.GateOpen:
			req := e.Gate.Payload().(turnrunner.ToolApproval)
			fmt.Printf("approve %s %s? yes\n", req.Tool, req.Args)
			_ = e.Gate.Resolve(true)
		case turnrunner.ToolCallContent:
			if e.Call != nil {
				text, _ := llm.RenderResult(context.Background(), e.Call)
				fmt.Println("result:", text)
			}
		case turnrunner.TurnEnd:
			fmt.Println("turn", e.Status)
		}
	}
	// Output:
	// approve deploy {"city":"api"}? yes
	// result: deployed api
	// turn completed
}

type tenantKey struct{}

// Turn input middleware wraps the dispatch: the ctx it hands to next
// reaches the model and the tools, and code after next runs after the
// answer is in.
func Example_middleware() {
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		tenant, _ := ctx.Value(tenantKey{}).(string)
		return func(yield func(llm.Part, error) bool) {
			yield(llm.TextPart("hello, "+tenant), nil)
		}
	})
	withTenant := func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error {
		fmt.Println("before: timeline has", len(tc.Timeline()), "entry")
		err := next(context.WithValue(ctx, tenantKey{}, "acme"))
		fmt.Println("after: answer is", tc.Answer())
		return err
	}
	runner, _ := turnrunner.New(model, &turnrunner.Options{TurnInput: []turnrunner.TurnMiddleware{withTenant}})
	events, _ := runner.Run(context.Background(), turnrunner.Input{Prompt: "hi"})
	for ev := range events {
		if e, ok := ev.(turnrunner.TurnEnd); ok {
			fmt.Println("turn", e.Status)
		}
	}
	// Output:
	// before: timeline has 1 entry
	// after: answer is hello, acme
	// turn completed
}

// With SuspendOnApproval a turn of a conversation ends suspended instead
// of waiting; its gates are in the store, and Resume continues the turn
// with the answers, here or in another process sharing the store.
func ExampleRunner_Resume() {
	deploy, _ := forge.NewTypedTool("deploy", "Deploy a service.",
		func(ctx context.Context, a weatherArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("deployed " + a.City), nil
		}, nil)
	model := scripted.New(
		scripted.Use(scripted.Call{ID: "c1", Name: "deploy", Args: `{"city":"api"}`}),
		scripted.Say("Deployed."),
	)
	store := dispatch.NewMemoryStore()
	runner, _ := turnrunner.New(model, &turnrunner.Options{
		Tools: []*forge.Tool{deploy}, RequireApproval: []string{"deploy"},
		Store: store, SuspendOnApproval: true,
	})
	ctx := context.Background()
	end := func(events <-chan turnrunner.Event) {
		for ev := range events {
			if e, ok := ev.(turnrunner.TurnEnd); ok {
				fmt.Println("turn", e.Status)
			}
		}
	}
	events, _ := runner.Run(ctx, turnrunner.Input{TurnID: "t1", ConversationID: "ops", Prompt: "Deploy the api."})
	end(events)

	info, _, _ := store.Turn(ctx, "t1")
	answers := map[string]bool{}
	for _, g := range info.Gates {
		var req turnrunner.ToolApproval
		_ = json.Unmarshal(g.Payload, &req)
		fmt.Printf("approve %s %s? yes\n", req.Tool, req.Args)
		answers[g.ID] = true
	}
	events, _ = runner.Resume(ctx, turnrunner.ResumeInput{TurnID: "t1", Approvals: answers})
	end(events)
	// Output:
	// turn suspended
	// approve deploy {"city":"api"}? yes
	// turn completed
}
