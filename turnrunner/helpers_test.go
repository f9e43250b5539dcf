package turnrunner_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/turnrunner"
)

// collect drains ch (with a safety timeout) and returns every event.
func collect(t testing.TB, ch <-chan turnrunner.Event) []turnrunner.Event {
	t.Helper()
	var evs []turnrunner.Event
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs
			}
			evs = append(evs, ev)
		case <-timeout:
			t.Fatalf("turn did not finish; %d events so far", len(evs))
		}
	}
}

func run(t testing.TB, r *turnrunner.Runner, in turnrunner.Input) []turnrunner.Event {
	t.Helper()
	ch, err := r.Run(context.Background(), in)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return collect(t, ch)
}

func turnEnd(t testing.TB, evs []turnrunner.Event) turnrunner.TurnEnd {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	end, ok := evs[len(evs)-1].(turnrunner.TurnEnd)
	if !ok {
		t.Fatalf("last event is %T, want TurnEnd", evs[len(evs)-1])
	}
	return end
}

func ofType[T turnrunner.Event](evs []turnrunner.Event) []T {
	var out []T
	for _, e := range evs {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

var objectSchema = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":true}`)

func textTool(t testing.TB, name string, fn func(ctx context.Context, args map[string]any) (string, error), opts *forge.ToolOptions) *forge.Tool {
	t.Helper()
	tool, err := forge.NewTool(name, "test tool "+name, objectSchema,
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			s, err := fn(ctx, args)
			if err != nil {
				return forge.Output{}, err
			}
			return forge.TextOutput(s), nil
		}, opts)
	if err != nil {
		t.Fatalf("NewTool(%s): %v", name, err)
	}
	return tool
}

func newRunner(t testing.TB, m llm.Model, o *turnrunner.Options) *turnrunner.Runner {
	t.Helper()
	r, err := turnrunner.New(m, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

// tickingClock is an Options.Now that moves by step at every read, from
// 2000-01-01; safe for concurrent use.
func tickingClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	tick := 0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		tick++
		return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(tick) * step)
	}
}
