package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

// A turn's timeline is stored entry by entry; an entry with the id of one
// already stored replaces it in place.
func ExampleMemoryStore() {
	ctx := context.Background()
	st := &dispatch.MemoryStore{MaxTurns: 100}
	for _, text := range []string{"hello", "hello again"} {
		m, _ := dispatch.NewMessage(dispatch.RawMessage{ID: "m1", Role: dispatch.RoleUser, Content: forge.NewTokenizable(text)})
		_ = st.Save(ctx, "turn-1", dispatch.Entry{Message: m})
	}
	entries, _ := st.Load(ctx, "turn-1")
	fmt.Println(len(entries), entries[0].Message.Text())
	// Output:
	// 1 hello again
}

// Every entry has a JSON form that round-trips.
func ExampleUnmarshalEntry() {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m, _ := dispatch.NewMessage(dispatch.RawMessage{ID: "m1", Role: dispatch.RoleUser,
		Content: forge.NewTokenizable("hi"), CreatedAt: at})
	b, _ := json.Marshal(dispatch.Entry{Message: m})
	fmt.Println(string(b))
	e, err := dispatch.UnmarshalEntry(context.Background(), b, nil)
	fmt.Println(e.Kind(), e.Message.Text(), err)
	// Output:
	// {"kind":"message","message":{"id":"m1","role":"user","content":"hi","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z"}}
	// message hi <nil>
}

// Turns grouped into a conversation feed the next turn's history.
func ExampleLoadHistory() {
	ctx := context.Background()
	st := &dispatch.MemoryStore{MaxTurns: 100}
	for i, text := range []string{"first", "second", "third"} {
		turn := fmt.Sprintf("turn-%d", i)
		_ = st.StartTurn(ctx, "chat", turn)
		m, _ := dispatch.NewMessage(dispatch.RawMessage{ID: "m" + turn, Role: dispatch.RoleUser, Content: forge.NewTokenizable(text)})
		_ = st.Save(ctx, turn, dispatch.Entry{Message: m})
		_ = st.SetTurnState(ctx, turn, dispatch.TurnCompleted, nil)
	}
	history, _ := dispatch.LoadHistory(ctx, st, "chat", dispatch.HistoryOptions{LastTurns: 2})
	for _, e := range history {
		fmt.Println(e.Message.Text())
	}
	// Output:
	// second
	// third
}
