// Command quickstart is a complete agent on the scripted model: no keys, no
// network. The model calls a custom typed tool, fetch_logs, that returns a
// multi-thousand-line log. The runner spools it; because it is large it is
// surfaced to the model as a handle (spooledartifact.HandleAbove), so the
// model queries it with artifact_grep and artifact_tail, using the callId it
// saw, and then answers. Every event of the turn is printed as it streams.
//
//	go run ./examples/quickstart
//
// The same program runs against a real model when ADK_PROVIDER is set
// (see examples/internal/modelenv):
//
//	ADK_PROVIDER=openai ADK_BASE_URL=http://localhost:11434/v1 ADK_MODEL=qwen3:8b go run ./examples/quickstart
//	ADK_PROVIDER=anthropic ADK_MODEL=claude-sonnet-4-5 ADK_API_KEY=sk-ant-… go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/examples/internal/modelenv"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
	"github.com/rs/zerolog"
)

// fetchLogsArgs are fetch_logs' arguments; the JSON Schema is derived from them.
type fetchLogsArgs struct {
	Service string `json:"service" jsonschema:"the service whose logs to fetch"`
	Lines   int    `json:"lines,omitempty" jsonschema:"how many lines (default 5000)"`
}

// fetchLogs streams a synthetic log: mostly INFO, a few WARN and ERROR lines.
func fetchLogs(ctx context.Context, args fetchLogsArgs, inv forge.Invocation) (forge.Output, error) {
	n := args.Lines
	if n <= 0 {
		n = 5000
	}
	// Handlers reach the dispatch through their invocation's scope, e.g. to
	// log a note to the turn's event stream.
	if dc, ok := dispatch.FromScope(inv.Scope); ok {
		dc.Log(zerolog.InfoLevel, "fetch", fmt.Sprintf("streaming %d lines of %s logs", n, args.Service), nil)
	}
	pr, pw := io.Pipe()
	go func() {
		start := time.Date(2026, 6, 11, 9, 0, 0, 0, time.UTC)
		var err error
		for i := 0; i < n && err == nil; i++ {
			ts := start.Add(time.Duration(i) * 250 * time.Millisecond).Format(time.RFC3339)
			level, msg := "INFO", fmt.Sprintf("GET /v1/orders/%d 200 %dms", 1000+i, 5+i%40)
			switch {
			case i%1250 == 1249:
				level, msg = "ERROR", fmt.Sprintf("upstream payments timed out after 30s (order %d)", 1000+i)
			case i%700 == 0:
				level, msg = "WARN", "connection pool at 90% capacity"
			}
			_, err = fmt.Fprintf(pw, "%s %s %s %s\n", ts, level, args.Service, msg)
		}
		pw.CloseWithError(err)
	}()
	return forge.ReaderOutput(pr), nil
}

// brain is the scripted model's behaviour: it decides from what it was sent.
func brain(ctx context.Context, req *llm.Request) (scripted.Step, error) {
	last := lastToolCalls(req)
	switch {
	case len(last) == 0:
		return scripted.Step{
			Thoughts: []string{"The user wants to know why checkout fails. ", "I should look at the api logs."},
			Text:     []string{"Let me pull the api logs."},
			Calls:    []scripted.Call{{ID: "call_logs", Name: "fetch_logs", Args: `{"service":"api","lines":5000}`}},
		}, nil
	case last[0].Tool() == "fetch_logs":
		// The result is a handle: read the callId it names and query the artifact.
		handle, err := llm.RenderResult(ctx, last[0])
		if err != nil {
			return scripted.Step{}, err
		}
		m := regexp.MustCompile(`callId=([^\s:]+)`).FindStringSubmatch(handle)
		if m == nil {
			return scripted.Say("I could not read the logs."), nil
		}
		id := m[1]
		return scripted.Step{
			Text: []string{"The log is large; searching it for errors."},
			Calls: []scripted.Call{
				{ID: "call_grep", Name: "artifact_grep", Args: `{"callId":"` + id + `","pattern":"ERROR"}`},
				{ID: "call_tail", Name: "artifact_tail", Args: `{"callId":"` + id + `","n":3}`},
			},
		}, nil
	default:
		grep, err := llm.RenderResult(ctx, last[0])
		if err != nil {
			return scripted.Step{}, err
		}
		tail, err := llm.RenderResult(ctx, last[1])
		if err != nil {
			return scripted.Step{}, err
		}
		recent := "The most recent lines look healthy."
		if strings.Contains(tail, "ERROR") {
			recent = "The most recent lines show it is still happening."
		}
		return scripted.Say(
			fmt.Sprintf("I found %d ERROR lines in the api log. ", strings.Count(grep, "ERROR")),
			"Each is an upstream payments timeout after 30s, ",
			"so checkout fails when the payments service stalls. ",
			recent), nil
	}
}

// lastToolCalls returns the tool calls at the end of the timeline (the
// previous response's calls).
func lastToolCalls(req *llm.Request) []*forge.ToolCall {
	var out []*forge.ToolCall
	for i := len(req.Timeline) - 1; i >= 0 && req.Timeline[i].ToolCall != nil; i-- {
		out = append([]*forge.ToolCall{req.Timeline[i].ToolCall}, out...)
	}
	return out
}

func main() {
	cfg, err := modelenv.Load(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", cfg.Explain(err))
		os.Exit(1)
	}
}

// run plays one turn on the model cfg selects and prints its events to w.
func run(ctx context.Context, w io.Writer, cfg modelenv.Config) error {
	tool, err := forge.NewTypedTool("fetch_logs", "Fetch recent log lines of a service.", fetchLogs, nil)
	if err != nil {
		return err
	}
	model, err := cfg.New(scripted.NewFunc(brain))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "model: %s\n", cfg)
	runner, err := turnrunner.New(model, &turnrunner.Options{
		Tools: []*forge.Tool{tool},
		// Results over 4 KiB reach the model as handles, not bodies.
		ResultHooks: []turnrunner.ResultHook{spooledartifact.HandleAbove(4 << 10)},
	})
	if err != nil {
		return err
	}
	events, err := runner.Run(ctx, turnrunner.Input{
		System: "You are an on-call assistant. Use tools to inspect systems.",
		Prompt: "Why is checkout failing?",
	})
	if err != nil {
		return err
	}
	var status turnrunner.TurnStatus
	var turnErr error
	for ev := range events {
		print(ctx, w, ev)
		if end, ok := ev.(turnrunner.TurnEnd); ok {
			status, turnErr = end.Status, end.Err
		}
	}
	if status != turnrunner.TurnCompleted {
		if turnErr == nil {
			turnErr = fmt.Errorf("turn %s", status)
		}
		return turnErr
	}
	return nil
}

// print renders one event as a readable line.
func print(ctx context.Context, w io.Writer, ev turnrunner.Event) {
	switch e := ev.(type) {
	case turnrunner.TurnStart:
		fmt.Fprintf(w, "▶ turn %s\n", short(e.TurnID))
	case turnrunner.IterationStart:
		fmt.Fprintf(w, "\n── iteration %d\n", e.Iteration)
	case turnrunner.ThoughtDelta:
		if e.IsComplete {
			fmt.Fprintf(w, "  💭 %s\n", e.Full)
		}
	case turnrunner.MessageDelta:
		if e.IsComplete {
			fmt.Fprintf(w, "  🤖 %s\n", e.Full)
		}
	case turnrunner.ToolCallContent:
		if !e.IsComplete {
			fmt.Fprintf(w, "  🔧 %s %s (id %s)\n", e.Tool, e.Args, e.ID)
			return
		}
		text := ""
		if e.Call != nil {
			text, _ = llm.RenderResult(ctx, e.Call)
		}
		mark := "✓"
		if e.IsError {
			mark = "✗"
		}
		fmt.Fprintf(w, "  %s %s → %s\n", mark, e.Tool, indent(clip(text, 12)))
	case turnrunner.ToolExecutionEnd:
		fmt.Fprintf(w, "  ⏱  %s ran in %s\n", e.ToolName, e.Duration.Round(time.Microsecond))
	case turnrunner.Log:
		fmt.Fprintf(w, "  📝 %s %s: %s\n", e.Level, e.Kind, e.Message)
	case turnrunner.LoopGuard:
		fmt.Fprintf(w, "  ⚠ loop guard: %s %s\n", e.Decision, e.Message)
	case turnrunner.Warning:
		fmt.Fprintf(w, "  ⚠ %s: %s\n", e.Kind, e.Message)
	case turnrunner.Error:
		fmt.Fprintf(w, "  ✗ error: %v\n", e.Err)
	case turnrunner.DispatchEnd:
		fmt.Fprintf(w, "\n■ dispatch %s after %d iterations\n", e.Status, e.Iterations)
	case turnrunner.TurnEnd:
		fmt.Fprintf(w, "■ turn %s in %s\n", e.Status, e.Duration.Round(time.Microsecond))
	}
}

func short(id string) string { return id[:min(8, len(id))] }

// clip keeps the first n lines of s.
func clip(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n      ") }
