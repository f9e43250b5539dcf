package wiretest

import (
	"context"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/turnrunner"
)

// TurnResult is what a turn of the real runner produced.
type TurnResult struct {
	Status    turnrunner.TurnStatus
	Err       error
	Answer    string // the last completed assistant message
	Failed    string // a message closed with an error, if any
	ToolRuns  int    // handler executions
	Retries   int    // "model-retry" warnings
	ToolInput string // the weather tool's city argument
	Warnings  []string
}

type weatherArgs struct {
	City string `json:"city"`
}

// RunTurn runs one turn of a turnrunner.Runner on model, offering a
// "weather" tool that answers "sunny in <city>", with retries a
// millisecond apart. The turn asks "Weather in Paris?".
func RunTurn(t testing.TB, model llm.Model) TurnResult {
	t.Helper()
	var res TurnResult
	weather, err := forge.NewTypedTool("weather", "Current weather of a city.",
		func(ctx context.Context, a weatherArgs, inv forge.Invocation) (forge.Output, error) {
			res.ToolInput = a.City
			return forge.TextOutput("sunny in " + a.City), nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := turnrunner.New(model, &turnrunner.Options{Tools: []*forge.Tool{weather},
		Retry: llm.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	events, err := runner.Run(ctx, turnrunner.Input{System: "Be brief.", Prompt: "Weather in Paris?"})
	if err != nil {
		t.Fatal(err)
	}
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.MessageDelta:
			if e.IsComplete {
				res.Answer = e.Full
			}
			if e.Err != nil {
				res.Failed = e.Full
			}
		case turnrunner.ToolExecutionEnd:
			res.ToolRuns++
		case turnrunner.Warning:
			res.Warnings = append(res.Warnings, e.Kind)
			if e.Kind == "model-retry" {
				res.Retries++
			}
		case turnrunner.TurnEnd:
			res.Status, res.Err = e.Status, e.Err
		}
	}
	return res
}
