// The code of the guides in this directory: every ```go block of a guide
// is a piece of one of these examples (TestGuideSnippets checks it), so
// the guides' code compiles and runs with the tests.
package docs_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/media"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/jsonartifact"
	"github.com/ebbforge/adk/turnrunner"
	"github.com/rs/zerolog"
)

// weatherArgs are the weather tool's arguments; its JSON Schema is derived
// from the struct.
type weatherArgs struct {
	City string `json:"city" jsonschema:"the city to look up"`
}

func weather(ctx context.Context, a weatherArgs, inv forge.Invocation) (forge.Output, error) {
	return forge.TextOutput("sunny in " + a.City), nil
}

// Getting started: a typed tool, a model, a runner, and the turn's events.
func Example_gettingStarted() {
	ctx := context.Background()
	tool, err := forge.NewTypedTool("weather", "Current weather of a city.", weather, nil)
	if err != nil {
		panic(err)
	}
	// Any llm.Model works here; scripted plays back the steps it is given.
	model := scripted.New(
		scripted.Use(scripted.Call{ID: "c1", Name: "weather", Args: `{"city":"Oslo"}`}),
		scripted.Say("It is sunny ", "in Oslo."),
	)
	runner, err := turnrunner.New(model, &turnrunner.Options{Tools: []*forge.Tool{tool}})
	if err != nil {
		panic(err)
	}
	events, err := runner.Run(ctx, turnrunner.Input{
		System: "You answer questions about the weather.",
		Prompt: "What is the weather in Oslo?",
	})
	if err != nil {
		panic(err)
	}
	for ev := range events { // the runner closes the channel after TurnEnd
		switch e := ev.(type) {
		case turnrunner.ToolCallContent:
			if e.IsComplete {
				text, _ := llm.RenderResult(ctx, e.Call)
				fmt.Printf("tool %s(%s) -> %s\n", e.Tool, e.Call.Args(), text)
			}
		case turnrunner.MessageDelta:
			if !e.IsComplete {
				fmt.Printf("delta %q\n", e.Delta)
			}
		case turnrunner.TurnEnd:
			fmt.Println("turn", e.Status)
		}
	}
	// Output:
	// tool weather({"city":"Oslo"}) -> sunny in Oslo
	// delta "It is sunny "
	// delta "in Oslo."
	// turn completed
}

// Tools: what the model sees when a call fails, times out or is malformed.
func Example_toolFailures() {
	ctx := context.Background()
	type lookupArgs struct {
		ID int `json:"id" jsonschema:"the order id"`
	}
	lookup, _ := forge.NewTypedTool("lookup_order", "Look up an order by id.",
		func(ctx context.Context, a lookupArgs, inv forge.Invocation) (forge.Output, error) {
			if a.ID == 404 {
				return forge.Output{}, errors.New("no order 404")
			}
			select { // a slow backend
			case <-time.After(time.Minute):
				return forge.TextOutput("found"), nil
			case <-ctx.Done():
				return forge.Output{}, ctx.Err()
			}
		}, &forge.ToolOptions{Timeout: 50 * time.Millisecond})

	model := scripted.New(
		scripted.Use(
			scripted.Call{ID: "a", Name: "lookup_order", Args: `{"id":404}`},
			scripted.Call{ID: "b", Name: "lookup_order", Args: `{"id":7}`},
			scripted.Call{ID: "c", Name: "lookup_order", Args: `{"id":"seven"}`},
		),
		scripted.Say("Sorry, I could not find it."),
	)
	runner, _ := turnrunner.New(model, &turnrunner.Options{Tools: []*forge.Tool{lookup}})
	events, _ := runner.Run(ctx, turnrunner.Input{Prompt: "Where is my order?"})
	seen := map[string]*forge.ToolCall{} // the calls run in parallel: print them in order
	for ev := range events {
		if e, ok := ev.(turnrunner.ToolCallContent); ok && e.IsComplete {
			seen[e.Call.ID()] = e.Call
		}
	}
	for _, id := range []string{"a", "b", "c"} {
		text, _ := llm.RenderResult(ctx, seen[id]) // what the model reads
		fmt.Printf("%s: error=%v %s\n", id, seen[id].IsError(), errorKind(text))
	}
	// Output:
	// a: error=true E_TOOL_DOWNSTREAM_ERROR
	// b: error=true timed out
	// c: error=true E_INVALID_TOOL_ARGS
}

// errorKind is the stable part of an error result's text: its code, or
// "timed out".
func errorKind(text string) string {
	if code := regexp.MustCompile(`E_[A-Z_]+`).FindString(text); code != "" {
		return code
	}
	if strings.Contains(text, "timed out") {
		return "timed out"
	}
	return text
}

// Tools: media results, with their trust tier and modality hazard.
func Example_mediaResult() {
	ctx := context.Background()
	chart, _ := forge.NewTypedTool("render_chart", "Render a chart as PNG.",
		func(ctx context.Context, a weatherArgs, inv forge.Invocation) (forge.Output, error) {
			img, err := media.ToolGenerated(media.Raw{
				Kind:     media.KindImage,
				MIMEType: "image/png",
				Filename: "chart.png",
				Reader:   media.NewMemoryReader([]byte{0x89, 'P', 'N', 'G'}),
			})
			if err != nil {
				return forge.Output{}, err
			}
			return forge.MediaOutput(img), nil
		}, nil)
	model := scripted.New(
		scripted.Use(scripted.Call{ID: "c1", Name: "render_chart", Args: `{"city":"Oslo"}`}),
		scripted.Say("Here is the chart."),
	)
	runner, _ := turnrunner.New(model, &turnrunner.Options{Tools: []*forge.Tool{chart}})
	events, _ := runner.Run(ctx, turnrunner.Input{Prompt: "Chart Oslo's weather."})
	for ev := range events {
		if e, ok := ev.(turnrunner.ToolCallContent); ok && e.IsComplete {
			m := e.Call.Results().Media()[0]
			fmt.Println(m.Kind(), m.MIMEType(), m.TrustTier(), m.Hazard())
		}
	}
	// Output:
	// image image/png first-party opaque-perceptual
}

// Artifacts: a large JSON Lines result reaches the model as a handle, and
// the model queries it with the forged artifact tools.
func Example_artifacts() {
	ctx := context.Background()
	export, _ := forge.NewTypedTool("export_orders", "Export all orders as JSON Lines.",
		func(ctx context.Context, a struct{}, inv forge.Invocation) (forge.Output, error) {
			var b strings.Builder
			for i := range 5000 {
				fmt.Fprintf(&b, `{"id":%d,"total":%d}`+"\n", i, i%250)
			}
			return forge.TextOutput(b.String()), nil
		}, &forge.ToolOptions{ArtifactKind: jsonartifact.Kind{}})

	model := scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		switch len(req.Timeline) {
		case 1: // only the prompt so far
			return scripted.Use(scripted.Call{ID: "exp", Name: "export_orders"}), nil
		case 2: // the export's handle came back
			return scripted.Use(
				scripted.Call{ID: "n", Name: "artifact_json_length", Args: `{"callId":"exp"}`},
				scripted.Call{ID: "big", Name: "artifact_json_pluck", Args: `{"callId":"exp","path":"#(total>248)#.id"}`},
			), nil
		}
		return scripted.Say("There are 5000 orders; 20 of them total 249."), nil
	})
	runner, _ := turnrunner.New(model, &turnrunner.Options{
		Tools: []*forge.Tool{export},
		// Results over 4 KiB reach the model as handles, not bodies.
		ResultHooks: []turnrunner.ResultHook{spooledartifact.HandleAbove(4 << 10)},
	})
	events, _ := runner.Run(ctx, turnrunner.Input{Prompt: "How many orders total 249?"})
	seen := map[string]string{} // calls of one response run in parallel: print them in order
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.ToolCallContent:
			if e.IsComplete {
				text, _ := llm.RenderResult(ctx, e.Call)
				if !e.Call.Inline() { // a handle: metadata and the tools that read it
					text = fmt.Sprintf("handle naming callId %s: %v", e.Call.ID(), strings.Contains(text, e.Call.ID()))
				}
				seen[e.Tool] = strings.Join(strings.Fields(text), " ")
			}
		case turnrunner.MessageDelta:
			if e.IsComplete {
				seen["answer"] = e.Full
			}
		}
	}
	for _, k := range []string{"export_orders", "artifact_json_length", "artifact_json_pluck", "answer"} {
		fmt.Printf("%s: %s\n", k, seen[k])
	}
	// Output:
	// export_orders: handle naming callId exp: true
	// artifact_json_length: 5000
	// artifact_json_pluck: [ 249, 499, 749, 999, 1249, 1499, 1749, 1999, 2249, 2499, 2749, 2999, 3249, 3499, 3749, 3999, 4249, 4499, 4749, 4999 ]
	// answer: There are 5000 orders; 20 of them total 249.
}

// The turn loop: middleware around each iteration, the loop guard, and an
// approval gate.
func Example_turnLoop() {
	ctx := context.Background()
	deploy, _ := forge.NewTypedTool("deploy", "Deploy a service.",
		func(ctx context.Context, a weatherArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("deployed " + a.City), nil
		}, nil)
	model := scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		if req.Final { // the loop guard withdrew the tools
			return scripted.Say("Deployed."), nil
		}
		return scripted.Use(scripted.Call{Name: "deploy", Args: `{"city":"api"}`}), nil // again and again
	})
	audit := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		dc.Log(zerolog.InfoLevel, "audit", fmt.Sprintf("iteration %d", dc.Iteration()), nil)
		return next(ctx)
	}
	runner, _ := turnrunner.New(model, &turnrunner.Options{
		Tools:           []*forge.Tool{deploy},
		RequireApproval: []string{"deploy"},
		Loop:            dispatch.LoopPolicy{MaxIdenticalCalls: 1, MaxIterations: 5},
		DispatchInput:   []turnrunner.DispatchMiddleware{audit},
	})
	events, _ := runner.Run(ctx, turnrunner.Input{Prompt: "Deploy the api."})
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.Log:
			fmt.Println("log:", e.Message)
		case turnrunner.GateOpen:
			req := e.Gate.Payload().(turnrunner.ToolApproval)
			fmt.Printf("approve %s %s\n", req.Tool, req.Args)
			_ = e.Gate.Resolve(true)
		case turnrunner.ToolExecutionEnd:
			fmt.Println("ran", e.ToolName)
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
	// log: iteration 0
	// approve deploy {"city":"api"}
	// ran deploy
	// log: iteration 1
	// loop guard: blocked-repeat
	// log: iteration 2
	// loop guard: finalize
	// log: iteration 3
	// answer: Deployed.
	// turn completed
}
