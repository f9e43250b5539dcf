package turnrunner_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/golden"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/media"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
	"github.com/rs/zerolog"
)

var update = flag.Bool("update", false, "rewrite golden files")

const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// wireEvents is one of every event, with the cases the wire form must get
// right: zero times, coded and plain errors, every result shape.
func wireEvents(t *testing.T) []turnrunner.Event {
	t.Helper()
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	t1 := t0.Add(1500 * time.Microsecond)
	store := spooledartifact.NewMemoryStore()
	call := func(id string, results any, inline bool, isErr bool) *forge.ToolCall {
		c, err := forge.NewToolCall(forge.RawToolCall{ID: id, Tool: "grep", Args: `{"q":"x"}`, Checksum: sum,
			Results: results, IsComplete: true, IsError: isErr, Inline: &inline, CreatedAt: t0, CompletedAt: t1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	art, err := spooledartifact.SpoolString(ctx, store, "t/c3", spooledartifact.PlainKind{}, "line 1\nline 2")
	if err != nil {
		t.Fatal(err)
	}
	img, err := media.New(media.Raw{ID: "m1", Kind: media.KindImage, MIMEType: "image/png", Filename: "chart.png", TrustTier: media.FirstParty, Hazard: media.OpaquePerceptual,
		Reader: media.NewMemoryReader([]byte{0x89, 'P', 'N', 'G'})})
	if err != nil {
		t.Fatal(err)
	}
	text := call("c1", forge.NewTokenizable("<script>alert(1)</script>"), true, false)
	failed := call("c2", forge.NewTokenizable("E_TOOL_NOT_FOUND: no tool"), true, true)
	handle := call("c3", art, false, false)
	inline := call("c4", art, true, false)
	pic := call("c5", img, true, false)
	gate := gateOf(t)
	coded := turnrunner.ErrModel.With(errors.New("connection reset"), "turnrunner: model call failed")
	completed := func(c *forge.ToolCall) turnrunner.ToolCallContent {
		return turnrunner.ToolCallContent{ID: c.ID(), Tool: c.Tool(), Args: c.Args(), Checksum: sum, Results: c.Results(),
			IsError: c.IsError(), IsComplete: !c.IsError(), Call: c, CreatedAt: t0, UpdatedAt: t1, CompletedAt: t1}
	}
	return []turnrunner.Event{
		turnrunner.TurnStart{TurnID: "t", StartedAt: t0},
		turnrunner.DispatchStart{TurnID: "t", DispatchID: "d", StartedAt: t0},
		turnrunner.IterationStart{DispatchID: "d", Iteration: 1, StartedAt: t0},
		turnrunner.ThoughtDelta{ID: "th", Delta: "hm", Full: "hm", CreatedAt: t0},
		turnrunner.ThoughtDelta{ID: "th", Full: "hm", Payload: json.RawMessage(`{"sig":"x"}`), ReplayCompatibility: "p", IsComplete: true, CreatedAt: t0, CompletedAt: t1},
		turnrunner.MessageDelta{ID: "m", Delta: "Hel", Full: "Hel", CreatedAt: t0},
		turnrunner.MessageDelta{ID: "m", Full: "Hello", IsComplete: true, CreatedAt: t0, CompletedAt: t1},
		turnrunner.ToolCallContent{ID: "c1", Tool: "grep", Args: json.RawMessage(`{"q":"x"}`), Checksum: sum, CreatedAt: t0, UpdatedAt: t0},
		turnrunner.ToolExecutionStart{TurnID: "t", DispatchID: "d", ToolName: "grep", ToolCallID: "c1", Checksum: sum, Args: map[string]any{"q": "x"}, StartedAt: t0},
		turnrunner.ToolExecutionEnd{TurnID: "t", DispatchID: "d", ToolName: "grep", ToolCallID: "c1", Checksum: sum, StartedAt: t0, EndedAt: t1, Duration: t1.Sub(t0)},
		turnrunner.ToolExecutionEnd{TurnID: "t", DispatchID: "d", ToolName: "grep", ToolCallID: "c1", Checksum: sum, StartedAt: t0, EndedAt: t1, Duration: t1.Sub(t0), IsError: true, Err: errors.New("disk full")},
		completed(text),
		completed(failed),
		completed(handle),
		completed(inline),
		completed(pic),
		turnrunner.ToolCallContent{ID: "c6", Tool: "grep", Args: json.RawMessage(`{"q":"x"}`), Checksum: sum, IsError: true, Cancelled: true,
			Results: forge.TextResults(forge.NewTokenizable("E_TOOL_CALL_CANCELLED: cancelled")), CreatedAt: t0, UpdatedAt: t1},
		turnrunner.LoopGuard{DispatchID: "d", Iteration: 2, Decision: turnrunner.LoopBlockedRepeat, Tool: "grep", ToolCallID: "c7", Checksum: sum, Count: 3, Limit: 2, Message: "repeated"},
		turnrunner.GateOpen{Gate: gate},
		turnrunner.GateClosed{GateID: gate.ID(), TurnID: "t", Result: turnrunner.GateResolved, SettledAt: t1},
		turnrunner.Log{DispatchID: "d", Iteration: 1, Level: zerolog.InfoLevel, Kind: "note", Message: "hi", Payload: map[string]int{"n": 1}, EmittedAt: t0},
		turnrunner.Log{Level: zerolog.WarnLevel, Kind: "bad", Message: "unencodable", Payload: func() {}},
		turnrunner.Warning{DispatchID: "d", Iteration: 1, Kind: "truncated", Message: "cut", Err: turnrunner.ErrTruncatedResponse.With(nil, "cut at max_tokens"), EmittedAt: t0},
		turnrunner.Error{DispatchID: "d", Iteration: 1, Err: coded, EmittedAt: t0},
		turnrunner.Error{Err: fmt.Errorf("wrapped: %w", context.Canceled)},
		turnrunner.GenerationStats{DispatchID: "d", Iteration: 1, HasUsage: true, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}, StopReason: llm.StopEnd, Duration: 2 * time.Second},
		turnrunner.IterationEnd{DispatchID: "d", Iteration: 1, StartedAt: t0, EndedAt: t1, Duration: t1.Sub(t0)},
		turnrunner.DispatchEnd{TurnID: "t", DispatchID: "d", Status: turnrunner.TurnFailed, Err: errors.New("plain failure"), Iterations: 1, StartedAt: t0, EndedAt: t1, Duration: t1.Sub(t0)},
		turnrunner.TurnEnd{TurnID: "t", Status: turnrunner.TurnFailed, Err: coded, StartedAt: t0, EndedAt: t1, Duration: t1.Sub(t0)},
	}
}

// gateOf runs a turn to its approval gate and returns the gate (settled
// by then; its wire form does not change).
func gateOf(t *testing.T) *turnrunner.Gate {
	t.Helper()
	rm := textTool(t, "rm", func(context.Context, map[string]any) (string, error) { return "removed", nil }, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "c", Name: "rm", Args: `{"q":"/tmp/x"}`}), scripted.Say("done"))
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{rm}, RequireApproval: []string{"rm"}, Now: func() time.Time { return t0 }})
	ch, err := r.Run(context.Background(), turnrunner.Input{TurnID: "t", Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	var g *turnrunner.Gate
	for ev := range ch {
		if o, ok := ev.(turnrunner.GateOpen); ok {
			g = o.Gate
			_ = g.Resolve(false)
		}
	}
	if g == nil {
		t.Fatal("no gate opened")
	}
	return g
}

func TestEventWireForm(t *testing.T) {
	var b strings.Builder
	for _, ev := range wireEvents(t) {
		got, err := turnrunner.MarshalEvent(context.Background(), ev)
		if err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		var m map[string]any
		if err := json.Unmarshal(got, &m); err != nil || m["type"] == "" {
			t.Errorf("%T: no type field: %s", ev, got)
		}
		b.Write(got)
		b.WriteByte('\n')
	}
	// The gate id is random: pin its shape, not its value.
	out := gateIDs.ReplaceAllString(b.String(), `"approval-<random>"`)
	golden.Check(t, "events", out, *update)
}

var gateIDs = regexp.MustCompile(`"approval-[0-9a-f-]{36}"`)

// An error's text is model or tool output as often as not: its wire form
// must not carry terminal escapes or invalid UTF-8 to a page.
func TestEventWireFormErrorIsSafeText(t *testing.T) {
	ev := turnrunner.Error{Err: errors.New("boom \x1b[31mred\x00\xff")}
	b, err := turnrunner.MarshalEvent(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Error struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	if want := "boom ␛[31mred␀\uFFFD"; got.Error.Message != want {
		t.Fatalf("message = %q, want %q (wire %s)", got.Error.Message, want, b)
	}
}
