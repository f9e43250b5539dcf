package turnrunner_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// The hostile-input suite of the runner: what a model or a tool can send
// that must still end the turn, settle and store every announced call, and
// keep raw bytes away from the model's text.

// readerTool returns a tool whose handler returns the reader open gives it.
func readerTool(t *testing.T, name string, open func(ctx context.Context) (io.Reader, error), opts *forge.ToolOptions) *forge.Tool {
	t.Helper()
	tool, err := forge.NewTool(name, "test tool "+name, objectSchema,
		func(ctx context.Context, _ map[string]any, _ forge.Invocation) (forge.Output, error) {
			r, err := open(ctx)
			if err != nil {
				return forge.Output{}, err
			}
			return forge.ReaderOutput(r), nil
		}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// drain reads every event of ch (the runner closes it after TurnEnd).
func drain(ch <-chan turnrunner.Event) []turnrunner.Event {
	var evs []turnrunner.Event
	for ev := range ch {
		evs = append(evs, ev)
	}
	return evs
}

// assertEverySettledAndStored checks that every announced call was
// completed by an event and stored, and that the model's next request (when
// there was one) carries a result for each.
func assertEverySettledAndStored(t *testing.T, r *turnrunner.Runner, m *scripted.Model, turnID string, evs []turnrunner.Event) []*forge.ToolCall {
	t.Helper()
	announced := map[string]bool{}
	completed := map[string]bool{}
	for _, e := range ofType[turnrunner.ToolCallContent](evs) {
		if e.Call == nil {
			announced[e.ID] = true
		} else {
			completed[e.ID] = true
		}
	}
	for id := range announced {
		if !completed[id] {
			t.Errorf("call %q announced but never completed", id)
		}
	}
	calls := storedCalls(t, r, turnID)
	stored := map[string]bool{}
	for _, c := range calls {
		stored[c.ID()] = true
	}
	for id := range announced {
		if !stored[id] {
			t.Errorf("call %q announced but not stored", id)
		}
	}
	if reqs := m.Requests(); len(reqs) > 1 {
		inNext := map[string]bool{}
		for _, e := range reqs[1].Timeline {
			if e.ToolCall != nil {
				inNext[e.ToolCall.ID()] = true
			}
		}
		for id := range announced {
			if !inNext[id] {
				t.Errorf("call %q has no result in the next request", id)
			}
		}
	}
	return calls
}

// A tool with a timeout returns a reader whose Read blocks forever (a pipe
// nobody writes): the timeout ends the call as an error result the model
// reads, the turn goes on to the model's answer, and no goroutine is left.
func TestHostileStalledReaderOutputTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var pw *io.PipeWriter
		stalled := readerTool(t, "stalled", func(context.Context) (io.Reader, error) {
			var pr *io.PipeReader
			pr, pw = io.Pipe()
			return pr, nil
		}, &forge.ToolOptions{Timeout: 200 * time.Millisecond})
		m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "stalled", Args: `{}`}), scripted.Say("done"))
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{stalled}})
		start := time.Now()
		ch, err := r.Run(t.Context(), turnrunner.Input{TurnID: "stall", Prompt: "go"})
		if err != nil {
			t.Fatal(err)
		}
		evs := drain(ch)
		if took := time.Since(start); took != 200*time.Millisecond {
			t.Errorf("turn took %v, want the 200ms tool timeout", took)
		}
		if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
			t.Fatalf("TurnEnd %s %v, want completed", end.Status, end.Err)
		}
		calls := assertEverySettledAndStored(t, r, m, "stall", evs)
		if len(calls) != 1 || !calls[0].IsError() || !calls[0].IsComplete() {
			t.Fatalf("stored calls %v, want one complete error result", calls)
		}
		if text := resultText(t, calls[0]); text != "Tool stalled timed out after 200ms and was cancelled." {
			t.Errorf("result %q, want the timeout text", text)
		}
		if _, err := pw.Write([]byte("late")); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("the stalled pipe was not closed: write = %v", err)
		}
		synctest.Wait()
	})
}

// Cancelling Run's context while a reader output is blocked ends the turn
// promptly: TurnEnd last, the channel closed, the call settled as
// cancelled and stored.
func TestHostileStalledReaderOutputEndsOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reading := make(chan struct{})
		stalled := readerTool(t, "stalled", func(context.Context) (io.Reader, error) {
			pr, _ := io.Pipe()
			close(reading)
			return pr, nil
		}, nil)
		m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "stalled", Args: `{}`}), scripted.Say("done"))
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{stalled}})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		ch, err := r.Run(ctx, turnrunner.Input{TurnID: "cancel", Prompt: "go"})
		if err != nil {
			t.Fatal(err)
		}
		var evs []turnrunner.Event
		go func() { // a consumer that keeps up
			<-reading
			synctest.Wait() // the spool is blocked in Read
			cancel()
		}()
		evs = drain(ch)
		end := turnEnd(t, evs)
		if end.Status != turnrunner.TurnAborted {
			t.Fatalf("TurnEnd %s %v, want aborted", end.Status, end.Err)
		}
		calls := assertEverySettledAndStored(t, r, m, "cancel", evs)
		if len(calls) != 1 || !calls[0].IsError() || !strings.Contains(resultText(t, calls[0]), "cancelled") {
			t.Fatalf("stored calls %v, want one cancelled error result", calls)
		}
		synctest.Wait()
	})
}

// A network body that sends its headers and then stalls, under the
// runner's ToolTimeout: the call times out, the body is closed, nothing is
// left running.
func TestHostileStalledNetworkBodyTimesOut(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "partial\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // stall until the client hangs up
	}))
	defer srv.Close()
	fetch := readerTool(t, "fetch", func(ctx context.Context) (io.Reader, error) {
		req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, srv.URL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "fetch", Args: `{}`}), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{fetch}, ToolTimeout: 300 * time.Millisecond})
	evs := run(t, r, turnrunner.Input{TurnID: "net", Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %s %v, want completed", end.Status, end.Err)
	}
	calls := assertEverySettledAndStored(t, r, m, "net", evs)
	if len(calls) != 1 || resultText(t, calls[0]) != "Tool fetch timed out after 300ms and was cancelled." {
		t.Fatalf("stored calls %v, want one timed-out result", calls)
	}
	srv.CloseClientConnections()
}

