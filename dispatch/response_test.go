package dispatch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

// Entries a response produced keep its id in the context and the store; a
// replacement that names no response keeps the entry's id.
func TestStoreResponseEntry(t *testing.T) {
	ctx := context.Background()
	store := dispatch.NewMemoryStore()
	c := newCtx(t, dispatch.Config{Store: store})
	user, _ := dispatch.NewMessage(dispatch.RawMessage{ID: "u1", Role: dispatch.RoleUser, Content: forge.NewTokenizable("hi")})
	answer, err := dispatch.NewMessage(dispatch.RawMessage{ID: "m1", Role: dispatch.RoleAssistant, Content: forge.NewTokenizable("x")})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		e        dispatch.Entry
		executed bool
	}{
		{dispatch.Entry{Message: user}, false},
		{dispatch.Entry{Message: answer, ResponseID: "r1"}, false},
		{dispatch.Entry{ToolCall: call(t, "c1", "echo", `{"q":1}`), ResponseID: "r1"}, true},
		{dispatch.Entry{ToolCall: call(t, "c2", "echo", `{"q":1}`), ResponseID: "r2"}, false},
	}
	for _, s := range steps {
		if err := c.StoreResponseEntry(ctx, s.e, s.executed); err != nil {
			t.Fatal(err)
		}
	}
	// Replacing m1 without a response id keeps r1.
	edited, _ := dispatch.NewMessage(dispatch.RawMessage{ID: "m1", Role: dispatch.RoleAssistant, Content: forge.NewTokenizable("edited")})
	if err := c.Save(ctx, dispatch.Entry{Message: edited}); err != nil {
		t.Fatal(err)
	}
	ids := func(es []dispatch.Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.ID()+"@"+e.ResponseID)
		}
		return out
	}
	want := []string{"u1@", "m1@r1", "c1@r1", "c2@r2"}
	if diff := cmp.Diff(want, ids(c.Timeline())); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
	stored, _ := store.Load(ctx, "turn")
	if diff := cmp.Diff(want, ids(stored)); diff != "" {
		t.Errorf("store (-want +got):\n%s", diff)
	}
	if c.Timeline()[1].Message.Text() != "edited" {
		t.Error("the replacement was not stored")
	}
	// Only the executed call counts against the loop guard.
	sum := steps[2].e.ToolCall.Checksum()
	if got := c.ToolCallCount(sum); got != 2 {
		t.Errorf("ToolCallCount = %d, want 2", got)
	}
	if _, ok := c.LastExecutedToolCall(sum); !ok {
		t.Error("c1 not counted as executed")
	}
	if v := c.CheckRepeat("echo", sum, 0); v.Earlier != 1 {
		t.Errorf("loop guard count = %d, want 1 (c2 was not executed)", v.Earlier)
	}
	if err := c.StoreResponseEntry(ctx, dispatch.Entry{}, false); !errors.Is(err, dispatch.ErrStore) {
		t.Errorf("empty entry: %v", err)
	}
}
