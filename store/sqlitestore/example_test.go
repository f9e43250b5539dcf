package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/store/sqlitestore"
)

// A conversation written by one process is read back by the next.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "chat.db")
	ctx := context.Background()

	st, err := sqlitestore.Open(ctx, path, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = st.StartTurn(ctx, "chat-1", "turn-1")
	q, _ := dispatch.NewMessage(dispatch.RawMessage{ID: "q1", Role: dispatch.RoleUser, Content: forge.NewTokenizable("Hello?")})
	_ = st.Save(ctx, "turn-1", dispatch.Entry{Message: q})
	_ = st.SetTurnState(ctx, "turn-1", dispatch.TurnCompleted, nil)
	st.Close()

	st, err = sqlitestore.Open(ctx, path, nil) // a restart
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	history, _ := dispatch.LoadHistory(ctx, st, "chat-1", dispatch.HistoryOptions{LastTurns: 10})
	for _, e := range history {
		fmt.Println(e.Message.Role(), e.Message.Text())
	}
	// Output: user Hello?
}

// A store that keeps the newest two turns of each conversation: older ones
// go with their entries and spooled files when a turn starts.
func ExampleStore_Prune() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "chat.db"), &sqlitestore.Options{MaxTurns: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	for _, turn := range []string{"turn-1", "turn-2", "turn-3"} {
		_ = st.StartTurn(ctx, "chat-1", turn)
		_ = st.SetTurnState(ctx, turn, dispatch.TurnCompleted, nil)
	}
	turns, _ := st.Turns(ctx, "chat-1")
	for _, t := range turns {
		fmt.Println(t.ID)
	}
	n, _ := st.Prune(ctx) // nothing left to drop
	fmt.Println("pruned", n)
	// Output:
	// turn-2
	// turn-3
	// pruned 0
}
