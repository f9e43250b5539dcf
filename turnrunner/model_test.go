package turnrunner_test

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
)

// A tool call's opaque payload (a thought signature) is kept on the stored
// call and given back to the model on the next request.
func TestToolCallPayloadRoundTrip(t *testing.T) {
	echo := textTool(t, "echo", func(ctx context.Context, args map[string]any) (string, error) { return "ok", nil }, nil)
	m := scripted.New(
		scripted.Use(scripted.Call{ID: "c1", Name: "echo", Args: `{"q":"a"}`, Pieces: 2,
			Payload: []byte(`{"thought_signature":"sig=="}`), ReplayCompatibility: "gemini"},
			scripted.Call{ID: "c2", Name: "echo", Args: `{"q":"b"}`}),
		scripted.Say("done"),
	)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	if end := turnEnd(t, run(t, r, turnrunner.Input{Prompt: "go"})); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("turn %s: %v", end.Status, end.Err)
	}
	var got []string
	for _, e := range m.Requests()[1].Timeline {
		if c := e.ToolCall; c != nil {
			got = append(got, c.ID()+" "+string(c.Payload())+" "+c.ReplayCompatibility())
		}
	}
	want := []string{`c1 {"thought_signature":"sig=="} gemini`, "c2  "}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("stored calls = %q, want %q", got, want)
	}
}

// entryIDs renders a timeline as "id@responseID" items.
func entryIDs(tl []dispatch.Entry) []string {
	var out []string
	for _, e := range tl {
		out = append(out, string(e.Kind())+":"+e.ID()+"@"+e.ResponseID)
	}
	return out
}

// A 429 before the first part is retried after the server's Retry-After;
// the caller sees one clean response and a model-retry warning.
func TestModelRetryAfterRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answer := scripted.New(scripted.Say("Hello ", "there."))
		calls := 0
		m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
			calls++
			if calls == 1 {
				return func(yield func(llm.Part, error) bool) {
					yield(llm.Part{}, llm.ErrRateLimited.With(&llm.APIError{Provider: "fake", StatusCode: 429, RetryAfter: 2 * time.Second}, "model call failed"))
				}
			}
			return answer.Stream(ctx, req)
		})
		r := newRunner(t, m, nil)
		start := time.Now()
		evs := run(t, r, turnrunner.Input{TurnID: "t", Prompt: "hi"})
		if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
			t.Fatalf("turn %s: %v", end.Status, end.Err)
		}
		if waited := time.Since(start); waited < 2*time.Second || waited > 3*time.Second {
			t.Errorf("waited %v, want the 2s Retry-After", waited)
		}
		var retries []turnrunner.Warning
		for _, w := range ofType[turnrunner.Warning](evs) {
			if w.Kind == "model-retry" {
				retries = append(retries, w)
			}
		}
		if len(retries) != 1 || !errors.Is(retries[0].Err, llm.ErrRateLimited) {
			t.Errorf("model-retry warnings = %+v", retries)
		}
		deltas := ofType[turnrunner.MessageDelta](evs)
		if last := deltas[len(deltas)-1]; !last.IsComplete || last.Full != "Hello there." || last.Err != nil {
			t.Errorf("last MessageDelta = %+v", last)
		}
		tl, _ := r.Store().Load(context.Background(), "t")
		if len(tl) != 2 || tl[1].Message == nil || tl[1].Message.Text() != "Hello there." {
			t.Errorf("stored timeline = %v", entryIDs(tl))
		}
	})
}

// A response that fails after its first part is not retried and not
// stored; its message and thought are closed with the error.
func TestModelMidStreamErrorIsNotStored(t *testing.T) {
	overloaded := llm.ErrOverloaded.With(&llm.APIError{Provider: "fake", StatusCode: 200, Type: "overloaded_error"}, "stream error")
	m := scripted.New(scripted.Step{Thoughts: []string{"hmm"}, Text: []string{"Half an ans"},
		Calls: []scripted.Call{{ID: "c1", Name: "echo", Args: `{"q":`}}, Err: overloaded})
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	evs := run(t, r, turnrunner.Input{TurnID: "t", Prompt: "hi"})
	end := turnEnd(t, evs)
	if end.Status != turnrunner.TurnFailed || !errors.Is(end.Err, llm.ErrOverloaded) || !errors.Is(end.Err, turnrunner.ErrModel) {
		t.Fatalf("TurnEnd = %s %v", end.Status, end.Err)
	}
	if m.Calls() != 1 {
		t.Errorf("model called %d times: a response that had started was retried", m.Calls())
	}
	msgs := ofType[turnrunner.MessageDelta](evs)
	last := msgs[len(msgs)-1]
	if last.IsComplete || !errors.Is(last.Err, llm.ErrOverloaded) || last.Full != "Half an ans" || last.CompletedAt.IsZero() {
		t.Errorf("closing MessageDelta = %+v", last)
	}
	thoughts := ofType[turnrunner.ThoughtDelta](evs)
	if tl := thoughts[len(thoughts)-1]; tl.IsComplete || !errors.Is(tl.Err, llm.ErrOverloaded) {
		t.Errorf("closing ThoughtDelta = %+v", tl)
	}
	if n := len(ofType[turnrunner.ToolCallContent](evs)); n != 0 {
		t.Errorf("%d tool-call events for the failed response", n)
	}
	tl, _ := r.Store().Load(context.Background(), "t")
	if diff := cmp.Diff([]string{"message:" + tl[0].ID() + "@"}, entryIDs(tl)); diff != "" {
		t.Errorf("stored timeline (-want +got):\n%s", diff)
	}
}

// A tool call cut off at max_tokens is reported and never executed; the
// next request shows the model why.
func TestTruncatedToolCallIsNotExecuted(t *testing.T) {
	var ran int
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { ran++; return "ok", nil }, nil)
	m := scripted.New(
		scripted.Step{Text: []string{"Let me"}, Calls: []scripted.Call{{ID: "c1", Name: "echo", Args: `{"q":"unfinish`}}, Stop: llm.StopMaxTokens},
		scripted.Say("Sorry."),
	)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	evs := run(t, r, turnrunner.Input{Prompt: "hi"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("turn %s: %v", end.Status, end.Err)
	}
	if ran != 0 || len(ofType[turnrunner.ToolExecutionStart](evs)) != 0 {
		t.Fatal("the truncated call was executed")
	}
	var warned bool
	for _, w := range ofType[turnrunner.Warning](evs) {
		warned = warned || (w.Kind == "truncated" && errors.Is(w.Err, turnrunner.ErrTruncatedResponse))
	}
	if !warned {
		t.Error("no truncated warning")
	}
	c := m.Requests()[1].Timeline[2].ToolCall
	if c == nil || !c.IsError() || !strings.Contains(resultText(t, c), "max_tokens") {
		t.Errorf("the model was not told: %v", entryIDs(m.Requests()[1].Timeline))
	}
}

// Every entry a response produced carries its id, in the order it
// streamed; two consecutive tool-only responses stay two turns and a
// thought between two calls keeps its place.
func TestResponseGrouping(t *testing.T) {
	step := 0
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		step++
		parts := map[int][]llm.Part{
			1: {llm.ThoughtPart(0, "first"), llm.ToolCallPart(0, "c1", "echo", `{"q":"1"}`),
				llm.ThoughtPart(1, "second"), llm.ToolCallPart(1, "c2", "echo", `{"q":"2"}`), llm.StopPart(llm.StopToolUse)},
			2: {llm.ToolCallPart(0, "c3", "echo", `{"q":"3"}`), llm.StopPart(llm.StopToolUse)},
			3: {llm.TextPart("done"), llm.StopPart(llm.StopEnd)},
		}[step]
		return func(yield func(llm.Part, error) bool) {
			for _, p := range parts {
				if !yield(p, nil) {
					return
				}
			}
		}
	})
	echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
	evs := run(t, r, turnrunner.Input{TurnID: "t", Prompt: "go"})
	if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("turn %s: %v", end.Status, end.Err)
	}
	var resp []string
	for _, s := range ofType[turnrunner.GenerationStats](evs) {
		resp = append(resp, s.ResponseID)
	}
	if len(resp) != 3 || resp[0] == "" || resp[0] == resp[1] || resp[1] == resp[2] {
		t.Fatalf("response ids %q", resp)
	}
	tl, _ := r.Store().Load(context.Background(), "t")
	var got []string
	for _, tu := range llm.Turns(tl) {
		var items []string
		for _, e := range tu.Entries {
			switch {
			case e.Thought != nil:
				items = append(items, "thought:"+e.Thought.Content().String())
			case e.ToolCall != nil:
				items = append(items, "call:"+e.ToolCall.ID())
			default:
				items = append(items, e.Message.Text())
			}
		}
		id := ""
		for i, r := range resp {
			if tu.ResponseID == r {
				id = "@" + strconv.Itoa(i+1)
			}
		}
		got = append(got, tu.Kind.String()+id+" "+strings.Join(items, ", "))
	}
	want := []string{
		"user go",
		"assistant@1 thought:first, call:c1, thought:second, call:c2",
		"toolResults call:c1, call:c2",
		"assistant@2 call:c3",
		"toolResults call:c3",
		"assistant@3 done",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
}

// Requests carry the standing instructions and the names of trusted tools.
func TestRequestInstructionsAndTrust(t *testing.T) {
	trusted := textTool(t, "clock", func(context.Context, map[string]any) (string, error) { return "noon", nil }, &forge.ToolOptions{Trusted: true})
	plain := textTool(t, "web", func(context.Context, map[string]any) (string, error) { return "page", nil }, nil)
	m := scripted.New(scripted.Say("ok"))
	r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{plain, trusted}, Instructions: []string{"Be brief."}})
	if end := turnEnd(t, run(t, r, turnrunner.Input{Prompt: "time?"})); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("turn %s: %v", end.Status, end.Err)
	}
	req := m.Requests()[0]
	if diff := cmp.Diff([]string{"Be brief."}, req.Instructions); diff != "" {
		t.Errorf("Instructions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"clock"}, req.TrustedTools); diff != "" {
		t.Errorf("TrustedTools (-want +got):\n%s", diff)
	}
	if !req.Trusted("clock") || req.Trusted("web") || req.Trusted("gone") {
		t.Error("Request.Trusted disagrees with TrustedTools")
	}
}

// Options.Retry: MaxAttempts 1 turns retries off; negative values are a
// configuration error.
func TestRetryOptions(t *testing.T) {
	calls := 0
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		calls++
		return func(yield func(llm.Part, error) bool) {
			yield(llm.Part{}, llm.ErrServer.With(nil, "500"))
		}
	})
	r := newRunner(t, m, &turnrunner.Options{Retry: llm.RetryPolicy{MaxAttempts: 1}})
	end := turnEnd(t, run(t, r, turnrunner.Input{Prompt: "hi"}))
	if end.Status != turnrunner.TurnFailed || !errors.Is(end.Err, llm.ErrServer) || calls != 1 {
		t.Errorf("turn %s %v after %d calls; want failed with ErrServer after 1", end.Status, end.Err, calls)
	}
	for _, p := range []llm.RetryPolicy{{MaxAttempts: -1}, {BaseDelay: -1}, {MaxDelay: -time.Second}} {
		if _, err := turnrunner.New(m, &turnrunner.Options{Retry: p}); !errors.Is(err, turnrunner.ErrInvalidConfig) {
			t.Errorf("Retry %+v: err = %v", p, err)
		}
	}
}

// The retry policy wraps every model call of a dispatch: a retry of the
// second call names that call's iteration and dispatch, and each failing
// call gets its own attempts.
func TestModelRetryNamesItsIteration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answer := scripted.New(scripted.Use(scripted.Call{ID: "c1", Name: "echo", Args: `{}`}), scripted.Say("done"))
		calls := 0
		m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
			calls++
			if calls == 1 || calls == 3 { // the first attempt of each iteration
				return func(yield func(llm.Part, error) bool) {
					yield(llm.Part{}, llm.ErrRateLimited.With(&llm.APIError{Provider: "fake", StatusCode: 429, RetryAfter: time.Second}, "model call failed"))
				}
			}
			return answer.Stream(ctx, req)
		})
		echo := textTool(t, "echo", func(context.Context, map[string]any) (string, error) { return "ok", nil }, nil)
		r := newRunner(t, m, &turnrunner.Options{Tools: []*forge.Tool{echo}})
		evs := run(t, r, turnrunner.Input{TurnID: "t", Prompt: "hi"})
		if end := turnEnd(t, evs); end.Status != turnrunner.TurnCompleted {
			t.Fatalf("turn %s: %v", end.Status, end.Err)
		}
		ds := ofType[turnrunner.DispatchStart](evs)
		if len(ds) != 1 {
			t.Fatalf("DispatchStart events = %+v", ds)
		}
		var got []int
		for _, w := range ofType[turnrunner.Warning](evs) {
			if w.Kind == "model-retry" {
				if w.DispatchID != ds[0].DispatchID {
					t.Errorf("warning of dispatch %q, want %q", w.DispatchID, ds[0].DispatchID)
				}
				got = append(got, w.Iteration)
			}
		}
		if diff := cmp.Diff([]int{0, 1}, got); diff != "" {
			t.Errorf("model-retry iterations (-want +got):\n%s", diff)
		}
	})
}
