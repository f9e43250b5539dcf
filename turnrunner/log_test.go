package turnrunner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// Middleware and tool handlers log to the turn's event stream; each note
// arrives in order with the events around it, enriched with the dispatch
// id, the iteration and the time, and is mirrored to the injected logger.
func TestLogReachesTheStreamInOrder(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	turnIn := func(ctx context.Context, tc *turnrunner.TurnContext, next turnrunner.Next) error {
		tc.Log(zerolog.InfoLevel, "turn-in", "turn starts", nil)
		return next(ctx)
	}
	dispIn := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		dc.Log(zerolog.DebugLevel, "in-before", "before next", map[string]int{"it": dc.Iteration()})
		err := next(ctx)
		dc.Log(zerolog.TraceLevel, "in-after", "after next", nil)
		return err
	}
	dispOut := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		dc.Log(zerolog.WarnLevel, "out", "output step", nil)
		return next(ctx)
	}
	tool, err := forge.NewTool("probe", "logs from a handler", objectSchema,
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			dc, ok := dispatch.FromScope(inv.Scope)
			if !ok {
				return forge.Output{}, fmt.Errorf("no dispatch context in scope %T", inv.Scope)
			}
			dc.Log(zerolog.ErrorLevel, "tool", "from the handler", "payload")
			return forge.TextOutput("probed"), nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var zl bytes.Buffer
	m := scripted.New(scripted.Use(scripted.Call{ID: "p", Name: "probe", Args: `{}`}), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{tool},
		TurnInput: []turnrunner.TurnMiddleware{turnIn}, DispatchInput: []turnrunner.DispatchMiddleware{dispIn},
		DispatchOutput: []turnrunner.DispatchMiddleware{dispOut},
		Logger:         zerolog.New(&zl), Now: func() time.Time { return at }})
	evs := run(t, r, turnrunner.Input{Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}

	var seq []string
	for _, ev := range evs {
		switch e := ev.(type) {
		case turnrunner.DispatchStart:
			seq = append(seq, "dispatch-start")
		case turnrunner.IterationStart:
			seq = append(seq, fmt.Sprintf("iteration-start %d", e.Iteration))
		case turnrunner.GenerationStats:
			seq = append(seq, "model")
		case turnrunner.ToolExecutionStart:
			seq = append(seq, "exec-start")
		case turnrunner.ToolExecutionEnd:
			seq = append(seq, "exec-end")
		case turnrunner.IterationEnd:
			seq = append(seq, fmt.Sprintf("iteration-end %d", e.Iteration))
		case turnrunner.Log:
			seq = append(seq, fmt.Sprintf("log %s %s %d", e.Level, e.Kind, e.Iteration))
		}
	}
	want := []string{
		"log info turn-in 0",
		"dispatch-start",
		// The input middleware wraps the model call, the tools and the output chain.
		"iteration-start 0", "log debug in-before 0", "model",
		"exec-start", "log error tool 0", "exec-end",
		"log warn out 0", "log trace in-after 0", "iteration-end 0",
		"iteration-start 1", "log debug in-before 1", "model",
		"log warn out 1", "log trace in-after 1", "iteration-end 1",
	}
	if d := cmp.Diff(want, seq); d != "" {
		t.Errorf("event order (-want +got):\n%s", d)
	}

	dispatchID := ofType[turnrunner.DispatchStart](evs)[0].DispatchID
	logs := ofType[turnrunner.Log](evs)
	if logs[0].DispatchID != "" {
		t.Errorf("turn-level log has dispatch id %q", logs[0].DispatchID)
	}
	for _, l := range logs[1:] {
		if l.DispatchID != dispatchID || !l.EmittedAt.Equal(at) {
			t.Errorf("log %+v: want dispatch %s at %v", l, dispatchID, at)
		}
	}
	if d := cmp.Diff(map[string]int{"it": 1}, logs[5].Payload); d != "" {
		t.Errorf("payload (-want +got):\n%s", d)
	}

	// Mirrored to the injected logger, one JSON line per note.
	lines := strings.Split(strings.TrimSpace(zl.String()), "\n")
	var mirrored []string
	for _, ln := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(ln), &rec); err != nil {
			t.Fatalf("logger line %q: %v", ln, err)
		}
		if k, ok := rec["kind"].(string); ok {
			mirrored = append(mirrored, fmt.Sprint(rec["level"], " ", k, " ", rec["message"]))
			if k == "tool" && (rec["dispatch"] != dispatchID || rec["payload"] != "payload") {
				t.Errorf("mirrored tool log %v", rec)
			}
		}
	}
	if len(mirrored) != len(logs) || mirrored[0] != "info turn-in turn starts" || mirrored[2] != "error tool from the handler" {
		t.Errorf("mirrored = %q", mirrored)
	}
}

// A context kept past the end of its turn logs nothing and does not panic
// on the closed channel.
func TestLogAfterTurnIsANoOp(t *testing.T) {
	dispatchAfterTurn(t).Log(zerolog.InfoLevel, "late", "after the turn", nil)
}

// dispatchAfterTurn runs a turn to completion and returns its dispatch
// context, kept past the turn's end by a middleware.
func dispatchAfterTurn(t *testing.T) *dispatch.Context {
	t.Helper()
	var kept *dispatch.Context
	keep := func(ctx context.Context, dc *dispatch.Context, next turnrunner.Next) error {
		kept = dc
		return next(ctx)
	}
	r := newRunner(t, scripted.New(scripted.Say("hi")), &turnrunner.Options{DispatchInput: []turnrunner.DispatchMiddleware{keep}})
	evs := run(t, r, turnrunner.Input{Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	return kept
}
