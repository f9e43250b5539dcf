package turnrunner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
)

// A record that cannot be built (here: results holding a nil artifact) is
// not lost: an Error is emitted and the call is settled as an error result.
func TestSettleFallsBackWhenCompleteFails(t *testing.T) {
	r, dc, em := settleRig(t, nil)
	sum, err := canonical.Checksum("echo", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	rec := &callRecord{id: "c", name: "echo", raw: json.RawMessage(`{}`), argsOK: true, checksum: sum,
		created: r.now(), results: forge.ArtifactResults(nil), complete: true, completedAt: r.now()}
	r.settle(context.Background(), dc, em, rec)
	em.finish(nil)
	var sawError, sawCall bool
	for ev := range em.ch {
		switch e := ev.(type) {
		case Error:
			sawError = true
		case ToolCallContent:
			sawCall = e.Call != nil && e.IsError
		}
	}
	if rec.call == nil || !rec.call.IsError() || !sawError || !sawCall {
		t.Fatalf("call %v, error event %v, completing event %v", rec.call, sawError, sawCall)
	}
	txt, err := llm.RenderResult(context.Background(), rec.call)
	if err != nil || !strings.HasPrefix(txt, "Tool result could not be recorded: ") {
		t.Errorf("text %q (%v)", txt, err)
	}
}

type modelStub struct{ llm.ModelFunc }

// settleRig is a runner with opts on a model that is never called, a
// dispatch context and an emitter with room for 16 events.
func settleRig(t *testing.T, opts *Options) (*Runner, *dispatch.Context, *emitter) {
	t.Helper()
	r, err := New(modelStub{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := drive.New("t", nil, nil, nil, nil, nil, dispatch.LoopPolicy{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, dc, newEmitter(context.Background(), 16)
}

// Whatever panics on a worker goroutine outside the narrower recovers (here
// the clock) is recorded for runCalls to fail the dispatch, not the process.
func TestExecuteRecoversEverything(t *testing.T) {
	r, dc, em := settleRig(t, &Options{Now: func() time.Time { panic("clock") }})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := &callRecord{id: "c", name: "echo", raw: json.RawMessage(`{}`), argsOK: true, run: true}
	r.executeAll(ctx, dc, em, nil, []*callRecord{rec, {id: "d", name: "echo", run: true}})
	em.finish(nil)
	if rec.panicked == nil || !strings.Contains(rec.panicked.Error(), "clock") {
		t.Fatalf("panicked = %v", rec.panicked)
	}
}

func TestNewEntryIDIsAVersion4UUID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newEntryID()
		u, err := uuid.Parse(id)
		if err != nil {
			t.Fatalf("%q: %v", id, err)
		}
		if u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("%q: version %d, variant %s", id, u.Version(), u.Variant())
		}
		if seen[id] {
			t.Fatalf("%q repeated", id)
		}
		seen[id] = true
	}
}

// TestEmitterQueueIsBoundedByTheBuffer checks that send only queues until
// the queue outgrows the channel's buffer, then delivers, and that the
// queue is handed over lingerFor after the first event.
func TestEmitterQueueIsBoundedByTheBuffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		em := newEmitter(ctx, 2)
		queued := func() int {
			em.qmu.Lock()
			defer em.qmu.Unlock()
			return len(em.pending)
		}
		em.send(Log{Message: "a"})
		em.send(Log{Message: "b"})
		if len(em.ch) != 0 || queued() != 2 {
			t.Fatalf("after two sends: %d delivered, %d queued; want 0 and 2", len(em.ch), queued())
		}
		time.Sleep(lingerFor)
		synctest.Wait()
		if len(em.ch) != 2 || queued() != 0 {
			t.Fatalf("lingerFor later: %d delivered, %d queued; want 2 and 0", len(em.ch), queued())
		}
		<-em.ch
		<-em.ch
		em.send(Log{Message: "c"})
		em.send(Log{Message: "d"})
		cancel() // a full channel then drops instead of waiting
		em.send(Log{Message: "e"})
		if len(em.ch) != 2 || queued() != 0 {
			t.Fatalf("after three more sends: %d delivered, %d queued; want 2 and 0", len(em.ch), queued())
		}
		if got := (<-em.ch).(Log).Message + (<-em.ch).(Log).Message; got != "cd" {
			t.Errorf("delivered %q, want the first two in order", got)
		}
		em.finish(nil)
		if _, open := <-em.ch; open {
			t.Error("the channel is open after finish")
		}
	})
}
