package sqlitestore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

// typicalTurn is the writes of a typical turn as the runner makes them: the
// prompt, a thought and a message, two tool calls stored running and then
// settled, the answer, and the turn's start and end: 10 writes.
func typicalTurn(b *testing.B, st dispatch.ConversationStore, conv, turn string) {
	ctx := context.Background()
	msg := func(id string, role dispatch.Role, text string) dispatch.Entry {
		m, err := dispatch.NewMessage(dispatch.RawMessage{ID: id, Role: role, Content: forge.NewTokenizable(text), CreatedAt: storetestTime})
		if err != nil {
			b.Fatal(err)
		}
		return dispatch.Entry{Message: m}
	}
	th, _ := dispatch.NewThought(dispatch.RawThought{ID: "th", Content: forge.NewTokenizable(strings.Repeat("thinking ", 30)), CreatedAt: storetestTime})
	call := func(id, result string, done bool) dispatch.Entry {
		sum, _ := canonical.ChecksumJSON("lookup", []byte(`{"q":"orders of customer 42"}`))
		raw := forge.RawToolCall{ID: id, Tool: "lookup", Args: `{"q":"orders of customer 42"}`, Checksum: sum,
			Results: forge.NewTokenizable(result), CreatedAt: storetestTime}
		if done {
			raw.IsComplete, raw.CompletedAt = true, storetestTime
		}
		c, err := forge.NewToolCall(raw)
		if err != nil {
			b.Fatal(err)
		}
		return dispatch.Entry{ToolCall: c}
	}
	result := strings.Repeat("order 1234: 3 items, shipped\n", 40)
	if err := st.StartTurn(ctx, conv, turn); err != nil {
		b.Fatal(err)
	}
	for _, e := range []dispatch.Entry{
		msg("q", dispatch.RoleUser, "What did customer 42 order last month, and has it shipped?"),
		{Thought: th}, msg("m1", dispatch.RoleAssistant, "Let me look that up."),
		call("c1", "(running)", false), call("c2", "(running)", false),
		call("c1", result, true), call("c2", result, true),
		msg("m2", dispatch.RoleAssistant, strings.Repeat("Customer 42 ordered three items; all shipped. ", 5)),
	} {
		if err := st.Save(ctx, turn, e); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.SetTurnState(ctx, turn, dispatch.TurnCompleted, nil); err != nil {
		b.Fatal(err)
	}
}

// stores opens each store under comparison; run the two in one invocation
// (-count 5 alternates nothing, so compare medians).
func stores(b *testing.B) map[string]func() (dispatch.ConversationStore, func()) {
	return map[string]func() (dispatch.ConversationStore, func()){
		"memory": func() (dispatch.ConversationStore, func()) {
			return &dispatch.MemoryStore{MaxTurns: -1, MaxBytes: -1}, func() {}
		},
		"sqlite": func() (dispatch.ConversationStore, func()) {
			s := open(b, filepath.Join(b.TempDir(), "bench.db"))
			return s, func() { s.Close() }
		},
	}
}

// BenchmarkTypicalTurn: one op is one typical turn (10 writes); writes/s is
// 10 / (ns/op).
func BenchmarkTypicalTurn(b *testing.B) {
	for _, name := range []string{"memory", "sqlite"} {
		b.Run(name, func(b *testing.B) {
			st, done := stores(b)[name]()
			defer done()
			i := 0
			for b.Loop() {
				typicalTurn(b, st, "conv", fmt.Sprintf("turn-%d", i))
				i++
			}
			b.ReportMetric(float64(10*b.N)/b.Elapsed().Seconds(), "writes/s")
		})
	}
}

// BenchmarkLoad1000Turns: one op loads the whole history of a 1,000-turn
// conversation (6 entries a turn) with dispatch.LoadHistory.
func BenchmarkLoad1000Turns(b *testing.B) {
	for _, name := range []string{"memory", "sqlite"} {
		b.Run(name, func(b *testing.B) {
			st, done := stores(b)[name]()
			defer done()
			for i := range 1000 {
				typicalTurn(b, st, "conv", fmt.Sprintf("turn-%d", i))
			}
			ctx := context.Background()
			for b.Loop() {
				es, err := dispatch.LoadHistory(ctx, st, "conv", dispatch.HistoryOptions{})
				if err != nil || len(es) != 6000 {
					b.Fatalf("%d entries, %v", len(es), err)
				}
			}
		})
	}
}
