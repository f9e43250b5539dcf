package dispatch_test

import (
	"context"
	"fmt"

	"github.com/ebbforge/adk/dispatch"
)

func ExampleNew() {
	ctx := context.Background()
	store := dispatch.NewMemoryStore()
	dc, err := dispatch.New(dispatch.Config{TurnID: "t1", Store: store,
		Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 2, MaxIterations: 8}})
	if err != nil {
		panic(err)
	}
	unsubscribe := dc.OnAck(func() { fmt.Println("acked") })
	defer unsubscribe()

	msg, err := dispatch.UserMessage("m1", "hello")
	if err != nil {
		panic(err)
	}
	if err := dc.StoreMessage(ctx, msg); err != nil {
		panic(err)
	}
	fmt.Println("iteration limit:", dc.Loop().IterationLimit())
	fmt.Println("repeat limit:", dc.Loop().IdenticalCallLimit("search"))
	if err := dc.Ack(); err != nil {
		panic(err)
	}
	stored, _ := store.Load(ctx, "t1")
	fmt.Println("stored:", len(stored), stored[0].Message.Text())
	// Output:
	// iteration limit: 8
	// repeat limit: 2
	// acked
	// stored: 1 hello
}

func ExampleLoopPolicy() {
	p := dispatch.LoopPolicy{
		MaxIdenticalCalls: 3,
		PerTool: map[string]int{
			"poll":  -1, // polling repeats on purpose
			"fetch": 1,  // never fetch the same thing twice
		},
	}
	if err := p.Validate(); err != nil {
		panic(err)
	}
	for _, tool := range []string{"search", "poll", "fetch"} {
		fmt.Println(tool, p.IdenticalCallLimit(tool))
	}
	fmt.Println("iterations", p.IterationLimit())
	// Output:
	// search 3
	// poll 0
	// fetch 1
	// iterations 25
}

func ExampleContext_CheckRepeat() {
	dc, _ := dispatch.New(dispatch.Config{TurnID: "t1", Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 2}})
	// Inspecting the guard records nothing; pending counts identical calls
	// earlier in the same model response.
	for pending := range 3 {
		v := dc.CheckRepeat("search", "checksum-of-the-args", pending)
		fmt.Printf("pending %d: %q in-response=%v\n", pending, v.Decision, v.InResponse)
	}
	// Output:
	// pending 0: "" in-response=false
	// pending 1: "" in-response=false
	// pending 2: "blocked-repeat" in-response=true
}

// Turns grouped into a conversation feed the next turn's history.
func ExampleLoadHistory() {
	ctx := context.Background()
	st := &dispatch.MemoryStore{MaxTurns: 100}
	for i, text := range []string{"first", "second", "third"} {
		turn := fmt.Sprintf("turn-%d", i)
		_ = st.StartTurn(ctx, "chat", turn)
		m, _ := dispatch.UserMessage("m"+turn, text)
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
