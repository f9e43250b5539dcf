package turnrunner_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/golden"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

var strictSchema = json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"}},"required":["amount"]}`)

func payTool(t *testing.T, paid *atomic.Int64) *forge.Tool {
	t.Helper()
	tool, err := forge.NewTool("pay", "pay an amount", strictSchema,
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			paid.Add(int64(args["amount"].(float64)))
			return forge.TextOutput("paid"), nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// over100 asks for payments over 100: a policy by tool and arguments.
func over100(ctx context.Context, c turnrunner.ToolApproval) bool {
	var a struct{ Amount any }
	_ = json.Unmarshal(c.Args, &a)
	n, ok := a.Amount.(float64)
	return c.Tool == "pay" && (!ok || n > 100)
}

// The approvals of one response are asked together: every gate is open
// before any is answered (one at a time, this test would time out), only
// for the calls the policy picks and whose arguments validate.
func TestApprovalsAskedTogether(t *testing.T) {
	var paid atomic.Int64
	m := scripted.New(scripted.Use(
		scripted.Call{ID: "small", Name: "pay", Args: `{"amount":5}`},
		scripted.Call{ID: "big", Name: "pay", Args: `{"amount":500}`},
		scripted.Call{ID: "bigger", Name: "pay", Args: `{"amount":900}`},
		scripted.Call{ID: "bad", Name: "pay", Args: `{"amount":"lots"}`},
	), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{payTool(t, &paid)}, Approval: over100})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ch, err := r.Run(ctx, turnrunner.Input{TurnID: "t", Prompt: "pay"})
	if err != nil {
		t.Fatal(err)
	}
	var open []*turnrunner.Gate
	var evs []turnrunner.Event
	for ev := range ch {
		evs = append(evs, ev)
		if o, ok := ev.(turnrunner.GateOpen); ok {
			open = append(open, o.Gate)
			if len(open) == 2 { // both asked: approve big, deny bigger
				for _, g := range open {
					_ = g.Resolve(g.Payload().(turnrunner.ToolApproval).ToolCallID == "big")
				}
			}
		}
	}
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
	if len(open) != 2 {
		t.Fatalf("%d gates, want 2 (big and bigger)", len(open))
	}
	results := map[turnrunner.GateResult]int{}
	for _, c := range ofType[turnrunner.GateClosed](evs) {
		results[c.Result]++
	}
	if results[turnrunner.GateResolved] != 1 || results[turnrunner.GateDenied] != 1 {
		t.Errorf("GateClosed results %v, want one resolved, one denied", results)
	}
	if paid.Load() != 505 {
		t.Errorf("paid %d, want 505", paid.Load())
	}
	for _, c := range storedCalls(t, r, "t") {
		want := map[string]string{"small": "paid", "big": "paid", "bigger": "denied", "bad": "Invalid tool arguments"}[c.ID()]
		if got := resultText(t, c); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", c.ID(), got, want)
		}
	}
}

// Suspended and resumed in one process, on the in-memory store.
func TestSuspendAndResumeInMemory(t *testing.T) {
	var paid atomic.Int64
	tools := []*forge.Tool{payTool(t, &paid)}
	m := scripted.New(scripted.Say("I will pay."), scripted.Use(scripted.Call{ID: "big", Name: "pay", Args: `{"amount":500}`}),
		scripted.Say("Paid."))
	r := newRunner(t, m, &turnrunner.Options{Tools: tools, Approval: over100, SuspendOnApproval: true})
	ctx := context.Background()
	first := run(t, r, turnrunner.Input{TurnID: "t1", ConversationID: "c", Prompt: "hello"})
	if end := turnEnd(t, first); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("first turn: %+v", end)
	}
	evs := run(t, r, turnrunner.Input{TurnID: "t2", ConversationID: "c", Prompt: "pay 500"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnSuspended {
		t.Fatalf("TurnEnd %+v, want suspended", end)
	}
	if cl := ofType[turnrunner.GateClosed](evs); len(cl) != 1 || cl[0].Result != turnrunner.GateSuspended {
		t.Errorf("GateClosed %+v, want one suspended", cl)
	}
	// The second turn saw the first as history.
	if req := m.Requests()[1]; len(req.Timeline) != 3 {
		t.Errorf("second turn's first request has %d entries, want 3 (history and prompt)", len(req.Timeline))
	}
	cs := r.Store().(dispatch.ConversationStore)
	info, _, _ := cs.Turn(ctx, "t2")
	if info.State != dispatch.TurnSuspended || len(info.Gates) != 1 || paid.Load() != 0 {
		t.Fatalf("stored %+v, paid %d; want suspended with one gate, nothing paid", info, paid.Load())
	}
	for _, tt := range []struct {
		name string
		in   turnrunner.ResumeInput
	}{
		{"unknown turn", turnrunner.ResumeInput{TurnID: "nope"}},
		{"unanswered", turnrunner.ResumeInput{TurnID: "t2"}},
		{"unknown gate", turnrunner.ResumeInput{TurnID: "t2", Approvals: map[string]bool{info.Gates[0].ID: true, "x": true}}},
		{"ended turn", turnrunner.ResumeInput{TurnID: "t1"}},
	} {
		if _, err := r.Resume(ctx, tt.in); !errors.Is(err, turnrunner.ErrInvalidTurnContext) {
			t.Errorf("%s: Resume = %v, want ErrInvalidTurnContext", tt.name, err)
		}
	}
	ch, err := r.Resume(ctx, turnrunner.ResumeInput{TurnID: "t2", Approvals: map[string]bool{info.Gates[0].ID: true}})
	if err != nil {
		t.Fatal(err)
	}
	if end := turnEnd(t, collect(t, ch)); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("resumed: %+v", end)
	}
	if paid.Load() != 500 {
		t.Errorf("paid %d after approval, want 500", paid.Load())
	}
	if c := storedCalls(t, r, "t2"); len(c) != 1 || !c[0].IsComplete() || resultText(t, c[0]) != "paid" {
		t.Errorf("stored calls %v, want the approved call completed in place", c)
	}
}

func TestSuspendNeedsAConversationStore(t *testing.T) {
	_, err := turnrunner.New(scripted.New(), &turnrunner.Options{Store: plainStore{}, SuspendOnApproval: true})
	if !errors.Is(err, turnrunner.ErrInvalidConfig) {
		t.Errorf("New = %v, want ErrInvalidConfig", err)
	}
	r := newRunner(t, scripted.New(), &turnrunner.Options{Store: plainStore{}})
	if _, err := r.Run(context.Background(), turnrunner.Input{ConversationID: "c", Prompt: "x"}); !errors.Is(err, turnrunner.ErrInvalidTurnContext) {
		t.Errorf("Run = %v, want ErrInvalidTurnContext", err)
	}
}

// plainStore is a dispatch.Store without conversations.
type plainStore struct{}

func (plainStore) Save(context.Context, string, dispatch.Entry) error { return nil }
func (plainStore) Delete(context.Context, string, dispatch.EntryKind, string) (bool, error) {
	return false, nil
}
func (plainStore) Load(context.Context, string) ([]dispatch.Entry, error) { return nil, nil }

// A turn of a conversation that waits for approvals in its process stores
// the open gates before it announces them, and clears them once they are
// answered. The gates of one response are awaited together: answered in
// reverse order, each closes as it is answered (GateClosed in the real
// order), and the calls run once all are answered.
func TestApprovalsWaitedTogetherAndStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var paid atomic.Int64
		m := scripted.New(scripted.Use(
			scripted.Call{ID: "big", Name: "pay", Args: `{"amount":500}`},
			scripted.Call{ID: "bigger", Name: "pay", Args: `{"amount":900}`},
			scripted.Call{ID: "small", Name: "pay", Args: `{"amount":5}`},
		), scripted.Say("done"))
		cs := dispatch.NewMemoryStore()
		var gatesWhilePaying atomic.Int64 // the stored gates the calls see when they run
		pay, err := forge.NewTool("pay", "pay an amount", strictSchema,
			func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
				info, _, _ := cs.Turn(ctx, "t")
				gatesWhilePaying.Add(int64(len(info.Gates)))
				paid.Add(int64(args["amount"].(float64)))
				return forge.TextOutput("paid"), nil
			}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{pay}, Approval: over100, Store: cs})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a deadlock ends the turn
		defer cancel()
		ch, err := r.Run(ctx, turnrunner.Input{TurnID: "t", ConversationID: "c", Prompt: "pay"})
		if err != nil {
			t.Fatal(err)
		}
		var open []*turnrunner.Gate
		var closed []string
		var evs []turnrunner.Event
		for ev := range ch {
			evs = append(evs, ev)
			switch e := ev.(type) {
			case turnrunner.GateOpen:
				open = append(open, e.Gate)
				info, _, _ := cs.Turn(ctx, "t")
				if info.State != dispatch.TurnRunning || len(info.Gates) != 2 {
					t.Fatalf("at GateOpen the store has %+v, want running with both gates", info)
				}
				if len(open) == 2 {
					_ = open[1].Resolve(false) // the second first
				}
			case turnrunner.GateClosed:
				closed = append(closed, e.GateID)
				if len(closed) == 1 {
					if info, _, _ := cs.Turn(ctx, "t"); len(info.Gates) != 2 {
						t.Errorf("one gate answered: store has %d gates, want 2", len(info.Gates))
					}
					_ = open[0].Resolve(true)
				}
			}
		}
		if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
			t.Fatalf("TurnEnd %+v", end)
		}
		if len(open) != 2 || !slices.Equal(closed, []string{open[1].ID(), open[0].ID()}) {
			t.Errorf("GateClosed order %v, want the second gate then the first", closed)
		}
		if paid.Load() != 505 {
			t.Errorf("paid %d, want 505 (500 approved, 900 denied, 5 without asking)", paid.Load())
		}
		if n := gatesWhilePaying.Load(); n != 0 {
			t.Errorf("the calls ran with %d gates still stored, want them cleared once answered", n)
		}
		for _, c := range storedCalls(t, r, "t") {
			want := map[string]string{"small": "paid", "big": "paid", "bigger": "denied"}[c.ID()]
			if got := resultText(t, c); !c.IsComplete() || !strings.Contains(got, want) {
				t.Errorf("%s: %q, want %q", c.ID(), got, want)
			}
		}
		if info, _, _ := cs.Turn(ctx, "t"); info.State != dispatch.TurnCompleted || len(info.Gates) != 0 {
			t.Errorf("at the end the store has %+v, want completed without gates", info)
		}
	})
}

// The stored form of a tool approval gate has stable JSON names (golden),
// the runner writes it, and a payload written with the Go field names (by
// an earlier version) still decodes.
func TestStoredApprovalGateJSON(t *testing.T) {
	approval := turnrunner.ToolApproval{ToolCallID: "big", Tool: "pay", Args: json.RawMessage(`{"amount":500}`),
		Checksum: strings.Repeat("ab", 32)}
	payload, err := json.Marshal(approval)
	if err != nil {
		t.Fatal(err)
	}
	g := dispatch.OpenGate{ID: "approval-1", Reason: "tool pay requires approval", ToolCallID: "big", Payload: payload,
		CreatedAt: time.Date(2026, 3, 1, 12, 0, 0, 5, time.UTC)}
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "stored-approval-gate", string(b)+"\n", *update)
	legacy := `{"ToolCallID":"big","Tool":"pay","Args":{"amount":500},"Checksum":"` + approval.Checksum + `"}`
	for _, form := range []string{string(payload), legacy} {
		var back turnrunner.ToolApproval
		if err := json.Unmarshal([]byte(form), &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(approval, back); diff != "" {
			t.Errorf("decoding %s (-want +got):\n%s", form, diff)
		}
	}

	// What the runner stores for a suspended turn is that form.
	var paid atomic.Int64
	m := scripted.New(scripted.Use(scripted.Call{ID: "big", Name: "pay", Args: `{"amount":500}`}))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{payTool(t, &paid)}, Approval: over100, SuspendOnApproval: true})
	run(t, r, turnrunner.Input{TurnID: "t", ConversationID: "c", Prompt: "pay"})
	info, _, _ := r.Store().(dispatch.ConversationStore).Turn(context.Background(), "t")
	if len(info.Gates) != 1 {
		t.Fatalf("stored gates %+v, want 1", info.Gates)
	}
	var stored map[string]json.RawMessage
	if err := json.Unmarshal(info.Gates[0].Payload, &stored); err != nil {
		t.Fatal(err)
	}
	if string(stored["toolCallId"]) != `"big"` || string(stored["tool"]) != `"pay"` || string(stored["args"]) != `{"amount":500}` {
		t.Errorf("stored payload %s, want the JSON names", info.Gates[0].Payload)
	}
}
