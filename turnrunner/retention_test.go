package turnrunner_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
)

func logTool(t *testing.T) *forge.Tool {
	return textTool(t, "logs", func(ctx context.Context, args map[string]any) (string, error) {
		return "line one\nthe needle line\nline three\n", nil
	}, nil)
}

func spooledIDs(t *testing.T, s spooledartifact.Store, prefix string) []string {
	t.Helper()
	ids, err := s.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func completed(t *testing.T, evs []turnrunner.Event) {
	t.Helper()
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %+v", end)
	}
}

// The runner's own in-memory spool store is emptied at every turn end, and
// that loses nothing: the stored call still renders, and a later turn that
// replays it can still query it with the artifact_* tools.
func TestDefaultSpoolStoreIsCleanedAtTurnEnd(t *testing.T) {
	m := scripted.New(
		scripted.Use(scripted.Call{ID: "c1", Name: "logs", Args: `{}`}), scripted.Say("fetched"),
		scripted.Use(scripted.Call{ID: "g1", Name: "artifact_grep", Args: `{"callId":"c1","pattern":"needle"}`}), scripted.Say("found"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{logTool(t)}})
	completed(t, run(t, r, turnrunner.Input{TurnID: "t1", Prompt: "fetch"}))
	if ids := spooledIDs(t, r.SpoolStore(), ""); len(ids) != 0 {
		t.Errorf("default store keeps %v after the turn", ids)
	}
	calls := storedCalls(t, r, "t1")
	if got := resultText(t, calls[0]); !strings.Contains(got, "the needle line") {
		t.Errorf("stored call renders %q after cleanup", got)
	}

	history, err := r.Store().Load(context.Background(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	completed(t, run(t, r, turnrunner.Input{TurnID: "t2", History: history, Prompt: "grep it"}))
	grep := storedCalls(t, r, "t2")
	if len(grep) != 1 || grep[0].IsError() || !strings.Contains(resultText(t, grep[0]), "the needle line") {
		t.Errorf("artifact_grep over replayed history: %v %q", grep[0].IsError(), resultText(t, grep[0]))
	}
}

func TestArtifactRetentionOptions(t *testing.T) {
	tests := []struct {
		name     string
		opts     func(s spooledartifact.Store) turnrunner.Options
		ownStore bool
		kept     bool
	}{
		{"own store, keep", func(spooledartifact.Store) turnrunner.Options {
			return turnrunner.Options{KeepArtifacts: true}
		}, true, true},
		{"caller's store is left alone", func(s spooledartifact.Store) turnrunner.Options {
			return turnrunner.Options{SpoolStore: s}
		}, false, true},
		{"caller's store, cleanup", func(s spooledartifact.Store) turnrunner.Options {
			return turnrunner.Options{SpoolStore: s, CleanupArtifacts: true}
		}, false, false},
		{"own store, keep but cleanup wins", func(spooledartifact.Store) turnrunner.Options {
			return turnrunner.Options{KeepArtifacts: true, CleanupArtifacts: true}
		}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := spooledartifact.NewMemoryStore()
			o := tt.opts(store)
			o.Tools = []*forge.Tool{logTool(t)}
			m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "logs", Args: `{}`}), scripted.Say("ok"))
			r := newRunner(t, m, &o)
			if tt.ownStore == (r.SpoolStore() == spooledartifact.Store(store)) {
				t.Fatalf("SpoolStore() is the caller's: %v", !tt.ownStore)
			}
			completed(t, run(t, r, turnrunner.Input{TurnID: "t", Prompt: "go"}))
			ids := spooledIDs(t, r.SpoolStore(), "t/")
			if kept := len(ids) == 1; kept != tt.kept {
				t.Errorf("store holds %v, want kept=%v", ids, tt.kept)
			}
		})
	}
}

// ArtifactTTL sweeps old artifacts at the start of each turn.
func TestArtifactTTLSweepsAtTurnStart(t *testing.T) {
	store := spooledartifact.NewMemoryStore()
	m := scripted.New(
		scripted.Use(scripted.Call{ID: "c1", Name: "logs", Args: `{}`}), scripted.Say("ok"),
		scripted.Use(scripted.Call{ID: "c2", Name: "logs", Args: `{}`}), scripted.Say("ok"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{logTool(t)}, SpoolStore: store, ArtifactTTL: time.Nanosecond})
	completed(t, run(t, r, turnrunner.Input{TurnID: "t1", Prompt: "go"}))
	if ids := spooledIDs(t, store, "t1/"); len(ids) != 1 {
		t.Fatalf("after turn 1: %v", ids)
	}
	time.Sleep(time.Millisecond) // let the 1ns TTL pass on coarse clocks
	completed(t, run(t, r, turnrunner.Input{TurnID: "t2", Prompt: "go"}))
	if ids := spooledIDs(t, store, ""); len(ids) != 1 || ids[0] != "t2/c2" {
		t.Errorf("after turn 2 the store holds %v, want only t2/c2", ids)
	}
	if _, err := turnrunner.New(m, &turnrunner.Options{ArtifactTTL: -1}); !errors.Is(err, turnrunner.ErrInvalidConfig) {
		t.Errorf("negative TTL: %v", err)
	}
}

// goneArtifact is an artifact whose bytes were deleted from its store.
type goneArtifact struct{}

func (goneArtifact) ID() string   { return "t/c" }
func (goneArtifact) Kind() string { return "SpooledArtifact" }
func (goneArtifact) ByteLength(context.Context) (int64, error) {
	return 0, fmt.Errorf("read t/c: %w", spooledartifact.ErrNotFound)
}
func (goneArtifact) LineCount(context.Context) (int, error) {
	return 0, fmt.Errorf("read t/c: %w", spooledartifact.ErrNotFound)
}
func (goneArtifact) ReadAll(context.Context) ([]byte, error) {
	return nil, fmt.Errorf("read t/c: %w", spooledartifact.ErrNotFound)
}

// brokenArtifact fails for another reason: that stays an error.
type brokenArtifact struct{ goneArtifact }

func (brokenArtifact) ReadAll(context.Context) ([]byte, error) {
	return nil, errors.New("disk on fire")
}

func TestRenderExpiredArtifact(t *testing.T) {
	mk := func(a forge.Artifact, inline bool) *forge.ToolCall {
		sum := strings.Repeat("a", 64)
		c, err := forge.NewToolCall(forge.RawToolCall{ID: "c", Tool: "logs", Args: []byte(`{}`), Checksum: sum,
			Results: forge.ArtifactResults(a), IsComplete: true, Inline: &inline,
			CreatedAt: time.Unix(1, 0), CompletedAt: time.Unix(2, 0)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, inline := range []bool{true, false} {
		got, err := llm.RenderResult(context.Background(), mk(goneArtifact{}, inline))
		if err != nil || got != llm.ArtifactExpiredText {
			t.Errorf("inline=%v: %q, %v", inline, got, err)
		}
	}
	if _, err := llm.RenderResult(context.Background(), mk(brokenArtifact{}, true)); err == nil {
		t.Error("a real read failure was hidden")
	}
	// The model sees the text when such a call is replayed.
	m := scripted.New(scripted.Say("ok"))
	r := newRunner(t, m, nil)
	completed(t, run(t, r, turnrunner.Input{History: []dispatch.Entry{{ToolCall: mk(goneArtifact{}, true)}}, Prompt: "go"}))
	if got := resultText(t, m.Requests()[0].Timeline[0].ToolCall); got != llm.ArtifactExpiredText {
		t.Errorf("replayed call renders %q", got)
	}
}

// A turn outside any conversation is kept in the default store while it
// runs, however many such turns end meanwhile: the store drops only ended
// ones past its bound, so the running turn's timeline stays whole.
func TestARunningLooseTurnOutlivesTheLooseBound(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	wait := textTool(t, "wait", func(ctx context.Context, args map[string]any) (string, error) {
		if args["q"] == "slow" {
			close(entered)
			<-release
		}
		return "done", nil
	}, nil)
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		last := req.Timeline[len(req.Timeline)-1]
		return func(yield func(llm.Part, error) bool) {
			if last.Message != nil { // the prompt: call the tool with it
				_ = yield(llm.ToolCallPart(0, "c", "wait", `{"q":"`+last.Message.Text()+`"}`), nil) &&
					yield(llm.StopPart(llm.StopToolUse), nil)
				return
			}
			_ = yield(llm.TextPart("ok"), nil) && yield(llm.StopPart(llm.StopEnd), nil)
		}
	})
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{wait}})
	ch, err := r.Run(context.Background(), turnrunner.Input{TurnID: "slow", Prompt: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	<-entered
	for i := range 30 {
		completed(t, run(t, r, turnrunner.Input{TurnID: fmt.Sprint("quick-", i), Prompt: "quick"}))
	}
	close(release)
	var evs []turnrunner.Event
	for ev := range ch {
		evs = append(evs, ev)
	}
	completed(t, evs)
	stored, err := r.Store().Load(context.Background(), "slow")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range stored {
		switch {
		case e.Message != nil:
			got = append(got, string(e.Message.Role())+": "+e.Message.Text())
		case e.ToolCall != nil:
			got = append(got, "call "+e.ToolCall.Tool())
		}
	}
	if want := []string{"user: slow", "call wait", "assistant: ok"}; !slices.Equal(got, want) {
		t.Errorf("the slow turn's stored timeline is %q, want %q", got, want)
	}
	cs := r.Store().(dispatch.ConversationStore)
	if info, ok, err := cs.Turn(context.Background(), "slow"); err != nil || !ok || info.State != dispatch.TurnCompleted {
		t.Errorf("the slow turn is stored as %+v (%v, %v), want completed", info, ok, err)
	}
	if _, ok, _ := cs.Turn(context.Background(), "quick-0"); ok {
		t.Error("the first quick turn is still kept, past the bound on turns outside conversations")
	}
}
