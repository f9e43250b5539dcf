package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/golden"
	"github.com/ebbforge/adk/media"
)

var update = flag.Bool("update", false, "rewrite golden files")

var jsonTime = time.Date(2026, 3, 1, 12, 0, 0, 987654321, time.FixedZone("CET", 3600))

func mustEntries(t testing.TB) map[string]dispatch.Entry {
	t.Helper()
	user, err := dispatch.NewMessage(dispatch.RawMessage{ID: "m1", Role: dispatch.RoleUser,
		Content: forge.NewTokenizable("What is <b>&amp;</b>? \u2028 🦀"), CreatedAt: jsonTime})
	if err != nil {
		t.Fatal(err)
	}
	img, err := media.New(media.Raw{ID: "img-1", Kind: media.KindImage, MIMEType: "image/png",
		Filename: "dot.png", Reader: media.NewMemoryReader([]byte("\x89PNG fake")),
		TrustTier: media.FirstParty, Hazard: media.OpaquePerceptual})
	if err != nil {
		t.Fatal(err)
	}
	withImage, err := dispatch.NewMessage(dispatch.RawMessage{ID: "m2", Role: dispatch.RoleUser,
		Attachments: []*media.Media{img}, CreatedAt: jsonTime, UpdatedAt: jsonTime.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := dispatch.NewThought(dispatch.RawThought{ID: "th1", Content: forge.NewTokenizable("thinking…"), CreatedAt: jsonTime})
	if err != nil {
		t.Fatal(err)
	}
	opaque, err := dispatch.NewThought(dispatch.RawThought{ID: "th2", Payload: json.RawMessage(`{"signature": "c2ln", "n": [1, 2]}`),
		ReplayCompatibility: "anthropic", CreatedAt: jsonTime})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := canonical.ChecksumJSON("lookup", []byte(`{"q":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	call, err := forge.NewToolCall(forge.RawToolCall{ID: "c1", Tool: "lookup", Args: `{"q":"x"}`, Checksum: sum,
		Results: forge.NewTokenizable("found"), IsComplete: true, CreatedAt: jsonTime, CompletedAt: jsonTime.Add(time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]dispatch.Entry{
		"message": {Message: user}, "message-attachment": {Message: withImage},
		"thought": {Thought: plain}, "thought-opaque": {Thought: opaque}, "toolcall": {ToolCall: call},
		"toolcall-response": {ToolCall: call, ResponseID: "resp_01"},
		"toolcall-executed": {ToolCall: call, ResponseID: "resp_01", Executed: true},
	}
}

func TestEntryJSONGolden(t *testing.T) {
	ctx := context.Background()
	for name, e := range mustEntries(t) {
		t.Run(name, func(t *testing.T) {
			b, err := json.MarshalIndent(e, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "entry-"+name, string(b)+"\n", *update)
			back, err := dispatch.UnmarshalEntry(ctx, b, nil)
			if err != nil {
				t.Fatal(err)
			}
			if back.Kind() != e.Kind() || back.ID() != e.ID() || back.ResponseID != e.ResponseID || back.Executed != e.Executed {
				t.Fatalf("decoded %s %q, want %s %q", back.Kind(), back.ID(), e.Kind(), e.ID())
			}
			again, err := json.MarshalIndent(back, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(b), string(again)); diff != "" {
				t.Errorf("round trip changed the form (-first +second):\n%s", diff)
			}
			checkFields(t, e, back)
		})
	}
}

// checkFields compares what the accessors say, beyond the JSON form.
func checkFields(t *testing.T, want, got dispatch.Entry) {
	t.Helper()
	switch {
	case want.Message != nil:
		w, g := want.Message, got.Message
		if w.Role() != g.Role() || w.Text() != g.Text() || (w.Content() == nil) != (g.Content() == nil) ||
			!w.CreatedAt().Equal(g.CreatedAt()) || !w.UpdatedAt().Equal(g.UpdatedAt()) || len(w.Attachments()) != len(g.Attachments()) {
			t.Errorf("message fields differ: %+v vs %+v", w, g)
		}
		for i, a := range w.Attachments() {
			b := g.Attachments()[i]
			wb, _ := a.Bytes(context.Background(), 0)
			gb, _ := b.Bytes(context.Background(), 0)
			if a.ID() != b.ID() || string(wb) != string(gb) {
				t.Errorf("attachment %d: %q %q vs %q %q", i, a.ID(), wb, b.ID(), gb)
			}
		}
	case want.Thought != nil:
		w, g := want.Thought, got.Thought
		if w.Content().String() != g.Content().String() || w.ReplayCompatibility() != g.ReplayCompatibility() ||
			!w.CreatedAt().Equal(g.CreatedAt()) || !jsonEqual(w.Payload(), g.Payload()) {
			t.Errorf("thought fields differ: %+v vs %+v", w, g)
		}
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && cmp.Equal(x, y)
}

func TestUnmarshalEntryErrors(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, in string
		want     error
	}{
		{"not json", `{`, dispatch.ErrStore},
		{"unknown kind", `{"kind":"tool"}`, dispatch.ErrStore},
		{"message without id", `{"kind":"message","message":{"role":"user","content":"x","createdAt":"2026-01-01T00:00:00Z"}}`, dispatch.ErrInvalidInitialMessage},
		{"message bad role", `{"kind":"message","message":{"id":"a","role":"system","content":"x","createdAt":"2026-01-01T00:00:00Z"}}`, dispatch.ErrInvalidInitialMessage},
		{"message without time", `{"kind":"message","message":{"id":"a","role":"user","content":"x"}}`, dispatch.ErrInvalidInitialMessage},
		{"attachment without resolver", `{"kind":"message","message":{"id":"a","role":"user","content":null,"attachments":[{"id":"i"}],"createdAt":"2026-01-01T00:00:00Z"}}`, dispatch.ErrInvalidInitialMessage},
		{"thought payload without tag", `{"kind":"thought","thought":{"id":"t","payload":{"a":1},"createdAt":"2026-01-01T00:00:00Z"}}`, dispatch.ErrInvalidInitialThought},
		{"tool call missing", `{"kind":"toolCall"}`, forge.ErrInvalidInitialToolCallValue},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dispatch.UnmarshalEntry(ctx, []byte(tt.in), nil)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := json.Marshal(dispatch.Entry{}); err == nil || !strings.Contains(err.Error(), "exactly one") {
		t.Errorf("Marshal(empty entry) = %v", err)
	}
}

// FuzzUnmarshalEntry: decoding never panics, and whatever decodes encodes to
// a form that decodes to the same form again.
func FuzzUnmarshalEntry(f *testing.F) {
	for _, e := range mustEntries(f) {
		b, err := json.Marshal(e)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"kind":"thought","thought":{"id":"t","content":"","createdAt":"0001-01-01T00:00:00.5Z"}}`))
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := dispatch.UnmarshalEntry(ctx, data, nil)
		if err != nil {
			return
		}
		first, err := json.Marshal(e)
		if err != nil {
			return // a time outside what the form can write
		}
		back, err := dispatch.UnmarshalEntry(ctx, first, nil)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", first, err)
		}
		second, err := json.Marshal(back)
		if err != nil {
			t.Fatal(err)
		}
		if string(first) != string(second) {
			t.Fatalf("not stable:\n%s\n%s", first, second)
		}
	})
}
