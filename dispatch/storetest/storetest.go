package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

// Harness tells [Run] how to open the store under test.
type Harness struct {
	// Open opens the store kept at loc, a fresh temporary directory per
	// subtest; opening the same loc again after Close reopens it.
	Open func(t *testing.T, loc string) dispatch.ConversationStore
	// Close closes a store Open returned; nil means there is nothing to close.
	Close func(t *testing.T, s dispatch.ConversationStore)
	// Durable says a reopened store holds what was written before Close.
	// An in-memory store is not durable; its Open may return the same
	// store for the same loc, which the suite then treats as a reopen.
	Durable bool
}

// Run runs the conformance suite as subtests of t.
func Run(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(*testing.T, *suite)
	}{
		{"SaveLoadInOrder", testSaveLoad},
		{"ReplaceInPlace", testReplace},
		{"InvalidInput", testInvalid},
		{"Conversations", testConversations},
		{"TurnStates", testTurnStates},
		{"History", testHistory},
		{"ConcurrentWriters", testConcurrent},
		{"CrashMidTurn", testCrash},
		{"Reopen", testReopen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &suite{h: h, loc: t.TempDir()}
			s.open(t)
			t.Cleanup(func() { s.close(t) })
			tt.fn(t, s)
		})
	}
}

type suite struct {
	h   Harness
	loc string
	st  dispatch.ConversationStore
}

func (s *suite) open(t *testing.T) {
	t.Helper()
	s.st = s.h.Open(t, s.loc)
	if s.st == nil {
		t.Fatal("storetest: Open returned nil")
	}
}

func (s *suite) close(t *testing.T) {
	t.Helper()
	if s.st != nil && s.h.Close != nil {
		s.h.Close(t, s.st)
	}
	s.st = nil
}

func (s *suite) reopen(t *testing.T) {
	t.Helper()
	s.close(t)
	s.open(t)
}

var base = time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)

func at(i int) time.Time { return base.Add(time.Duration(i) * time.Second) }

func message(t testing.TB, id string, role dispatch.Role, text string, i int) dispatch.Entry {
	t.Helper()
	m, err := dispatch.NewMessage(dispatch.RawMessage{ID: id, Role: role, Content: forge.NewTokenizable(text), CreatedAt: at(i)})
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Entry{Message: m}
}

func thought(t testing.TB, id, text string, i int) dispatch.Entry {
	t.Helper()
	th, err := dispatch.NewThought(dispatch.RawThought{ID: id, Content: forge.NewTokenizable(text),
		Payload: json.RawMessage(`{"signature":"c2ln"}`), ReplayCompatibility: "vendor", CreatedAt: at(i)})
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Entry{Thought: th}
}

// call is a tool call; an empty result leaves it incomplete.
func call(t testing.TB, id, args, result string, i int) dispatch.Entry {
	t.Helper()
	sum, err := canonical.ChecksumJSON("lookup", []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	raw := forge.RawToolCall{ID: id, Tool: "lookup", Args: args, Checksum: sum, CreatedAt: at(i)}
	if result != "" {
		raw.Results, raw.IsComplete, raw.CompletedAt = forge.NewTokenizable(result), true, at(i+1)
	} else {
		raw.Results = forge.NewTokenizable("")
	}
	c, err := forge.NewToolCall(raw)
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Entry{ToolCall: c}
}

// forms are the JSON forms of es, which is how entries are compared.
func forms(t testing.TB, es []dispatch.Entry) []string {
	t.Helper()
	out := make([]string, len(es))
	for i, e := range es {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

func (s *suite) save(t testing.TB, turn string, es ...dispatch.Entry) {
	t.Helper()
	for _, e := range es {
		if err := s.st.Save(context.Background(), turn, e); err != nil {
			t.Fatalf("Save(%q, %s %q): %v", turn, e.Kind(), e.ID(), err)
		}
	}
}

func (s *suite) expect(t testing.TB, turn string, want ...dispatch.Entry) {
	t.Helper()
	got, err := s.st.Load(context.Background(), turn)
	if err != nil {
		t.Fatalf("Load(%q): %v", turn, err)
	}
	if diff := cmp.Diff(forms(t, want), forms(t, got)); diff != "" {
		t.Errorf("Load(%q) (-want +got):\n%s", turn, diff)
	}
}

func testSaveLoad(t *testing.T, s *suite) {
	es := []dispatch.Entry{
		message(t, "m1", dispatch.RoleUser, "find the 🦀 crab", 0),
		thought(t, "th1", "the user wants a crab", 1),
		call(t, "c1", `{"q":"crab"}`, "a crab is a decapod", 2),
		message(t, "m2", dispatch.RoleAssistant, "A crab is a decapod.", 4),
	}
	// The entries of a model response keep its id, and an executed call
	// says so (a resumed turn's loop guard counts it).
	es[1].ResponseID, es[2].ResponseID, es[3].ResponseID = "resp-1", "resp-1", "resp-2"
	es[2].Executed = true
	s.save(t, "turn-1", es...)
	s.expect(t, "turn-1", es...)
	s.expect(t, "turn-unknown")
}

func testReplace(t *testing.T, s *suite) {
	first := call(t, "c1", `{"q":"a"}`, "", 1)
	s.save(t, "t", message(t, "m1", dispatch.RoleUser, "hi", 0), first, message(t, "m2", dispatch.RoleAssistant, "…", 3))
	done := call(t, "c1", `{"q":"a"}`, "done", 1)
	s.save(t, "t", done)
	// A message and a tool call may share an id: ids are unique per kind.
	same := message(t, "c1", dispatch.RoleAssistant, "same id, other kind", 5)
	s.save(t, "t", same)
	s.expect(t, "t", message(t, "m1", dispatch.RoleUser, "hi", 0), done, message(t, "m2", dispatch.RoleAssistant, "…", 3), same)
}

func testInvalid(t *testing.T, s *suite) {
	ctx := context.Background()
	if err := s.st.Save(ctx, "t", dispatch.Entry{}); err == nil {
		t.Error("Save of an empty entry succeeded")
	}
	if err := s.st.SetTurnState(ctx, "nope", dispatch.TurnCompleted, nil); !errors.Is(err, dispatch.ErrTurnNotFound) {
		t.Errorf("SetTurnState(unknown turn) = %v, want ErrTurnNotFound", err)
	}
	if err := s.st.StartTurn(ctx, "conv", "t"); err != nil {
		t.Fatal(err)
	}
	if err := s.st.SetTurnState(ctx, "t", "sleeping", nil); err == nil {
		t.Error("SetTurnState with an unknown state succeeded")
	}
	if err := s.st.StartTurn(ctx, "other-conv", "t"); err == nil {
		t.Error("StartTurn moved a turn to another conversation")
	}
	if err := s.st.StartTurn(ctx, "", "t2"); err == nil {
		t.Error("StartTurn without a conversation id succeeded")
	}
	if _, ok, err := s.st.Turn(ctx, "nope"); ok || err != nil {
		t.Errorf("Turn(unknown) = %v, %v; want false, nil", ok, err)
	}
}

func turnIDs(ts []dispatch.TurnInfo) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

func testConversations(t *testing.T, s *suite) {
	ctx := context.Background()
	start := func(conv, turn string) {
		t.Helper()
		if err := s.st.StartTurn(ctx, conv, turn); err != nil {
			t.Fatal(err)
		}
		s.save(t, turn, message(t, turn+"-q", dispatch.RoleUser, "question "+turn, 0))
		if err := s.st.SetTurnState(ctx, turn, dispatch.TurnCompleted, nil); err != nil {
			t.Fatal(err)
		}
	}
	start("a", "a1")
	start("b", "b1")
	start("a", "a2")
	start("a", "a3")
	ts, err := s.st.Turns(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a1", "a2", "a3"}, turnIDs(ts)); diff != "" {
		t.Errorf("Turns(a) (-want +got):\n%s", diff)
	}
	for _, ti := range ts {
		if ti.ConversationID != "a" || ti.State != dispatch.TurnCompleted || ti.StartedAt.IsZero() {
			t.Errorf("turn %+v: want conversation a, completed, a start time", ti)
		}
	}
	if ts, _ := s.st.Turns(ctx, "nope"); len(ts) != 0 {
		t.Errorf("Turns(unknown) = %v, want none", ts)
	}
	cs, err := s.st.Conversations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range cs {
		got[c.ID] = c.Turns
	}
	if diff := cmp.Diff(map[string]int{"a": 3, "b": 1}, got); diff != "" {
		t.Errorf("Conversations (-want +got):\n%s", diff)
	}
	if len(cs) == 2 && cs[0].UpdatedAt.Before(cs[1].UpdatedAt) {
		t.Errorf("Conversations not most recent first: %+v", cs)
	}
	ok, err := s.st.DeleteConversation(ctx, "a")
	if !ok || err != nil {
		t.Fatalf("DeleteConversation(a) = %v, %v", ok, err)
	}
	if ok, _ := s.st.DeleteConversation(ctx, "a"); ok {
		t.Error("second DeleteConversation(a) reported it existed")
	}
	s.expect(t, "a2")
	if _, ok, _ := s.st.Turn(ctx, "a2"); ok {
		t.Error("a deleted conversation's turn is still there")
	}
	s.expect(t, "b1", message(t, "b1-q", dispatch.RoleUser, "question b1", 0))
	cs, _ = s.st.Conversations(ctx)
	if len(cs) != 1 || cs[0].ID != "b" {
		t.Errorf("Conversations after delete = %+v, want only b", cs)
	}
}

func testTurnStates(t *testing.T, s *suite) {
	ctx := context.Background()
	if err := s.st.StartTurn(ctx, "c", "t"); err != nil {
		t.Fatal(err)
	}
	info, ok, err := s.st.Turn(ctx, "t")
	if !ok || err != nil || info.State != dispatch.TurnRunning || info.ConversationID != "c" {
		t.Fatalf("Turn after StartTurn = %+v, %v, %v", info, ok, err)
	}
	gates := []dispatch.OpenGate{
		{ID: "approval-c1", Reason: "tool pay requires approval", ToolCallID: "c1",
			Payload: json.RawMessage(`{"tool":"pay","args":{"amount":3}}`), CreatedAt: at(1)},
		{ID: "approval-c2", Reason: "tool pay requires approval", ToolCallID: "c2",
			Payload: json.RawMessage(`{"tool":"pay","args":{"amount":4}}`), CreatedAt: at(2)},
	}
	if err := s.st.SetTurnState(ctx, "t", dispatch.TurnSuspended, gates); err != nil {
		t.Fatal(err)
	}
	s.reopen(t)
	info, _, err = s.st.Turn(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if info.State != dispatch.TurnSuspended {
		t.Errorf("state = %s, want suspended", info.State)
	}
	if diff := cmp.Diff(gates, info.Gates, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}
	// Resuming starts the same turn again: same place, running, no gates.
	if err := s.st.StartTurn(ctx, "c", "t"); err != nil {
		t.Fatal(err)
	}
	info, _, _ = s.st.Turn(ctx, "t")
	if info.State != dispatch.TurnRunning || len(info.Gates) != 0 {
		t.Errorf("after resume: %+v, want running without gates", info)
	}
	if ts, _ := s.st.Turns(ctx, "c"); len(ts) != 1 {
		t.Errorf("resume added a turn: %v", turnIDs(ts))
	}
	// A running turn waiting for answers in its process keeps its gates
	// too (its process may die), until they are cleared.
	if err := s.st.SetTurnState(ctx, "t", dispatch.TurnRunning, gates[:1]); err != nil {
		t.Fatal(err)
	}
	s.reopen(t)
	info, _, _ = s.st.Turn(ctx, "t")
	if diff := cmp.Diff(gates[:1], info.Gates, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); info.State != dispatch.TurnRunning || diff != "" {
		t.Errorf("waiting turn: state %s, gates (-want +got):\n%s", info.State, diff)
	}
	if err := s.st.SetTurnState(ctx, "t", dispatch.TurnRunning, nil); err != nil {
		t.Fatal(err)
	}
	if info, _, _ = s.st.Turn(ctx, "t"); len(info.Gates) != 0 {
		t.Errorf("cleared gates are still there: %+v", info.Gates)
	}
}

func testHistory(t *testing.T, s *suite) {
	ctx := context.Background()
	var all []dispatch.Entry
	perTurn := map[string][]dispatch.Entry{}
	for i := range 5 {
		id := fmt.Sprintf("t%d", i)
		if err := s.st.StartTurn(ctx, "conv", id); err != nil {
			t.Fatal(err)
		}
		es := []dispatch.Entry{
			message(t, id+"-q", dispatch.RoleUser, fmt.Sprintf("question %d with some words in it", i), 0),
			message(t, id+"-a", dispatch.RoleAssistant, fmt.Sprintf("answer %d with some more words in it", i), 1),
		}
		s.save(t, id, es...)
		if err := s.st.SetTurnState(ctx, id, dispatch.TurnCompleted, nil); err != nil {
			t.Fatal(err)
		}
		perTurn[id] = es
		all = append(all, es...)
	}
	one := len(perTurn["t4"])
	tokens := 0
	for _, e := range perTurn["t4"] {
		n, _ := e.Message.Content().EstimateTokens(forge.EncodingO200K)
		tokens += n
	}
	for _, tt := range []struct {
		name string
		opts dispatch.HistoryOptions
		want []dispatch.Entry
	}{
		{"all", dispatch.HistoryOptions{}, all},
		{"last 2 turns", dispatch.HistoryOptions{LastTurns: 2}, all[3*one:]},
		{"last 9 turns", dispatch.HistoryOptions{LastTurns: 9}, all},
		{"tokens of two turns", dispatch.HistoryOptions{MaxTokens: 2*tokens + 1}, all[3*one:]},
		{"the newest turn always", dispatch.HistoryOptions{MaxTokens: 1}, all[4*one:]},
		{"before t3", dispatch.HistoryOptions{Before: "t3"}, all[:3*one]},
		{"before t3, last 1", dispatch.HistoryOptions{Before: "t3", LastTurns: 1}, all[2*one : 3*one]},
	} {
		got, err := dispatch.LoadHistory(ctx, s.st, "conv", tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(forms(t, tt.want), forms(t, got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if got, err := dispatch.LoadHistory(ctx, s.st, "nope", dispatch.HistoryOptions{}); err != nil || len(got) != 0 {
		t.Errorf("LoadHistory(unknown) = %v, %v", got, err)
	}
}

func testConcurrent(t *testing.T, s *suite) {
	ctx := context.Background()
	const writers, each = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			turn := fmt.Sprintf("turn-%d", w)
			if err := s.st.StartTurn(ctx, fmt.Sprintf("conv-%d", w%2), turn); err != nil {
				errs <- err
				return
			}
			for i := range each {
				e := message(t, fmt.Sprintf("m%d", i), dispatch.RoleUser, fmt.Sprintf("writer %d entry %d", w, i), i)
				if err := s.st.Save(ctx, turn, e); err != nil {
					errs <- err
					return
				}
			}
			errs <- s.st.SetTurnState(ctx, turn, dispatch.TurnCompleted, nil)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for w := range writers {
		turn := fmt.Sprintf("turn-%d", w)
		var want []dispatch.Entry
		for i := range each {
			want = append(want, message(t, fmt.Sprintf("m%d", i), dispatch.RoleUser, fmt.Sprintf("writer %d entry %d", w, i), i))
		}
		s.expect(t, turn, want...)
	}
	n := 0
	for c := range 2 {
		ts, err := s.st.Turns(ctx, fmt.Sprintf("conv-%d", c))
		if err != nil {
			t.Fatal(err)
		}
		n += len(ts)
	}
	if n != writers {
		t.Errorf("%d turns in the conversations, want %d", n, writers)
	}
}

func testCrash(t *testing.T, s *suite) {
	ctx := context.Background()
	if err := s.st.StartTurn(ctx, "conv", "t1"); err != nil {
		t.Fatal(err)
	}
	q := message(t, "q", dispatch.RoleUser, "look it up", 0)
	done := call(t, "c1", `{"q":"x"}`, "found x", 1)
	open := call(t, "c2", `{"q":"y"}`, "", 3)
	s.save(t, "t1", q, done, open)
	// The process stops here: the turn never ends.
	s.reopen(t)
	if s.h.Durable {
		s.expect(t, "t1", q, done, open)
	}
	info, ok, err := s.st.Turn(ctx, "t1")
	if err != nil || (s.h.Durable && (!ok || info.State != dispatch.TurnRunning)) {
		t.Fatalf("Turn(t1) after reopen = %+v, %v, %v; want running", info, ok, err)
	}
	// The conversation moves on: the cut-off turn is marked interrupted,
	// its unfinished call comes back with an interrupted error result.
	if err := s.st.StartTurn(ctx, "conv", "t2"); err != nil {
		t.Fatal(err)
	}
	if info, _, _ := s.st.Turn(ctx, "t1"); info.State != dispatch.TurnInterrupted {
		t.Errorf("t1 is %s after the next turn started, want interrupted", info.State)
	}
	hist, err := dispatch.LoadHistory(ctx, s.st, "conv", dispatch.HistoryOptions{Before: "t2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 3 {
		t.Fatalf("history has %d entries, want 3", len(hist))
	}
	c := hist[2].ToolCall
	if c == nil || !c.IsComplete() || !c.IsError() || !strings.HasPrefix(c.Results().Text().String(), "Tool call interrupted") {
		t.Errorf("unfinished call in history = %+v, want an interrupted error result", c)
	}
	if diff := cmp.Diff(forms(t, []dispatch.Entry{q, done}), forms(t, hist[:2])); diff != "" {
		t.Errorf("completed entries changed (-want +got):\n%s", diff)
	}
	s.expect(t, "t1", q, done, open) // the stored entry is unchanged
}

func testReopen(t *testing.T, s *suite) {
	if !s.h.Durable {
		t.Skip("the store is not durable")
	}
	ctx := context.Background()
	if err := s.st.StartTurn(ctx, "conv", "t1"); err != nil {
		t.Fatal(err)
	}
	es := []dispatch.Entry{message(t, "q", dispatch.RoleUser, "hello", 0), thought(t, "th", "hmm", 1),
		call(t, "c", `{"q":"z"}`, "zed", 2), message(t, "a", dispatch.RoleAssistant, "zed it is", 4)}
	es[2].ResponseID, es[2].Executed = "resp-1", true
	s.save(t, "t1", es...)
	if err := s.st.SetTurnState(ctx, "t1", dispatch.TurnCompleted, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s.reopen(t)
		s.expect(t, "t1", es...)
		cs, err := s.st.Conversations(ctx)
		if err != nil || len(cs) != 1 || cs[0].ID != "conv" || cs[0].Turns != 1 {
			t.Fatalf("Conversations after reopen = %+v, %v", cs, err)
		}
	}
}
