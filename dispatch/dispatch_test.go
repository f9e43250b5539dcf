package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/turnstate"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func call(t *testing.T, id, tool, args string) *forge.ToolCall {
	t.Helper()
	sum, err := canonical.Checksum(tool, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	tc, err := forge.NewToolCall(forge.RawToolCall{ID: id, Tool: tool, Args: args, Checksum: sum,
		Results: forge.TextResults(forge.NewTokenizable("r-" + id)), IsComplete: true,
		CreatedAt: time.Unix(1, 0), CompletedAt: time.Unix(2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

func newCtx(t *testing.T, cfg dispatch.Config) *dispatch.Context {
	t.Helper()
	if cfg.TurnID == "" {
		cfg.TurnID = "turn"
	}
	c, err := dispatch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSignals(t *testing.T) {
	c := newCtx(t, dispatch.Config{})
	var order []int
	c.OnAck(func() { order = append(order, 1) })
	unsub := c.OnAck(func() { order = append(order, 2) })
	c.OnAck(func() { panic("handler bug") })
	c.OnAck(func() { order = append(order, 4) })
	unsub()
	if err := c.Ack(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{1, 4}, order); d != "" {
		t.Errorf("handlers (-want +got):\n%s", d)
	}
	if !c.IsSignalled() || !c.IsAcked() || c.NackErr() != nil {
		t.Error("state after ack")
	}
	if err := c.Ack(); !errors.Is(err, dispatch.ErrAlreadySignalled) {
		t.Errorf("second ack: %v", err)
	}
	if err := c.Nack(nil); !errors.Is(err, dispatch.ErrAlreadySignalled) {
		t.Errorf("nack after ack: %v", err)
	}

	n := newCtx(t, dispatch.Config{})
	ran := false
	n.OnAck(func() { ran = true })
	if err := n.Nack(nil); err != nil {
		t.Fatal(err)
	}
	if ran || n.IsAcked() || !errors.Is(n.NackErr(), dispatch.ErrNacked) {
		t.Errorf("nack: ran=%v acked=%v err=%v", ran, n.IsAcked(), n.NackErr())
	}
}

func TestToolCallCounts(t *testing.T) {
	ctx := context.Background()
	a1, a2, b := call(t, "1", "a", `{"x":1}`), call(t, "2", "a", `{ "x" : 1 }`), call(t, "3", "b", `{}`)
	store := dispatch.NewMemoryStore()
	c := newCtx(t, dispatch.Config{Store: store, Timeline: []dispatch.Entry{{ToolCall: a1}}})
	if got := c.ToolCallCount(a1.Checksum()); got != 1 {
		t.Fatalf("seeded count %d", got)
	}
	if a1.Checksum() != a2.Checksum() {
		t.Fatal("canonical args should share a checksum")
	}
	if err := c.Save(ctx, dispatch.Entry{ToolCall: a2}); err != nil {
		t.Fatal(err)
	}
	if got := c.ToolCallCount(a1.Checksum()); got != 2 {
		t.Errorf("after store %d", got)
	}
	// Mutate call 2 into a b-call: the count moves.
	moved := call(t, "2", "b", `{}`)
	if err := c.Save(ctx, dispatch.Entry{ToolCall: moved}); err != nil {
		t.Fatal(err)
	}
	if c.ToolCallCount(a1.Checksum()) != 1 || c.ToolCallCount(b.Checksum()) != 1 {
		t.Errorf("after mutate: a=%d b=%d", c.ToolCallCount(a1.Checksum()), c.ToolCallCount(b.Checksum()))
	}
	if got := c.ToolCalls(); len(got) != 2 || got[1] != moved {
		t.Errorf("mutate did not replace in place: %v", got)
	}
	tl, _ := store.Load(ctx, "turn")
	if len(tl) != 1 || tl[0].ToolCall != moved { // call 1 was history (not stored again)
		t.Errorf("store holds %v", tl)
	}
}

type failingStore struct{ dispatch.MemoryStore }

func (f *failingStore) Save(context.Context, string, dispatch.Entry) error {
	return errors.New("db down")
}

func TestFailingStoreLeavesContextUnchanged(t *testing.T) {
	c := newCtx(t, dispatch.Config{Store: &failingStore{}})
	tc := call(t, "1", "a", `{}`)
	if err := c.StoreToolCall(context.Background(), tc); !errors.Is(err, dispatch.ErrStore) {
		t.Fatalf("err = %v", err)
	}
	if len(c.Timeline()) != 0 || c.ToolCallCount(tc.Checksum()) != 0 {
		t.Error("context changed after a failed store")
	}
}

func TestCheckRepeat(t *testing.T) {
	ctx := context.Background()
	c := newCtx(t, dispatch.Config{Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 2,
		PerTool: map[string]int{"free": -1, "tight": 1}}})
	a := call(t, "1", "a", `{}`)
	// CheckRepeat records nothing: inspecting never poisons the guard.
	for range 3 {
		if v := c.CheckRepeat("a", a.Checksum(), 2); v.Decision != turnstate.BlockedRepeat || !v.InResponse {
			t.Fatalf("CheckRepeat: %+v", v)
		}
		c.Advance()
	}
	steps := []struct {
		advance bool
		pending int
		want    turnstate.Decision
	}{
		{false, 0, turnstate.Allow}, {false, 1, turnstate.Allow},
		{false, 2, turnstate.BlockedRepeat}, {false, 3, turnstate.BlockedRepeat}, // same response: no finalize yet
		{true, 2, turnstate.Finalize}, // the model saw the block and repeated it
	}
	for i, s := range steps {
		if s.advance {
			c.Advance()
		}
		if v := c.GuardRepeat("a", a.Checksum(), s.pending); v.Decision != s.want {
			t.Errorf("step %d: %+v, want %d", i, v, s.want)
		}
	}
	_ = c.Save(ctx, dispatch.Entry{ToolCall: a})
	if v := c.CheckRepeat("free", a.Checksum(), 5); v.Decision != turnstate.Allow {
		t.Errorf("exempt tool: %+v", v)
	}
	if v := c.CheckRepeat("tight", "other", 1); v.Decision != turnstate.BlockedRepeat || v.Limit != 1 {
		t.Errorf("per-tool limit: %+v", v)
	}
	for _, tt := range []struct {
		p          dispatch.LoopPolicy
		iterations int
		identical  int
	}{
		{dispatch.LoopPolicy{}, 25, 3},
		{dispatch.LoopPolicy{Disabled: true}, 0, 0},
		{dispatch.LoopPolicy{MaxIterations: -1, MaxIdenticalCalls: -1}, 0, 0}, // negative: no cap
		{dispatch.LoopPolicy{MaxIterations: 4, MaxIdenticalCalls: 2, PerTool: map[string]int{"x": 5}}, 4, 5},
	} {
		if got, got2 := tt.p.IterationLimit(), tt.p.IdenticalCallLimit("x"); got != tt.iterations || got2 != tt.identical {
			t.Errorf("%+v: limits %d, %d; want %d, %d", tt.p, got, got2, tt.iterations, tt.identical)
		}
	}
}

// TestLoopPolicyIsCopied checks New copies Config.Loop's PerTool map and
// Loop returns a copy: editing either map afterwards leaves the guard as
// configured.
func TestLoopPolicyIsCopied(t *testing.T) {
	tests := []struct {
		name string
		edit func(caller, returned map[string]int)
	}{
		{"caller changes an entry", func(caller, _ map[string]int) {
			caller["t"] = -1
		}},
		{"caller deletes an entry", func(caller, _ map[string]int) { delete(caller, "t") }},
		{"caller adds an entry", func(caller, _ map[string]int) {
			caller["u"] = 9
		}},
		{"Loop's copy changes an entry", func(_, returned map[string]int) {
			returned["t"] = 1
		}},
		{"Loop's copy deletes an entry", func(_, returned map[string]int) { delete(returned, "t") }},
		{"Loop's copy adds an entry", func(_, returned map[string]int) {
			returned["u"] = -1
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			per := map[string]int{"t": 5}
			c := newCtx(t, dispatch.Config{Loop: dispatch.LoopPolicy{PerTool: per}})
			tt.edit(per, c.Loop().PerTool)
			want := map[string]int{"t": 5}
			if d := cmp.Diff(want, c.Loop().PerTool); d != "" {
				t.Errorf("PerTool (-want +got):\n%s", d)
			}
			for tool, limit := range map[string]int{"t": 5, "u": 3} {
				if got := c.CheckRepeat(tool, "sum", 0).Limit; got != limit {
					t.Errorf("%s: guard limit %d, want %d", tool, got, limit)
				}
			}
		})
	}
}

// TestLoopPolicyEditsDoNotRace edits the caller's PerTool map and the one
// Loop returns while tools read the guard: the Context is documented safe
// for concurrent use (run with -race).
func TestLoopPolicyEditsDoNotRace(t *testing.T) {
	per := map[string]int{"t": 5}
	c := newCtx(t, dispatch.Config{Loop: dispatch.LoopPolicy{PerTool: per}})
	sum := call(t, "a", "t", `{}`).Checksum()
	var wg sync.WaitGroup
	wg.Go(func() { // tools reading the guard
		for range 500 {
			c.CheckRepeat("t", sum, 0)
			c.GuardRepeat("t", sum, 0)
		}
	})
	wg.Go(func() { // middleware editing "its copy" of the policy
		for i := range 500 {
			c.Loop().PerTool["x"+strconv.Itoa(i%10)] = -1
		}
	})
	wg.Go(func() { // the caller reusing its map
		for i := range 500 {
			per["y"+strconv.Itoa(i%10)] = 1
		}
	})
	wg.Wait()
	if got := c.CheckRepeat("t", sum, 0).Limit; got != 5 {
		t.Errorf("guard limit %d, want 5", got)
	}
}

func TestMessageAndThoughtValidation(t *testing.T) {
	txt := forge.NewTokenizable("hi")
	msgs := []struct {
		name string
		raw  dispatch.RawMessage
		ok   bool
	}{
		{"valid", dispatch.RawMessage{ID: "m", Role: dispatch.RoleUser, Content: txt}, true},
		{"no id", dispatch.RawMessage{Role: dispatch.RoleUser, Content: txt}, false},
		{"system role", dispatch.RawMessage{ID: "m", Role: "system", Content: txt}, false},
		{"empty", dispatch.RawMessage{ID: "m", Role: dispatch.RoleAssistant}, false},
	}
	for _, tt := range msgs {
		t.Run("message/"+tt.name, func(t *testing.T) {
			_, err := dispatch.NewMessage(tt.raw)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, dispatch.ErrInvalidInitialMessage)) {
				t.Errorf("err = %v", err)
			}
		})
	}
	evaluated := 0
	dynamic := forge.NewDynamicTokenizable(func(forge.Scope) (string, error) { evaluated++; return "", nil })
	thoughts := []struct {
		name string
		raw  dispatch.RawThought
		ok   bool
	}{
		{"plain", dispatch.RawThought{ID: "t", Content: txt}, true},
		{"plain without content", dispatch.RawThought{ID: "t"}, false},
		// A Tokenizable counts as present without being evaluated.
		{"plain with empty content", dispatch.RawThought{ID: "t", Content: forge.NewTokenizable("")}, true},
		{"plain with dynamic content", dispatch.RawThought{ID: "t", Content: dynamic}, true},
		{"opaque", dispatch.RawThought{ID: "t", Payload: json.RawMessage(`{"sig":"x"}`), ReplayCompatibility: "anthropic"}, true},
		{"opaque without tag", dispatch.RawThought{ID: "t", Payload: json.RawMessage(`"x"`)}, false},
	}
	for _, tt := range thoughts {
		t.Run("thought/"+tt.name, func(t *testing.T) {
			th, err := dispatch.NewThought(tt.raw)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, dispatch.ErrInvalidInitialThought)) {
				t.Errorf("err = %v", err)
			}
			if th != nil && tt.raw.Payload != nil && (th.Replayable("openai") || !th.Replayable("anthropic")) {
				t.Error("replay filter")
			}
		})
	}
	if evaluated != 0 {
		t.Errorf("NewThought evaluated a dynamic Content %d times", evaluated)
	}
}

// TestThoughtReplayable pins the replay filter: a thought without a payload
// tagged "" or PlainText replays to any adapter; any other tag, with or
// without a payload, only to adapters listing it.
func TestThoughtReplayable(t *testing.T) {
	sig := json.RawMessage(`{"sig":"x"}`)
	tests := []struct {
		name    string
		payload json.RawMessage
		tag     string
		want    map[string]bool // compat list (comma-joined) -> replayable
	}{
		{"plain, no tag", nil, "", map[string]bool{"": true, "openai": true}},
		{"plain, plain-text tag", nil, "plain-text", map[string]bool{"": true, "openai": true}},
		{"plain, vendor tag", nil, "anthropic", map[string]bool{"": false, "openai": false, "anthropic": true, "openai,anthropic": true}},
		{"opaque", sig, "anthropic", map[string]bool{"": false, "openai": false, "anthropic": true, "openai,anthropic": true}},
		{"opaque, plain-text tag", sig, "plain-text", map[string]bool{"": false, "openai": false, "plain-text": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := dispatch.NewThought(dispatch.RawThought{ID: "t", Content: forge.NewTokenizable("because"),
				Payload: tt.payload, ReplayCompatibility: tt.tag})
			if err != nil {
				t.Fatal(err)
			}
			for list, want := range tt.want {
				var compat []string
				if list != "" {
					compat = strings.Split(list, ",")
				}
				if got := th.Replayable(compat...); got != want {
					t.Errorf("Replayable(%q) = %v, want %v", compat, got, want)
				}
			}
		})
	}
}

func TestWaitForWithoutGate(t *testing.T) {
	c := newCtx(t, dispatch.Config{})
	if _, err := c.WaitFor(context.Background(), dispatch.GateRequest{Payload: 1}); !errors.Is(err, dispatch.ErrGateNotSupported) {
		t.Errorf("err = %v", err)
	}
}

func TestLog(t *testing.T) {
	type note struct {
		Level   zerolog.Level
		Kind    string
		Message string
		Payload any
	}
	var got []note
	c := newCtx(t, dispatch.Config{Log: func(level zerolog.Level, kind, message string, payload any) {
		got = append(got, note{level, kind, message, payload})
	}})
	c.Log(zerolog.InfoLevel, "first", "hello", map[string]int{"n": 1})
	if c.Advance() != 1 {
		t.Fatal("advance did not return the next iteration")
	}
	c.Log(zerolog.WarnLevel, "second", "again", nil)
	want := []note{
		{zerolog.InfoLevel, "first", "hello", map[string]int{"n": 1}},
		{zerolog.WarnLevel, "second", "again", nil},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}

	silent := newCtx(t, dispatch.Config{})
	silent.Log(zerolog.ErrorLevel, "x", "no sink: no-op", nil) // must not panic

	var scope forge.Scope = c
	if dc, ok := dispatch.FromScope(scope); !ok || dc != c {
		t.Error("FromScope lost the context")
	}
	if _, ok := dispatch.FromScope(nil); ok {
		t.Error("FromScope(nil) ok")
	}
	var nilCtx *dispatch.Context
	if _, ok := dispatch.FromScope(nilCtx); ok {
		t.Error("FromScope(typed nil) ok")
	}
}

func TestStash(t *testing.T) {
	var s dispatch.Stash // the zero value is usable
	s.Set("b", 2)
	s.Set("a", "one")
	if v, ok := s.Get("a"); !ok || v != "one" {
		t.Errorf("Get a = %v, %v", v, ok)
	}
	all := s.All()
	all["c"] = 3 // a copy
	if !s.Delete("a") || s.Delete("a") {
		t.Error("Delete reports")
	}
	if d := cmp.Diff(map[string]any{"b": 2}, s.All()); d != "" {
		t.Errorf("after edits (-want +got):\n%s", d)
	}
	seeded := &dispatch.Stash{}
	if ctx := newCtx(t, dispatch.Config{Stash: seeded}); ctx.Stash() != seeded {
		t.Error("context does not share the given stash")
	}
}

// The timeline keeps messages, thoughts and tool calls in the order they
// happened; a store with an existing id replaces in place.
func TestTimelineAccessors(t *testing.T) {
	ctx := context.Background()
	c := newCtx(t, dispatch.Config{})
	u, _ := dispatch.NewMessage(dispatch.RawMessage{ID: "u1", Role: dispatch.RoleUser, Content: forge.NewTokenizable("hi")})
	th, _ := dispatch.NewThought(dispatch.RawThought{ID: "t1", Content: forge.NewTokenizable("hmm")})
	a1, a2 := call(t, "c1", "a", `{}`), call(t, "c2", "a", `{}`)
	for _, err := range []error{c.Save(ctx, dispatch.Entry{Message: u}), c.Save(ctx, dispatch.Entry{Thought: th}), c.Save(ctx, dispatch.Entry{ToolCall: a1}), c.Save(ctx, dispatch.Entry{ToolCall: a2})} {
		if err != nil {
			t.Fatal(err)
		}
	}
	u2, _ := dispatch.NewMessage(dispatch.RawMessage{ID: "u1", Role: dispatch.RoleUser, Content: forge.NewTokenizable("hi again")})
	if err := c.Save(ctx, dispatch.Entry{Message: u2}); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range c.Timeline() {
		kinds = append(kinds, string(e.Kind())+":"+e.ID())
	}
	if d := cmp.Diff([]string{"message:u1", "thought:t1", "toolCall:c1", "toolCall:c2"}, kinds); d != "" {
		t.Errorf("timeline (-want +got):\n%s", d)
	}
	if tl := c.Timeline(); tl[0].Message.Text() != "hi again" || tl[1].Thought != th || tl[3].ToolCall != a2 {
		t.Errorf("timeline %v", tl)
	}
	if got, ok := c.ToolCall("c1"); !ok || got != a1 {
		t.Errorf("ToolCall(c1) = %v", got)
	}
	if c.ToolCallCount(a1.Checksum()) != 2 {
		t.Errorf("count %d", c.ToolCallCount(a1.Checksum()))
	}
	if err := c.Save(ctx, dispatch.Entry{Message: nil}); !errors.Is(err, dispatch.ErrStore) {
		t.Errorf("nil message: %v", err)
	}
}

func TestHydrateCountsButDoesNotStoreOrGuard(t *testing.T) {
	ctx := context.Background()
	store := dispatch.NewMemoryStore()
	c := newCtx(t, dispatch.Config{Store: store, Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 1}})
	a := call(t, "1", "a", `{}`)
	if err := c.Hydrate(dispatch.Entry{ToolCall: a}); err != nil {
		t.Fatal(err)
	}
	if err := c.Hydrate(dispatch.Entry{}); !errors.Is(err, dispatch.ErrInvalidContext) {
		t.Errorf("empty entry: %v", err)
	}
	if len(c.Timeline()) != 1 || c.ToolCallCount(a.Checksum()) != 1 {
		t.Errorf("timeline %d entries, count %d; want 1 and 1", len(c.Timeline()), c.ToolCallCount(a.Checksum()))
	}
	if v := c.CheckRepeat("a", a.Checksum(), 0); v.Decision != turnstate.Allow {
		t.Errorf("hydrated call counted by the guard: %+v", v)
	}
	if tl, _ := store.Load(ctx, "turn"); len(tl) != 0 {
		t.Errorf("hydrate stored %d entries", len(tl))
	}
	if err := c.Save(ctx, dispatch.Entry{ToolCall: call(t, "2", "a", `{}`)}); err != nil {
		t.Fatal(err)
	}
	if v := c.CheckRepeat("a", a.Checksum(), 0); v.Decision != turnstate.BlockedRepeat || v.Earlier != 1 || v.InResponse {
		t.Errorf("own call not counted: %+v", v)
	}
}

// Unexecuted calls count in ToolCallCount but not against the loop guard,
// replacing one keeps its standing, and the guard quotes an executed call.
func TestUnexecutedCallsDoNotCountAgainstTheGuard(t *testing.T) {
	ctx := context.Background()
	c := newCtx(t, dispatch.Config{Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 1}})
	refused := call(t, "r1", "a", `{"q":1}`)
	if err := c.StoreUnexecutedToolCall(ctx, refused); err != nil {
		t.Fatal(err)
	}
	sum := refused.Checksum()
	if n := c.ToolCallCount(sum); n != 1 {
		t.Errorf("ToolCallCount = %d, want 1", n)
	}
	if v := c.CheckRepeat("a", sum, 0); v.Decision != turnstate.Allow || v.Earlier != 0 {
		t.Errorf("after an unexecuted call: %+v, want allow with no earlier calls", v)
	}
	if _, ok := c.LastExecutedToolCall(sum); ok {
		t.Error("LastExecutedToolCall found an unexecuted call")
	}
	// Replacing the refused call keeps it out of the guard's count.
	if err := c.Save(ctx, dispatch.Entry{ToolCall: call(t, "r1", "a", `{"q":1}`)}); err != nil {
		t.Fatal(err)
	}
	if v := c.CheckRepeat("a", sum, 0); v.Decision != turnstate.Allow {
		t.Errorf("after replacing the unexecuted call: %+v", v)
	}
	ran := call(t, "x1", "a", `{"q":1}`)
	if err := c.Save(ctx, dispatch.Entry{ToolCall: ran}); err != nil {
		t.Fatal(err)
	}
	if err := c.StoreUnexecutedToolCall(ctx, call(t, "r2", "a", `{"q":1}`)); err != nil {
		t.Fatal(err)
	}
	if v := c.CheckRepeat("a", sum, 0); v.Decision != turnstate.BlockedRepeat || v.Earlier != 1 {
		t.Errorf("after one executed call: %+v, want blocked with 1 earlier", v)
	}
	if got, ok := c.LastExecutedToolCall(sum); !ok || got.ID() != "x1" {
		t.Errorf("LastExecutedToolCall = %v, %v; want x1", got, ok)
	}
	if n := c.ToolCallCount(sum); n != 3 {
		t.Errorf("ToolCallCount = %d, want 3", n)
	}
	if err := c.StoreUnexecutedToolCall(ctx, nil); !errors.Is(err, dispatch.ErrStore) {
		t.Errorf("nil call: %v", err)
	}
}

// slowFirstStore writes the entry with id "a" at once but answers late,
// after b's save has been answered (if it can begin), as a slow database
// round trip would.
type slowFirstStore struct {
	*dispatch.MemoryStore
	bSaved chan struct{}
}

func (s *slowFirstStore) Save(ctx context.Context, turnID string, e dispatch.Entry) error {
	err := s.MemoryStore.Save(ctx, turnID, e)
	switch e.ID() {
	case "a":
		select {
		case <-s.bSaved:
			time.Sleep(20 * time.Millisecond) // b reaches the timeline meanwhile
		case <-time.After(100 * time.Millisecond):
		}
	case "b":
		close(s.bSaved)
	}
	return err
}

// Concurrent saves leave the store and the timeline in the same order.
func TestConcurrentSavesKeepOneOrder(t *testing.T) {
	ctx := context.Background()
	store := &slowFirstStore{MemoryStore: dispatch.NewMemoryStore(), bSaved: make(chan struct{})}
	c := newCtx(t, dispatch.Config{Store: store})
	msg := func(id string) *dispatch.Message {
		m, err := dispatch.NewMessage(dispatch.RawMessage{ID: id, Role: dispatch.RoleUser, Content: forge.NewTokenizable(id), CreatedAt: time.Unix(1, 0)})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	done := make(chan error, 1)
	go func() { done <- c.Save(ctx, dispatch.Entry{Message: msg("a")}) }()
	time.Sleep(10 * time.Millisecond) // a's save is under way
	if err := c.Save(ctx, dispatch.Entry{Message: msg("b")}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	stored, err := store.Load(ctx, "turn")
	if err != nil {
		t.Fatal(err)
	}
	ids := func(es []dispatch.Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.ID())
		}
		return out
	}
	if d := cmp.Diff(ids(stored), ids(c.Timeline())); d != "" {
		t.Errorf("store and timeline orders differ (-store +timeline):\n%s", d)
	}
}

// A thought's payload handed out is a copy: the thought stays as built.
func TestThoughtPayloadIsACopy(t *testing.T) {
	th, err := dispatch.NewThought(dispatch.RawThought{ID: "t", Payload: json.RawMessage(`{"sig":"abc"}`), ReplayCompatibility: "x"})
	if err != nil {
		t.Fatal(err)
	}
	th.Payload()[8] = 'Z'
	if got := string(th.Payload()); got != `{"sig":"abc"}` {
		t.Errorf("Payload = %s after changing a copy", got)
	}
}

// A dispatch that continues a stored turn (Config.Resumed) starts after
// the turn's responses, with its executed calls counted and a call the
// guard refused still blocked; history in Timeline counts for neither.
func TestResumedRestoresLoopGuard(t *testing.T) {
	ctx := context.Background()
	past := call(t, "h1", "a", `{"q":1}`)
	sum := past.Checksum()
	bsum := call(t, "b0", "b", `{}`).Checksum()
	pending, err := forge.NewToolCall(forge.RawToolCall{ID: "p1", Tool: "b", Args: `{}`, Checksum: bsum,
		Results: forge.NewTokenizable("waiting"), CreatedAt: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		resumed []dispatch.Entry
		it      int
		want    turnstate.Verdict
	}{
		{"nothing resumed", nil, 0, turnstate.Verdict{Limit: 2}},
		{"one executed", []dispatch.Entry{
			{ToolCall: call(t, "x1", "a", `{"q":1}`), ResponseID: "r1", Executed: true},
		}, 1, turnstate.Verdict{Count: 1, Earlier: 1, Limit: 2}},
		{"unexecuted calls do not count", []dispatch.Entry{
			{ToolCall: call(t, "x1", "a", `{"q":1}`), ResponseID: "r1"},
			{ToolCall: call(t, "x2", "a", `{"q":1}`), ResponseID: "r2"},
		}, 2, turnstate.Verdict{Limit: 2}},
		{"blocked stays blocked", []dispatch.Entry{
			{ToolCall: call(t, "x1", "a", `{"q":1}`), ResponseID: "r1", Executed: true},
			{ToolCall: call(t, "x2", "a", `{"q":1}`), ResponseID: "r1", Executed: true},
			{ToolCall: call(t, "x3", "a", `{"q":1}`), ResponseID: "r2"},
			{ToolCall: pending, ResponseID: "r2"},
		}, 2, turnstate.Verdict{Decision: turnstate.Finalize, Count: 2, Earlier: 2, Limit: 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := dispatch.New(dispatch.Config{TurnID: "t", Timeline: []dispatch.Entry{{ToolCall: past, Executed: true}},
				Resumed: tt.resumed, Loop: dispatch.LoopPolicy{MaxIdenticalCalls: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if c.Iteration() != tt.it {
				t.Errorf("Iteration = %d, want %d", c.Iteration(), tt.it)
			}
			if diff := cmp.Diff(tt.want, c.CheckRepeat("a", sum, 0)); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if n := len(c.Timeline()); n != 1+len(tt.resumed) {
				t.Errorf("timeline has %d entries, want %d", n, 1+len(tt.resumed))
			}
		})
	}
	// A waiting call stored again as executed (its approval came) counts.
	c, err := dispatch.New(dispatch.Config{TurnID: "t", Resumed: []dispatch.Entry{{ToolCall: pending, ResponseID: "r1"}}})
	if err != nil {
		t.Fatal(err)
	}
	done, err := forge.NewToolCall(forge.RawToolCall{ID: "p1", Tool: "b", Args: `{}`, Checksum: bsum,
		Results: forge.NewTokenizable("ran"), IsComplete: true, CreatedAt: time.Unix(1, 0), CompletedAt: time.Unix(2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Save(ctx, dispatch.Entry{ToolCall: done}); err != nil {
		t.Fatal(err)
	}
	if v := c.CheckRepeat("b", bsum, 0); v.Earlier != 1 {
		t.Errorf("the approved call does not count: %+v", v)
	}
	if tl := c.Timeline(); len(tl) != 1 || !tl[0].Executed || tl[0].ResponseID != "r1" {
		t.Errorf("timeline %+v, want the call executed in place", tl)
	}
}

// TestSnapshotKeepsItsEntries checks that a snapshot sharing the timeline's
// array sees neither later appends nor entries replaced in place.
func TestSnapshotKeepsItsEntries(t *testing.T) {
	ctx := context.Background()
	c := newCtx(t, dispatch.Config{})
	first := call(t, "c1", "a", `{"n":1}`)
	if err := c.Save(ctx, dispatch.Entry{ToolCall: first}); err != nil {
		t.Fatal(err)
	}
	snap := c.Snapshot()
	replaced := call(t, "c1", "a", `{"n":2}`)
	if err := c.Save(ctx, dispatch.Entry{ToolCall: replaced}); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(ctx, dispatch.Entry{ToolCall: call(t, "c2", "a", `{"n":3}`)}); err != nil {
		t.Fatal(err)
	}
	if len(snap) != 1 || snap[0].ToolCall != first {
		t.Errorf("snapshot %+v, want the first call only", snap)
	}
	if tl := c.Timeline(); len(tl) != 2 || tl[0].ToolCall != replaced {
		t.Errorf("timeline %+v, want the replaced call and the new one", tl)
	}
	if got := append(snap, dispatch.Entry{}); &got[0] == &snap[0] {
		t.Error("appending to a snapshot writes into the timeline's array")
	}
}
