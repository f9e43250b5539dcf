package turnrunner_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/spooledartifact"
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
// completed by an event and stored, and that the model's last request
// (when it followed the calls) carries a result for each.
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
		inNext := map[string]bool{} // the last request follows every call
		for _, e := range reqs[len(reqs)-1].Timeline {
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

// hostileCall is one row of the table of model-sent calls: what the model
// sends, and what the stored call and its result must be.
type hostileCall struct {
	name       string
	call       scripted.Call
	wantID     string // "" means the model's id
	wantTool   string // the name the call is stored under
	wantResult []string
	ran        bool // the handler ran
}

// TestHostileModelCalls runs each call in its own turn against an echo
// tool: every call is announced, completed (as an error result the model
// reads when it cannot run) and stored; nothing is echoed unbounded; no
// Error event; no goroutine left.
func TestHostileModelCalls(t *testing.T) {
	const fourMiB = 4 << 20
	hugeName := strings.Repeat("n", fourMiB)
	hugeID := strings.Repeat("i", fourMiB)
	longID := strings.Repeat("d", 300)
	for _, tc := range []hostileCall{
		{name: "name is invalid UTF-8", call: scripted.Call{ID: "c1", Name: "\xff\xfe", Args: `{}`},
			wantTool: "\uFFFD\uFFFD", wantResult: []string{"E_TOOL_NOT_FOUND", `"��" is not a valid tool name (not valid UTF-8)`, "Available tools: echo."}},
		{name: "name with a truncated sequence", call: scripted.Call{ID: "c1", Name: "echo\xc3", Args: `{}`},
			wantTool: "echo\uFFFD", wantResult: []string{`"echo�" is not a valid tool name (not valid UTF-8)`}},
		{name: "4 MiB name", call: scripted.Call{ID: "c1", Name: hugeName, Args: `{}`},
			wantTool: hugeName[:64], wantResult: []string{`"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn…" is not a valid tool name (4194304 bytes, over the limit of 64)`}},
		{name: "name with an escape sequence", call: scripted.Call{ID: "c1", Name: "echo\x1b[31m", Args: `{}`},
			wantTool: "echo␛[31m", wantResult: []string{`"echo␛[31m" is not a valid tool name (it holds control characters)`}},
		{name: "name with a line feed", call: scripted.Call{ID: "c1", Name: "echo\nrm", Args: `{}`},
			wantTool: "echo␊rm", wantResult: []string{"it holds control characters"}},
		{name: "unknown name", call: scripted.Call{ID: "c1", Name: "nope", Args: `{}`},
			wantTool: "nope", wantResult: []string{"E_TOOL_NOT_FOUND", "Tool not found: nope. Available tools: echo."}},
		{name: "4 MiB id", call: scripted.Call{ID: hugeID, Name: "echo", Args: `{}`},
			wantID: hugeID[:256], wantTool: "echo", wantResult: []string{"E_TOOL_CALL_NOT_EXECUTED", "its tool-call id is 4194304 bytes, over the limit of 256"}},
		{name: "id of 300 bytes", call: scripted.Call{ID: longID, Name: "echo", Args: `{}`},
			wantID: longID[:256], wantTool: "echo", wantResult: []string{"over the limit of 256"}},
		{name: "id is invalid UTF-8", call: scripted.Call{ID: "c\xff", Name: "echo", Args: `{}`},
			wantID: "c\uFFFD", wantTool: "echo", wantResult: []string{"its tool-call id is not valid UTF-8"}},
		{name: "arguments are not JSON", call: scripted.Call{ID: "c1", Name: "echo", Args: `{"q":`},
			wantTool: "echo", wantResult: []string{"E_INVALID_TOOL_CALL_ARGS", `Raw value: {"q":`}},
		{name: "arguments are an array", call: scripted.Call{ID: "c1", Name: "echo", Args: `[1]`},
			wantTool: "echo", wantResult: []string{"must be a JSON object; received array"}},
		{name: "arguments fail the schema", call: scripted.Call{ID: "c1", Name: "echo", Args: `{"q":5}`},
			wantTool: "echo", wantResult: []string{"Invalid tool arguments", "q"}},
		{name: "a plain call runs", call: scripted.Call{ID: "c1", Name: "echo", Args: `{"q":"hi"}`},
			wantTool: "echo", wantResult: []string{"echo: hi"}, ran: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			ran := false
			echo := textTool(t, "echo", func(_ context.Context, args map[string]any) (string, error) {
				ran = true
				return "echo: " + args["q"].(string), nil
			}, nil)
			m := scripted.New(scripted.Use(tc.call), scripted.Say("done"))
			r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
			evs := run(t, r, turnrunner.Input{TurnID: "h", Prompt: "go"})
			if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
				t.Fatalf("TurnEnd %s %v, want completed", end.Status, end.Err)
			}
			if errs := ofType[turnrunner.Error](evs); len(errs) != 0 {
				t.Errorf("Error events: %v", errs[0].Err)
			}
			calls := assertEverySettledAndStored(t, r, m, "h", evs)
			if len(calls) != 1 {
				t.Fatalf("%d stored calls, want 1", len(calls))
			}
			c := calls[0]
			wantID := tc.wantID
			if wantID == "" {
				wantID = tc.call.ID
			}
			if c.ID() != wantID {
				t.Errorf("stored id %q, want %q", safetext.Prefix(c.ID(), 40), safetext.Prefix(wantID, 40))
			}
			if c.Tool() != tc.wantTool {
				t.Errorf("stored tool %q, want %q", c.Tool(), tc.wantTool)
			}
			if len(c.Tool()) > forge.MaxToolNameBytes || len(c.ID()) > forge.MaxToolCallIDBytes {
				t.Errorf("stored name %d bytes, id %d bytes: over the bounds", len(c.Tool()), len(c.ID()))
			}
			if c.IsError() == tc.ran || ran != tc.ran {
				t.Errorf("isError %v, ran %v; want the handler to run: %v", c.IsError(), ran, tc.ran)
			}
			text := resultText(t, c)
			for _, want := range tc.wantResult {
				if !strings.Contains(text, want) {
					t.Errorf("result %q does not contain %q", text, want)
				}
			}
			if len(text) > 1024 {
				t.Errorf("result is %d bytes: an untrusted value was echoed unbounded", len(text))
			}
			if !safetext.Safe(text) {
				t.Errorf("result %q is not safe text", text)
			}
		})
	}
}

// Two calls with the same over-long id in one response: both are stored,
// under distinct ids within the bound.
func TestHostileDuplicateLongIDs(t *testing.T) {
	long := strings.Repeat("x", forge.MaxToolCallIDBytes)
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(scripted.Use(
		scripted.Call{ID: long, Name: "echo", Args: `{"q":"1"}`},
		scripted.Call{ID: long, Name: "echo", Args: `{"q":"2"}`},
		scripted.Call{ID: long + "y", Name: "echo", Args: `{"q":"3"}`},
	), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	evs := run(t, r, turnrunner.Input{TurnID: "dup", Prompt: "go"})
	calls := assertEverySettledAndStored(t, r, m, "dup", evs)
	if len(calls) != 3 {
		t.Fatalf("%d stored calls, want 3", len(calls))
	}
	seen := map[string]bool{}
	for _, c := range calls {
		if seen[c.ID()] || len(c.ID()) > forge.MaxToolCallIDBytes {
			t.Errorf("id of %d bytes, duplicate %v", len(c.ID()), seen[c.ID()])
		}
		seen[c.ID()] = true
	}
}

// A response whose call name is larger than the byte cap is cut off like
// oversized arguments: its calls are settled unexecuted and stored.
func TestHostileNameCountsAgainstTheByteCap(t *testing.T) {
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: strings.Repeat("n", 2048), Args: `{}`}), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, MaxToolCallArgBytes: 1024})
	evs := run(t, r, turnrunner.Input{TurnID: "cap", Prompt: "go"})
	calls := assertEverySettledAndStored(t, r, m, "cap", evs)
	if len(calls) != 1 || !strings.Contains(resultText(t, calls[0]), "E_TOOL_CALL_ARGS_TOO_LARGE") {
		t.Fatalf("stored %v, want one call refused for the byte cap", calls)
	}
	if w := ofType[turnrunner.Warning](evs); len(w) != 1 || w[0].Kind != "tool-call-args-too-large" {
		t.Errorf("warnings %v, want tool-call-args-too-large", w)
	}
}

// Raw bytes a tool returns are stored exactly, but the text a model reads
// (RenderResult) is valid UTF-8 with the controls neutralised.
func TestHostileRawBytesAreRenderedSafe(t *testing.T) {
	const raw = "ok\x00\xff\xfe\x1b[31mred\x1b[0m\rline\r\n"
	for _, kind := range []string{"text", "bytes", "reader"} {
		t.Run(kind, func(t *testing.T) {
			tool, err := forge.NewTool("raw", "raw", objectSchema,
				func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
					switch kind {
					case "text":
						return forge.TextOutput(raw), nil
					case "bytes":
						return forge.BytesOutput([]byte(raw)), nil
					}
					return forge.ReaderOutput(io.NopCloser(strings.NewReader(raw))), nil
				}, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "raw", Args: `{}`}), scripted.Say("done"))
			r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{tool}})
			evs := run(t, r, turnrunner.Input{TurnID: "raw", Prompt: "go"})
			calls := assertEverySettledAndStored(t, r, m, "raw", evs)
			if len(calls) != 1 || calls[0].IsError() {
				t.Fatalf("stored %v, want one result", calls)
			}
			const want = "ok␀\uFFFD\uFFFD␛[31mred␛[0m␍line\r\n"
			if got := resultText(t, calls[0]); got != want {
				t.Errorf("RenderResult = %q, want %q", got, want)
			}
			arts := calls[0].Results().Artifacts()
			stored, err := arts[0].(interface {
				ReadAll(context.Context) ([]byte, error)
			}).ReadAll(context.Background())
			if err != nil || string(stored) != raw {
				t.Errorf("stored bytes %q, %v; want the tool's exact bytes", stored, err)
			}
		})
	}
}

// An error a disk spool store returns names its files by absolute path:
// the model reads their base names only.
func TestHostileSpoolPathsStayOutOfModelText(t *testing.T) {
	dir := t.TempDir()
	store, err := spooledartifact.NewDiskStore(dir, &spooledartifact.DiskOptions{SpillThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	tool := textTool(t, "out", func(context.Context, map[string]any) (string, error) {
		// The disk goes away under the store.
		if err := os.RemoveAll(dir); err != nil {
			return "", err
		}
		return "payload", nil
	}, nil)
	m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "out", Args: `{}`}), scripted.Say("done"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{tool}, SpoolStore: store})
	evs := run(t, r, turnrunner.Input{TurnID: "path", Prompt: "go"})
	calls := assertEverySettledAndStored(t, r, m, "path", evs)
	if len(calls) != 1 || !calls[0].IsError() {
		t.Fatalf("stored %v, want one error result", calls)
	}
	text := resultText(t, calls[0])
	if !strings.Contains(text, "succeeded but its output could not be stored") {
		t.Errorf("result %q, want the storage failure", text)
	}
	if strings.Contains(text, dir) || strings.Contains(text, os.TempDir()) {
		t.Errorf("result %q names the server's spool directory", text)
	}
}

// Handlers that misbehave: a panic and a handler that ignores its context
// and never returns (under ToolTimeout) both settle as error results the
// model reads; the turn completes and nothing is left running once the
// hung handler gives up.
func TestHostileHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		boom := textTool(t, "boom", func(context.Context, map[string]any) (string, error) { panic("handler broke") }, nil)
		hung := textTool(t, "hung", func(context.Context, map[string]any) (string, error) {
			<-release // ignores ctx
			return "late", nil
		}, nil)
		m := scripted.New(scripted.Use(
			scripted.Call{ID: "p", Name: "boom", Args: `{}`},
			scripted.Call{ID: "h", Name: "hung", Args: `{}`},
		), scripted.Say("done"))
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{boom, hung}, ToolTimeout: time.Second})
		ch, err := r.Run(t.Context(), turnrunner.Input{TurnID: "bad", Prompt: "go"})
		if err != nil {
			t.Fatal(err)
		}
		evs := drain(ch)
		if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
			t.Fatalf("TurnEnd %s %v, want completed", end.Status, end.Err)
		}
		calls := assertEverySettledAndStored(t, r, m, "bad", evs)
		if len(calls) != 2 {
			t.Fatalf("%d stored calls, want 2", len(calls))
		}
		if text := resultText(t, calls[0]); !calls[0].IsError() || !strings.Contains(text, "handler broke") {
			t.Errorf("panicking call: %q", text)
		}
		if text := resultText(t, calls[1]); !calls[1].IsError() || text != "Tool hung timed out after 1s and was cancelled." {
			t.Errorf("hung call: %q", text)
		}
		close(release)
		synctest.Wait() // the abandoned handler has returned; its goroutine is gone
	})
}

// A model repeating the same call is stopped by the loop guard: the
// repeats past the limit are not executed, each is stored with an error
// result, and the turn ends with the model's answer.
func TestHostileRepeatedCalls(t *testing.T) {
	var runs int
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { runs++; return "same", nil }, nil)
	c := scripted.Call{Name: "echo", Args: `{"q":"x"}`}
	steps := []scripted.Step{}
	for i := range 5 { // three run, one is blocked, the next ends tool use
		c.ID = "c" + string(rune('0'+i))
		steps = append(steps, scripted.Use(c))
	}
	m := scripted.New(append(steps, scripted.Say("done"))...)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	evs := run(t, r, turnrunner.Input{TurnID: "loop", Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("TurnEnd %s %v, want completed", end.Status, end.Err)
	}
	assertEverySettledAndStored(t, r, m, "loop", evs)
	if runs != 3 {
		t.Errorf("the tool ran %d times, want 3 (the default limit of identical calls)", runs)
	}
	if n := len(ofType[turnrunner.LoopGuard](evs)); n == 0 {
		t.Error("no LoopGuard event")
	}
}

// A consumer that reads one event at a time, slowly, with a channel of one:
// the runner waits for it, never drops an event, and TurnEnd is last.
func TestHostileSlowConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
		m := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "echo", Args: `{}`}), scripted.Say("a", "b", "c"))
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}, EventBuffer: 1})
		ch, err := r.Run(t.Context(), turnrunner.Input{TurnID: "slow", Prompt: "go"})
		if err != nil {
			t.Fatal(err)
		}
		var evs []turnrunner.Event
		for ev := range ch {
			time.Sleep(time.Second) // fake time: a consumer a second per event
			evs = append(evs, ev)
		}
		if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
			t.Fatalf("TurnEnd %s %v, want completed", end.Status, end.Err)
		}
		assertEverySettledAndStored(t, r, m, "slow", evs)
		var deltas []string
		for _, d := range ofType[turnrunner.MessageDelta](evs) {
			if !d.IsComplete {
				deltas = append(deltas, d.Delta)
			}
		}
		if strings.Join(deltas, "") != "abc" {
			t.Errorf("message deltas %q, want every one of a, b, c", deltas)
		}
	})
}
