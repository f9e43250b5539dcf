package gemini

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
	"github.com/ebbforge/adk/turnrunner"
)

const candidate = `{"candidates":[{"content":{"role":"model","parts":[%s]}%s,"index":0}]%s}`

// chunk is one streamed response: parts, then `,"finishReason":"STOP"` or
// "", then `,"usageMetadata":{…}` or "".
func chunk(parts, finish, usage string) string { return fmt.Sprintf(candidate, parts, finish, usage) }

// TestRunnerOverTheWire runs the real runner on the adapter against a
// scripted server: a RESOURCE_EXHAUSTED 429 (retried), a signed function
// call without an id, then the answer; the second request carries the
// signature on the call and the response under the call's name and id.
func TestRunnerOverTheWire(t *testing.T) {
	s := wiretest.NewServer(t,
		wiretest.Reply{Status: 429, ContentType: "application/json",
			Body: `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.001s"}]}}`},
		wiretest.SSE(frame(
			chunk(`{"text":"Checking.","thought":true}`, "", ""),
			chunk(`{"functionCall":{"name":"weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnbmVk"}`, `,"finishReason":"STOP"`,
				`,"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15}`))),
		wiretest.SSE(frame(
			chunk(`{"text":"It is "}`, "", ""),
			chunk(`{"text":"sunny in Paris."}`, `,"finishReason":"STOP"`, ""))),
	)
	m := newModel(t, Config{BaseURL: s.URL, Model: "gemini-2.5-flash", IncludeThoughts: true})
	last := wiretest.RunWeatherTurn(t, m, s)
	for _, want := range []string{
		`{"role":"model","parts":[{"functionCall":{"id":"1","name":"weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnbmVk"}]}`,
		`{"functionResponse":{"id":"1","name":"weather","response":{"output":"\u003cuntrusted_content_`,
		`kind=\"tool-result\" tool=\"weather\"\u003e\nsunny in Paris\n\u003c/untrusted_content_`,
		`"generationConfig":{"thinkingConfig":{"includeThoughts":true}}`,
	} {
		if !strings.Contains(last, want) {
			t.Errorf("last request lacks %s:\n%s", want, last)
		}
	}
	if strings.Contains(last, "Checking.") {
		t.Errorf("an unsigned thought summary went back:\n%s", last)
	}
}

// TestRunnerRecording runs the recorded conversation through the real
// runner, tools included: the request the runner's second iteration sends
// must be the recorded one.
func TestRunnerRecording(t *testing.T) {
	ex, replies := wiretest.LoadExchanges(t, "gemini-stream-function-calls-roundtrip.json")
	s := newServer(t, replies...)
	m := newModel(t, Config{BaseURL: s.URL, Model: "gemini-2.5-flash", MaxTokens: 4000, ToolChoice: "auto"})
	var tools []*forge.Tool
	for _, d := range recordedTools {
		op := func(a, b float64) float64 { return a + b }
		if d.Name == "multiply" {
			op = func(a, b float64) float64 { return a * b }
		}
		tool, err := forge.NewTool(d.Name, d.Description, d.Parameters,
			func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
				a, _ := args["a"].(float64)
				b, _ := args["b"].(float64)
				return forge.TextOutput(fmt.Sprint(op(a, b))), nil
			}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	runner, err := turnrunner.New(m, &turnrunner.Options{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	events, err := runner.Run(context.Background(), turnrunner.Input{System: recordedSystem, Prompt: "Add and multiply the number 2 and 3"})
	if err != nil {
		t.Fatal(err)
	}
	var answer string
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.MessageDelta:
			if e.IsComplete {
				answer = e.Full
			}
		case turnrunner.TurnEnd:
			if e.Err != nil {
				t.Fatal(e.Err)
			}
		}
	}
	if answer != "The sum of 2 and 3 is 5. The product of 2 and 3 is 6." || s.Requests() != 2 {
		t.Fatalf("answer %q after %d requests", answer, s.Requests())
	}
	for i, e := range ex {
		// Once a call ran, the runner also offers its artifact tools.
		sent := normalize(t, s.Body(i)).(map[string]any)
		set := sent["tools"].([]any)[0].(map[string]any)
		decls := set["functionDeclarations"].([]any)
		set["functionDeclarations"] = slices.DeleteFunc(decls, func(d any) bool {
			return strings.HasPrefix(d.(map[string]any)["name"].(string), "artifact_")
		})
		if diff := cmp.Diff(normalize(t, []byte(wiretest.BodyText(e.Request.Body))), any(sent)); diff != "" {
			t.Errorf("request %d (-recorded +sent):\n%s", i, diff)
		}
	}
}

// TestRunnerTruncatedCall: a function call in a response cut off by
// MAX_TOKENS is never run; the model is told and answers next.
func TestRunnerTruncatedCall(t *testing.T) {
	s := wiretest.NewServer(t,
		wiretest.SSE(frame(chunk(`{"functionCall":{"name":"weather","args":{"city":"Pa"}}}`, `,"finishReason":"MAX_TOKENS"`, ""))),
		wiretest.SSE(frame(chunk(`{"text":"Done."}`, `,"finishReason":"STOP"`, ""))))
	got := wiretest.RunTurn(t, newModel(t, Config{BaseURL: s.URL}))
	if got.Status != turnrunner.TurnCompleted || got.ToolRuns != 0 || got.Answer != "Done." || !slices.Contains(got.Warnings, "truncated") {
		t.Fatalf("turn: %+v", got)
	}
	if last := string(s.Body(1)); !strings.Contains(last, `"functionResponse":{"id":"1","name":"weather","response":{"error":`) || !strings.Contains(last, "max_tokens") {
		t.Errorf("the model was not told its call did not run:\n%s", last)
	}
}

// TestRunnerMidStreamError: an error object after the first part is not
// retried; the turn fails with the typed error.
func TestRunnerMidStreamError(t *testing.T) {
	s := wiretest.NewServer(t, wiretest.SSE(frame(
		chunk(`{"text":"Let me"}`, "", ""),
		`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`)))
	got := wiretest.RunTurn(t, newModel(t, Config{BaseURL: s.URL}))
	if got.Status != turnrunner.TurnFailed || !errors.Is(got.Err, llm.ErrOverloaded) || got.Failed != "Let me" || s.Requests() != 1 {
		t.Fatalf("turn: %+v, requests %d", got, s.Requests())
	}
}
