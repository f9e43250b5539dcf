package scripted_test

import (
	"context"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func collect(ctx context.Context, m llm.Model, req *llm.Request) ([]llm.Part, error) {
	var parts []llm.Part
	for p, err := range m.Stream(ctx, req) {
		if err != nil {
			return parts, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func TestStepStreamsInOrder(t *testing.T) {
	u := llm.Usage{InputTokens: 1}
	m := scripted.New(scripted.Step{
		Thoughts: []string{"a"}, ThoughtPayload: []byte(`{"s":1}`), ReplayCompatibility: "x",
		Text:  []string{"hi"},
		Calls: []scripted.Call{{ID: "c1", Name: "t", Args: `{"q":"abcdef"}`, Pieces: 3}, {Name: "u", Args: ""}},
		Usage: &u,
	})
	parts, err := collect(context.Background(), m, &llm.Request{})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Part{
		llm.ThoughtPart(0, "a"),
		{Kind: llm.PartThought, Payload: []byte(`{"s":1}`), ReplayCompatibility: "x"},
		llm.TextPart("hi"),
		llm.ToolCallPart(0, "c1", "t", `{"q"`), // 14 characters in 3 pieces: 4, 5, 5
		{Kind: llm.PartToolCall, Index: 0, Text: `:"abc`},
		{Kind: llm.PartToolCall, Index: 0, Text: `def"}`},
		llm.ToolCallPart(1, "", "u", ""),
		llm.UsagePart(u),
		llm.StopPart(llm.StopToolUse),
	}
	if d := cmp.Diff(want, parts); d != "" {
		t.Errorf("parts (-want +got):\n%s", d)
	}
}

func TestScriptExhaustionAndReset(t *testing.T) {
	ctx := context.Background()
	m := scripted.New(scripted.Say("one"))
	if _, err := collect(ctx, m, &llm.Request{Iteration: 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(ctx, m, &llm.Request{Iteration: 1}); !errors.Is(err, scripted.ErrScriptExhausted) {
		t.Errorf("second call: %v", err)
	}
	if m.Calls() != 2 || m.Requests()[1].Iteration != 1 {
		t.Errorf("calls %d", m.Calls())
	}
	m.Reset()
	if m.Calls() != 0 {
		t.Error("Reset kept the requests")
	}
	parts, err := collect(ctx, m, &llm.Request{})
	if err != nil || parts[0].Text != "one" {
		t.Errorf("after Reset: %v %v", parts, err)
	}
}

func TestStepErrorAndCancellation(t *testing.T) {
	boom := errors.New("boom")
	m := scripted.New(scripted.Step{Text: []string{"partial"}, Err: boom})
	parts, err := collect(context.Background(), m, &llm.Request{})
	if !errors.Is(err, boom) || len(parts) != 1 {
		t.Errorf("mid-stream error: %v after %d parts", err, len(parts))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m = scripted.New(scripted.Say("never"))
	if parts, err := collect(ctx, m, &llm.Request{}); !errors.Is(err, context.Canceled) || len(parts) != 0 {
		t.Errorf("cancelled: %v after %d parts", err, len(parts))
	}

	fnErr := errors.New("no step")
	f := scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		return scripted.Step{}, fnErr
	})
	if _, err := collect(context.Background(), f, &llm.Request{}); !errors.Is(err, fnErr) || f.Calls() != 1 {
		t.Errorf("func error: %v", err)
	}
}

func TestEarlyBreakStopsTheStream(t *testing.T) {
	m := scripted.New(scripted.Say("a", "b", "c"))
	n := 0
	for range m.Stream(context.Background(), &llm.Request{}) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("%d parts after break", n)
	}
}

// Args stream in exactly Pieces parts, never splitting a character, or in
// one part a character when there are fewer characters than Pieces.
func TestCallPieces(t *testing.T) {
	tests := []struct {
		args   string
		pieces int
		want   []string
	}{
		{`{"a":1}`, 6, []string{`{`, `"`, `a`, `"`, `:`, `1}`}},
		{`{"q":"héé"}`, 3, []string{`{"q`, `":"h`, `éé"}`}},
		{`日本`, 5, []string{`日`, `本`}},
		{``, 3, []string{``}},
		{`abc`, 0, []string{`abc`}},
	}
	for _, tt := range tests {
		m := scripted.New(scripted.Use(scripted.Call{ID: "c", Name: "t", Args: tt.args, Pieces: tt.pieces}))
		parts, err := collect(context.Background(), m, &llm.Request{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range parts {
			if p.Kind == llm.PartToolCall {
				if !utf8.ValidString(p.Text) {
					t.Errorf("%q in %d: invalid UTF-8 piece %q", tt.args, tt.pieces, p.Text)
				}
				got = append(got, p.Text)
			}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q in %d pieces (-want +got):\n%s", tt.args, tt.pieces, d)
		}
	}
}

// New keeps its own copy of the steps.
// TestNewCopiesSteps edits the steps given to New, in every part a step
// shares by reference: the model plays the script it was given.
func TestNewCopiesSteps(t *testing.T) {
	script := func() []scripted.Step {
		return []scripted.Step{{
			Thoughts: []string{"hmm"}, ThoughtPayload: []byte(`{"sig":"A"}`), ReplayCompatibility: "v",
			Text:  []string{"one"},
			Calls: []scripted.Call{{ID: "c", Name: "t", Args: `{}`}},
			Usage: &llm.Usage{InputTokens: 1},
		}}
	}
	want, err := collect(context.Background(), scripted.New(script()...), &llm.Request{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(steps []scripted.Step)
	}{
		{"step", func(s []scripted.Step) { s[0] = scripted.Say("two") }},
		{"thoughts", func(s []scripted.Step) { s[0].Thoughts[0] = "other" }},
		{"thought payload", func(s []scripted.Step) { s[0].ThoughtPayload[8] = 'Z' }},
		{"text", func(s []scripted.Step) { s[0].Text[0] = "two" }},
		{"calls", func(s []scripted.Step) { s[0].Calls[0].Name = "u" }},
		{"usage", func(s []scripted.Step) { s[0].Usage.InputTokens = 9 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := script()
			m := scripted.New(steps...)
			tt.edit(steps)
			parts, err := collect(context.Background(), m, &llm.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, parts); d != "" {
				t.Errorf("the model did not play the step it was given (-want +got):\n%s", d)
			}
		})
	}
}

// TestThoughtPayloadIsACopy edits the Payload of a streamed thought part
// (the consumer owns what it is handed): replaying the step, from a script
// after Reset or by Play from a Func's step, streams the original payload.
func TestThoughtPayloadIsACopy(t *testing.T) {
	const payload = `{"sig":"A"}`
	step := func() scripted.Step {
		return scripted.Step{Thoughts: []string{"x"}, ThoughtPayload: []byte(payload), ReplayCompatibility: "v"}
	}
	shared := step() // a Func handing out the same step each time
	tests := []struct {
		name   string
		model  *scripted.Model
		replay func(m *scripted.Model)
	}{
		{"script after Reset", scripted.New(step()), (*scripted.Model).Reset},
		{"Func's step", scripted.NewFunc(func(context.Context, *llm.Request) (scripted.Step, error) {
			return shared, nil
		}), func(*scripted.Model) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for round := range 2 {
				parts, err := collect(context.Background(), tt.model, &llm.Request{})
				if err != nil {
					t.Fatal(err)
				}
				seen := 0
				for _, p := range parts {
					if p.Payload == nil {
						continue
					}
					seen++
					if string(p.Payload) != payload {
						t.Errorf("round %d: payload %s, want %s", round, p.Payload, payload)
					}
					p.Payload[8] = 'Z' // the consumer edits its part
				}
				if seen != 1 {
					t.Fatalf("round %d: %d parts with a payload, want 1", round, seen)
				}
				tt.replay(tt.model)
			}
			if string(shared.ThoughtPayload) != payload {
				t.Errorf("the Func's step now holds %s", shared.ThoughtPayload)
			}
		})
	}
}
