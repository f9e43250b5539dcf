package turnrunner_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
)

// The ArtifactTTL sweep at the start of one turn spares the artifacts of
// the turns still running on the same Runner, however old: turn A spools a
// log, waits in a tool while turn B starts (and sweeps) after A's log has
// outlived the TTL, then reads its log back, from the store and with
// artifact_head. Once A has ended, the next turn's sweep removes A's
// artifacts as usual.
func TestArtifactTTLSparesRunningTurns(t *testing.T) {
	const ttl = time.Millisecond
	tests := []struct {
		name  string
		store func(t *testing.T) spooledartifact.Store
	}{
		{"memory", func(*testing.T) spooledartifact.Store { return spooledartifact.NewMemoryStore() }},
		{"disk", func(t *testing.T) spooledartifact.Store {
			// Spilled: the sweep of a file closes its readers, so
			// artifact_head fails too when the artifact is swept.
			s, err := spooledartifact.NewDiskStore(t.TempDir(), &spooledartifact.DiskOptions{SpillThreshold: -1})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := tt.store(t)
			waiting, release := make(chan struct{}), make(chan struct{})
			releaseA := sync.OnceFunc(func() { close(release) })
			defer releaseA() // a failure below must not leave turn A waiting
			wait := textTool(t, "wait", func(ctx context.Context, _ map[string]any) (string, error) {
				close(waiting)
				select {
				case <-release:
				case <-ctx.Done():
					return "", ctx.Err()
				}
				rd, err := store.Read(ctx, "A/c1")
				if err != nil {
					return "", err
				}
				if c, ok := rd.(io.Closer); ok {
					defer c.Close()
				}
				b, err := spooledartifact.New("A/c1", rd).ReadAll(ctx)
				return string(b), err
			}, nil)
			model := scripted.NewFunc(func(_ context.Context, req *llm.Request) (scripted.Step, error) {
				if req.TurnID != "A" {
					return scripted.Say("hi"), nil
				}
				switch req.Iteration {
				case 0:
					return scripted.Use(scripted.Call{ID: "c1", Name: "logs", Args: `{}`}), nil
				case 1:
					return scripted.Use(scripted.Call{ID: "w1", Name: "wait", Args: `{}`}), nil
				case 2:
					return scripted.Use(scripted.Call{ID: "h1", Name: spooledartifact.ToolHead, Args: `{"callId":"c1","n":2}`}), nil
				}
				return scripted.Say("done"), nil
			})
			r := newRunner(t, model, &turnrunner.Options{Tools: []*forge.Tool{logTool(t), wait}, SpoolStore: store, ArtifactTTL: ttl})

			ch, err := r.Run(context.Background(), turnrunner.Input{TurnID: "A", Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			doneA := make(chan []turnrunner.Event, 1)
			go func() {
				var evs []turnrunner.Event
				for ev := range ch {
					evs = append(evs, ev)
				}
				doneA <- evs
			}()
			select {
			case <-waiting:
			case <-time.After(10 * time.Second):
				t.Fatal("turn A never reached its wait tool")
			}
			time.Sleep(5 * ttl) // A's log, written before, is now older than the TTL
			completed(t, run(t, r, turnrunner.Input{TurnID: "B", Prompt: "hi"}))
			if ids := spooledIDs(t, store, "A/"); len(ids) != 1 || ids[0] != "A/c1" {
				t.Errorf("after turn B's sweep the store holds %v of running turn A, want [A/c1]", ids)
			}
			releaseA()
			completed(t, <-doneA)
			for _, c := range storedCalls(t, r, "A") {
				if c.ID() == "c1" {
					continue
				}
				if got := resultText(t, c); c.IsError() || !strings.Contains(got, "line one") {
					t.Errorf("turn A's %s read of its own artifact: error=%v %q", c.ID(), c.IsError(), got)
				}
			}

			time.Sleep(5 * ttl)
			completed(t, run(t, r, turnrunner.Input{TurnID: "C", Prompt: "hi"}))
			if ids := spooledIDs(t, store, ""); len(ids) != 0 {
				t.Errorf("turn C's sweep left %v of ended turn A", ids)
			}
		})
	}
}
