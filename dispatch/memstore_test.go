package dispatch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

func saveText(t *testing.T, s *dispatch.MemoryStore, turn, text string) {
	t.Helper()
	m, err := dispatch.NewMessage(dispatch.RawMessage{ID: turn + "-m", Role: dispatch.RoleUser, Content: forge.NewTokenizable(text)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(context.Background(), turn, dispatch.Entry{Message: m}); err != nil {
		t.Fatal(err)
	}
}

func kept(s *dispatch.MemoryStore, turns ...string) []string {
	var out []string
	for _, id := range turns {
		if es, _ := s.Load(context.Background(), id); es != nil {
			out = append(out, id)
		}
	}
	return out
}

func TestMemoryStoreBounds(t *testing.T) {
	ctx := context.Background()
	t.Run("default max turns", func(t *testing.T) {
		// 1,000 turns, of which at most 10 outside any conversation.
		var s dispatch.MemoryStore
		endedTurn := func(conv, id string) {
			if err := s.StartTurn(ctx, conv, id); err != nil {
				t.Fatal(err)
			}
			saveText(t, &s, id, "x")
			if err := s.SetTurnState(ctx, id, dispatch.TurnCompleted, nil); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 500 {
			endedTurn(fmt.Sprint("c", i%7), fmt.Sprint("conv-", i))
		}
		for i := range 10 + 100 {
			saveText(t, &s, fmt.Sprint("loose-", i), "x")
		}
		if got := kept(&s, "conv-0", "conv-499", "loose-0", "loose-99", "loose-100", "loose-109"); fmt.Sprint(got) != "[conv-0 conv-499 loose-100 loose-109]" {
			t.Errorf("kept %v, want every conversation turn and the newest 10 outside conversations", got)
		}
		for i := 500; i < 1000+10; i++ {
			endedTurn(fmt.Sprint("c", i%7), fmt.Sprint("conv-", i))
		}
		// 1,020 turns: the 20 written least recently go, whichever they are.
		if got := kept(&s, "conv-0", "conv-19", "conv-20", "loose-100", "loose-109", "conv-1009"); fmt.Sprint(got) != "[conv-20 loose-100 loose-109 conv-1009]" {
			t.Errorf("kept %v, want all but conv-0 to conv-19", got)
		}
	})
	t.Run("max bytes", func(t *testing.T) {
		s := &dispatch.MemoryStore{MaxBytes: 10_000}
		for i := range 10 {
			saveText(t, s, fmt.Sprint(i), strings.Repeat("x", 2000))
		}
		if got := kept(s, "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"); len(got) > 5 || got[len(got)-1] != "9" {
			t.Errorf("kept %v, want at most the newest 4", got)
		}
	})
	t.Run("running and suspended turns are spared", func(t *testing.T) {
		s := &dispatch.MemoryStore{MaxTurns: 2}
		for _, id := range []string{"run", "sus"} {
			if err := s.StartTurn(ctx, "c-"+id, id); err != nil {
				t.Fatal(err)
			}
			saveText(t, s, id, "x")
		}
		if err := s.SetTurnState(ctx, "sus", dispatch.TurnSuspended, nil); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			saveText(t, s, fmt.Sprint(i), "x")
		}
		if got := kept(s, "run", "sus", "0", "3", "4"); fmt.Sprint(got) != "[run sus 4]" {
			t.Errorf("kept %v, want [run sus 4]", got)
		}
	})
	t.Run("retention", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &dispatch.MemoryStore{Retention: time.Hour}
			saveText(t, s, "old", "x")
			time.Sleep(30 * time.Minute)
			saveText(t, s, "mid", "x")
			time.Sleep(31 * time.Minute)
			saveText(t, s, "new", "x")
			if got := fmt.Sprint(kept(s, "old", "mid", "new")); got != "[mid new]" {
				t.Errorf("kept %s, want [mid new]", got)
			}
		})
	})
}
