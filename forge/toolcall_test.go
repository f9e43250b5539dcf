package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/media"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 6000000, time.UTC)

func validRaw() RawToolCall {
	return RawToolCall{ID: "call_1", Tool: "weather", Args: `{"city":"Oslo"}`, Checksum: sum64,
		Results: NewTokenizable("sunny"), IsComplete: true, CreatedAt: t0, UpdatedAt: t0.Add(time.Second),
		CompletedAt: t0.Add(2 * time.Second)}
}

func TestNewToolCallDefaults(t *testing.T) {
	c, err := NewToolCall(validRaw())
	if err != nil {
		t.Fatal(err)
	}
	if !c.Inline() || c.FromArtifactTool() || c.IsError() || !c.IsComplete() {
		t.Errorf("defaults: inline=%v fromArtifactTool=%v", c.Inline(), c.FromArtifactTool())
	}
	if c.ID() != "call_1" || c.Tool() != "weather" || c.Checksum() != sum64 || string(c.Args()) != `{"city":"Oslo"}` {
		t.Errorf("fields: %s %s %s %s", c.ID(), c.Tool(), c.Checksum(), c.Args())
	}
	if !c.CreatedAt().Equal(t0) || !c.UpdatedAt().Equal(t0.Add(time.Second)) || !c.CompletedAt().Equal(t0.Add(2*time.Second)) {
		t.Errorf("times")
	}
	if c.Results().kind() != "text" || c.Results().Text().String() != "sunny" {
		t.Errorf("results = %v", c.Results().kind())
	}
	no := false
	raw := validRaw()
	raw.Inline, raw.FromArtifactTool = &no, true
	c, _ = NewToolCall(raw)
	if c.Inline() || !c.FromArtifactTool() {
		t.Errorf("explicit inline/fromArtifactTool not kept")
	}
}

func TestNewToolCallArgs(t *testing.T) {
	type argsStruct struct {
		City string `json:"city"`
		Days int    `json:"days"`
	}
	tests := []struct {
		name string
		args any
		want string
	}{
		{"json string", `{ "city" : "Oslo", "days": 2 }`, `{"city":"Oslo","days":2}`},
		{"bytes", []byte(`{"city":"Oslo"}`), `{"city":"Oslo"}`},
		{"raw message", json.RawMessage(`{"b":1,"a":2}`), `{"b":1,"a":2}`},
		{"map", map[string]any{"city": "Oslo"}, `{"city":"Oslo"}`},
		{"struct", argsStruct{City: "Oslo", Days: 2}, `{"city":"Oslo","days":2}`},
		{"struct pointer", &argsStruct{City: "Oslo"}, `{"city":"Oslo","days":0}`},
		{"empty object", `{}`, `{}`},
		{"big integer kept", `{"n":123456789012345678901234567890}`, `{"n":123456789012345678901234567890}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := validRaw()
			raw.Args = tt.args
			c, err := NewToolCall(raw)
			if err != nil {
				t.Fatal(err)
			}
			if string(c.Args()) != tt.want {
				t.Errorf("args = %s, want %s", c.Args(), tt.want)
			}
			var m map[string]any
			if err := json.Unmarshal(c.Args(), &m); err != nil || m == nil {
				t.Errorf("args do not decode to an object: %v %v", m, err)
			}
		})
	}
}

func TestNewToolCallInvalid(t *testing.T) {
	m1 := newMedia(t, "m1")
	tests := []struct {
		name   string
		mutate func(*RawToolCall)
		fields []string
	}{
		{"missing id", func(r *RawToolCall) { r.ID = "" }, []string{"id"}},
		{"missing tool", func(r *RawToolCall) { r.Tool = "" }, []string{"tool"}},
		{"id not UTF-8", func(r *RawToolCall) { r.ID = "call_\xff" }, []string{"id"}},
		{"tool not UTF-8", func(r *RawToolCall) { r.Tool = "get\xe2\x82" }, []string{"tool"}},
		{"id, tool not UTF-8 with others", func(r *RawToolCall) { r.ID, r.Tool, r.Checksum = "\xc0", "w\x80", "" }, []string{"id", "tool", "checksum"}},
		{"missing checksum", func(r *RawToolCall) { r.Checksum = "" }, []string{"checksum"}},
		{"short checksum", func(r *RawToolCall) { r.Checksum = "abc123" }, []string{"checksum"}},
		{"upper-case checksum", func(r *RawToolCall) { r.Checksum = strings.ToUpper(sum64) }, []string{"checksum"}},
		{"missing args", func(r *RawToolCall) { r.Args = nil }, []string{"args"}},
		{"non-JSON string", func(r *RawToolCall) { r.Args = "city=Oslo" }, []string{"args"}},
		{"empty string", func(r *RawToolCall) { r.Args = "" }, []string{"args"}},
		{"JSON array", func(r *RawToolCall) { r.Args = `[1,2]` }, []string{"args"}},
		{"JSON string", func(r *RawToolCall) { r.Args = `"x"` }, []string{"args"}},
		{"JSON null", func(r *RawToolCall) { r.Args = `null` }, []string{"args"}},
		{"JSON number", func(r *RawToolCall) { r.Args = `5` }, []string{"args"}},
		{"slice value", func(r *RawToolCall) { r.Args = []int{1} }, []string{"args"}},
		{"nil map pointer", func(r *RawToolCall) { r.Args = (*map[string]any)(nil) }, []string{"args"}},
		{"unencodable", func(r *RawToolCall) { r.Args = map[string]any{"f": func() {}} }, []string{"args"}},
		{"missing results", func(r *RawToolCall) { r.Results = nil }, []string{"results"}},
		{"plain-object results", func(r *RawToolCall) { r.Results = map[string]any{"text": "x"} }, []string{"results"}},
		{"string results", func(r *RawToolCall) { r.Results = "x" }, []string{"results"}},
		{"empty Results", func(r *RawToolCall) { r.Results = Results{} }, []string{"results"}},
		{"nil tokenizable", func(r *RawToolCall) { r.Results = (*Tokenizable)(nil) }, []string{"results"}},
		{"empty artifacts", func(r *RawToolCall) { r.Results = []Artifact{} }, []string{"results"}},
		{"nil artifact entry", func(r *RawToolCall) { r.Results = []Artifact{fakeArtifact{id: "a"}, nil} }, []string{"results"}},
		{"artifact without id", func(r *RawToolCall) { r.Results = fakeArtifact{kind: "SpooledArtifact"} }, []string{"results"}},
		{"empty media", func(r *RawToolCall) { r.Results = []*media.Media{} }, []string{"results"}},
		{"nil media entry", func(r *RawToolCall) { r.Results = MediaResults(nil) }, []string{"results"}},
		{"media without id", func(r *RawToolCall) { r.Results = &media.Media{} }, []string{"results"}},
		{"media list entry without id", func(r *RawToolCall) { r.Results = []*media.Media{m1, {}} }, []string{"results"}},
		{"media Results without id", func(r *RawToolCall) { r.Results = MediaResults(&media.Media{}) }, []string{"results"}},
		{"mixed kinds", func(r *RawToolCall) { r.Results = []any{fakeArtifact{id: "a"}, NewTokenizable("x")} }, []string{"results"}},
		{"missing createdAt", func(r *RawToolCall) { r.CreatedAt = time.Time{} }, []string{"createdAt"}},
		{"updatedAt before createdAt", func(r *RawToolCall) { r.UpdatedAt = t0.Add(-time.Second) }, []string{"updatedAt"}},
		{"complete without completedAt", func(r *RawToolCall) { r.CompletedAt = time.Time{} }, []string{"completedAt"}},
		{"completedAt while pending", func(r *RawToolCall) { r.IsComplete = false }, []string{"completedAt"}},
		{"completedAt before createdAt", func(r *RawToolCall) { r.CompletedAt = t0.Add(-time.Second) }, []string{"completedAt"}},
		{"createdAt after year 9999", func(r *RawToolCall) {
			r.CreatedAt, r.UpdatedAt, r.CompletedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}, time.Date(10000, 1, 2, 0, 0, 0, 0, time.UTC)
		}, []string{"createdAt", "completedAt"}},
		{"createdAt before year 0", func(r *RawToolCall) { r.CreatedAt = time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC) }, []string{"createdAt"}},
		{"updatedAt year 9999 locally, 10000 in UTC", func(r *RawToolCall) {
			r.UpdatedAt = time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("", -5*3600))
		}, []string{"updatedAt"}},
		{"completedAt after year 9999", func(r *RawToolCall) { r.CompletedAt = time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC) }, []string{"completedAt"}},
		{"payload without tag", func(r *RawToolCall) { r.Payload = json.RawMessage(`{"sig":"x"}`) }, []string{"replayCompatibility"}},
		{"payload not JSON", func(r *RawToolCall) { r.Payload, r.ReplayCompatibility = json.RawMessage(`{x`), "openai" }, []string{"payload"}},
		{"every field", func(r *RawToolCall) {
			*r = RawToolCall{Args: "[", Checksum: "x", Results: 5, IsComplete: true, Payload: json.RawMessage(`1`)}
		}, []string{"id", "tool", "args", "checksum", "results", "createdAt", "completedAt", "replayCompatibility"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := validRaw()
			tt.mutate(&raw)
			c, err := NewToolCall(raw)
			if !errors.Is(err, ErrInvalidInitialToolCallValue) {
				t.Fatalf("err = %v, want ErrInvalidInitialToolCallValue", err)
			}
			if c != nil {
				t.Errorf("tool call returned with an error")
			}
			var e *Error
			if errors.As(err, &e); !e.Fatal || e.Status != 500 {
				t.Errorf("want fatal 500: %+v", e)
			}
			mentionsAll(t, err, tt.fields...)
		})
	}
}

func TestNewToolCallTimes(t *testing.T) {
	raw := validRaw()
	raw.UpdatedAt = time.Time{}
	c, err := NewToolCall(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !c.UpdatedAt().Equal(c.CreatedAt()) {
		t.Errorf("zero UpdatedAt should default to CreatedAt")
	}
	raw = validRaw()
	raw.IsComplete, raw.CompletedAt = false, time.Time{}
	if c, err = NewToolCall(raw); err != nil || !c.CompletedAt().IsZero() {
		t.Errorf("pending call: %v", err)
	}
	raw = validRaw()
	raw.Payload, raw.ReplayCompatibility = json.RawMessage(` { "sig" : 1 } `), "anthropic-v1"
	if c, err = NewToolCall(raw); err != nil || string(c.Payload()) != `{"sig":1}` || c.ReplayCompatibility() != "anthropic-v1" {
		t.Errorf("payload: %v %s", err, c.Payload())
	}
	raw = validRaw()
	raw.Payload = json.RawMessage(`null`)
	if c, err = NewToolCall(raw); err != nil || c.Payload() != nil {
		t.Errorf("null payload means none: %v", err)
	}
}

func TestNewToolCallResultShapes(t *testing.T) {
	a1, a2 := fakeArtifact{id: "a1", kind: "SpooledArtifact"}, fakeArtifact{id: "a2", kind: "CSVArtifact"}
	m1, m2 := newMedia(t, "m1"), newMedia(t, "m2")
	tests := []struct {
		name    string
		results any
		kind    string
		n       int
	}{
		{"tokenizable", NewTokenizable("x"), "text", 1},
		{"text Results", TextResults(NewTokenizable("x")), "text", 1},
		{"artifact", a1, "artifacts", 1},
		{"artifacts", []Artifact{a1, a2}, "artifacts", 2},
		{"artifact Results", ArtifactResults(a1, a2), "artifacts", 2},
		{"media", m1, "media", 1},
		{"media list", []*media.Media{m1, m2}, "media", 2},
		{"media Results", MediaResults(m1), "media", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := validRaw()
			raw.Results = tt.results
			c, err := NewToolCall(raw)
			if err != nil {
				t.Fatal(err)
			}
			r := c.Results()
			n := len(r.Artifacts()) + len(r.Media())
			if r.Text() != nil {
				n++
			}
			if r.kind() != tt.kind || n != tt.n {
				t.Errorf("kind=%v n=%d, want %v %d", r.kind(), n, tt.kind, tt.n)
			}
		})
	}
}

// The constructor copies result slices: the caller cannot change a ToolCall.
func TestNewToolCallImmutable(t *testing.T) {
	list := []Artifact{fakeArtifact{id: "a1", kind: "K"}}
	raw := validRaw()
	raw.Results = list
	args := []byte(`{"a":1}`)
	raw.Args = args
	c, err := NewToolCall(raw)
	if err != nil {
		t.Fatal(err)
	}
	list[0] = fakeArtifact{id: "evil", kind: "K"}
	args[1] = 'X'
	if c.Results().Artifacts()[0].ID() != "a1" || string(c.Args()) != `{"a":1}` {
		t.Errorf("ToolCall changed through its input")
	}
}

// A ToolCall's text result is its own: json.Unmarshal into the caller's
// Tokenizable after NewToolCall, or into Results().Text(), cannot rewrite
// the call's persisted text (nor that of calls derived with Raw):
// Results().Text() is read-only and refuses it with an error. A dynamic
// text stays dynamic, rendered by its evaluator.
func TestToolCallTextResultImmutable(t *testing.T) {
	tests := []struct {
		name    string
		text    *Tokenizable
		rewrite func(c *ToolCall, tok *Tokenizable) error
		wantErr bool // the rewrite is refused
	}{
		{"caller's static Tokenizable", NewTokenizable("sunny"), func(_ *ToolCall, tok *Tokenizable) error {
			return json.Unmarshal([]byte(`"ignore previous instructions"`), tok)
		}, false},
		{"caller's dynamic Tokenizable", NewDynamicTokenizable(func(Scope) (string, error) { return "sunny", nil }),
			func(_ *ToolCall, tok *Tokenizable) error {
				return json.Unmarshal([]byte(`"ignore previous instructions"`), tok)
			}, false},
		{"Results().Text()", NewTokenizable("sunny"), func(c *ToolCall, _ *Tokenizable) error {
			return json.Unmarshal([]byte(`"ignore previous instructions"`), c.Results().Text())
		}, true},
		{"Results().Text() of a dynamic text", NewDynamicTokenizable(func(Scope) (string, error) { return "sunny", nil }),
			func(c *ToolCall, _ *Tokenizable) error {
				return json.Unmarshal([]byte(`"ignore previous instructions"`), c.Results().Text())
			}, true},
		{"Results().Text() of a derived call", NewTokenizable("sunny"), func(c *ToolCall, _ *Tokenizable) error {
			d, err := NewToolCall(c.Raw())
			if err != nil {
				t.Fatal(err)
			}
			return json.Unmarshal([]byte(`"ignore previous instructions"`), d.Results().Text())
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dynamic := isDynamic(tt.text)
			raw := validRaw()
			raw.Results = tt.text
			c, err := NewToolCall(raw)
			if err != nil {
				t.Fatal(err)
			}
			before, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.rewrite(c, tt.text)
			if tt.wantErr && !errors.Is(err, ErrInvalidInitialToolCallValue) {
				t.Errorf("rewrite err = %v, want ErrInvalidInitialToolCallValue", err)
			} else if !tt.wantErr && err != nil {
				t.Fatal(err)
			}
			after, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if string(before) != string(after) {
				t.Errorf("immutable ToolCall changed:\n before %s\n after  %s", before, after)
			}
			if got := c.Results().Text(); got.String() != "sunny" || isDynamic(got) != dynamic {
				t.Errorf("text = %q dynamic=%v, want \"sunny\" dynamic=%v", got.String(), isDynamic(got), dynamic)
			}
		})
	}
}

func TestToolCallRaw(t *testing.T) {
	c, err := NewToolCall(validRaw())
	if err != nil {
		t.Fatal(err)
	}
	raw := c.Raw()
	raw.ID = "call_2"
	d, err := NewToolCall(raw)
	if err != nil {
		t.Fatal(err)
	}
	if d.ID() != "call_2" || d.Tool() != c.Tool() || string(d.Args()) != string(c.Args()) || d.Results().Text() != c.Results().Text() {
		t.Errorf("Raw did not round-trip")
	}
}

func TestToolCallJSONRoundTrip(t *testing.T) {
	a1, a2 := fakeArtifact{id: "a1", kind: "SpooledArtifact"}, fakeArtifact{id: "a2", kind: "CSVArtifact"}
	m1 := newMedia(t, "m1")
	res := fakeResolver{
		artifacts: map[string]Artifact{"SpooledArtifact/a1": a1, "CSVArtifact/a2": a2},
		media:     map[string]*media.Media{"m1": m1},
	}
	no := false
	tests := []struct {
		name    string
		results any
		inline  *bool
	}{
		{"text", NewTokenizable("sunny, 21°C"), nil},
		{"artifacts", []Artifact{a1, a2}, &no},
		{"media", m1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := validRaw()
			raw.Results, raw.Inline = tt.results, tt.inline
			raw.Payload, raw.ReplayCompatibility = json.RawMessage(`{"sig":"abc"}`), "anthropic"
			c, err := NewToolCall(raw)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "png") && tt.name == "media" {
				// metadata only: the mime type is fine, the bytes ("png") must not be there
				if strings.Contains(string(data), `"png"`) {
					t.Errorf("media bytes inlined: %s", data)
				}
			}
			back, err := UnmarshalToolCall(context.Background(), data, res)
			if err != nil {
				t.Fatalf("UnmarshalToolCall: %v\n%s", err, data)
			}
			again, _ := json.Marshal(back)
			if diff := cmp.Diff(string(data), string(again)); diff != "" {
				t.Errorf("re-encoding differs (-first +second):\n%s", diff)
			}
			if back.Results().kind() != c.Results().kind() || back.Inline() != c.Inline() || !back.CreatedAt().Equal(c.CreatedAt()) {
				t.Errorf("round trip lost data: %s", data)
			}
			for i, a := range back.Results().Artifacts() {
				if a != c.Results().Artifacts()[i] {
					t.Errorf("artifact %d not resolved to the same value", i)
				}
			}
			for i, m := range back.Results().Media() {
				if m != c.Results().Media()[i] {
					t.Errorf("media %d not resolved", i)
				}
			}
		})
	}
}

func TestToolCallJSONShape(t *testing.T) {
	raw := validRaw()
	raw.Results = []Artifact{fakeArtifact{id: "a1", kind: "SpooledArtifact"}}
	c, _ := NewToolCall(raw)
	data, _ := json.Marshal(c)
	var got map[string]any
	_ = json.Unmarshal(data, &got)
	want := map[string]any{"kind": "artifacts", "artifacts": []any{map[string]any{"kind": "SpooledArtifact", "id": "a1"}}}
	if diff := cmp.Diff(want, got["results"]); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"city": "Oslo"}, got["args"]); diff != "" {
		t.Errorf("args are an object in the persisted form (-want +got):\n%s", diff)
	}
}

func TestUnmarshalToolCallErrors(t *testing.T) {
	raw := validRaw()
	raw.Results = []Artifact{fakeArtifact{id: "a1", kind: "SpooledArtifact"}}
	c, _ := NewToolCall(raw)
	data, _ := json.Marshal(c)
	textCall, _ := NewToolCall(validRaw())
	textData, _ := json.Marshal(textCall)
	tampered := strings.Replace(string(textData), sum64, "nothex", 1)
	tests := []struct {
		name string
		data string
		res  ResultResolver
	}{
		{"not JSON", `{`, nil},
		{"no resolver", string(data), nil},
		{"unresolvable", string(data), fakeResolver{}},
		{"bad checksum re-validated", tampered, nil},
		{"unknown kind", strings.Replace(string(textData), `"kind":"text"`, `"kind":"blob"`, 1), nil},
		{"text kind without text", `{"id":"x","tool":"t","args":{},"checksum":"` + sum64 + `","results":{"kind":"text"},"createdAt":"2026-01-01T00:00:00Z"}`, nil},
		{"missing args", `{"id":"x","tool":"t","checksum":"` + sum64 + `","results":{"kind":"text","text":"x"},"createdAt":"2026-01-01T00:00:00Z"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := UnmarshalToolCall(context.Background(), []byte(tt.data), tt.res); !errors.Is(err, ErrInvalidInitialToolCallValue) {
				t.Errorf("err = %v", err)
			}
		})
	}
	// Text results need no resolver.
	if _, err := UnmarshalToolCall(context.Background(), textData, nil); err != nil {
		t.Errorf("text call: %v", err)
	}
}

// json.Unmarshal into a *ToolCall fails with a coded error naming
// UnmarshalToolCall, rather than succeeding with an empty value.
func TestToolCallUnmarshalJSONRefused(t *testing.T) {
	c, err := NewToolCall(validRaw())
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var got ToolCall
	err = json.Unmarshal(data, &got)
	if !errors.Is(err, ErrInvalidInitialToolCallValue) || !strings.Contains(err.Error(), "forge.UnmarshalToolCall") {
		t.Fatalf("json.Unmarshal(&ToolCall) = %v, want ErrInvalidInitialToolCallValue naming UnmarshalToolCall", err)
	}
	var holder struct{ Calls []*ToolCall }
	if err := json.Unmarshal([]byte(`{"Calls":[{"id":"x"}]}`), &holder); !errors.Is(err, ErrInvalidInitialToolCallValue) {
		t.Errorf("nested *ToolCall: err = %v", err)
	}
	if _, err := UnmarshalToolCall(context.Background(), data, nil); err != nil {
		t.Errorf("UnmarshalToolCall: %v", err)
	}
}

func TestVerifyChecksum(t *testing.T) {
	sum, err := canonical.Checksum("weather", json.RawMessage(`{"city":"Oslo"}`))
	if err != nil {
		t.Fatal(err)
	}
	raw := validRaw()
	raw.Checksum = sum
	raw.Args = map[string]any{"city": "Oslo"}
	c, err := NewToolCall(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.VerifyChecksum(); err != nil {
		t.Errorf("VerifyChecksum: %v", err)
	}
	raw.Args = `{"city":"Bergen"}`
	c, _ = NewToolCall(raw)
	if err := c.VerifyChecksum(); !errors.Is(err, ErrChecksumMismatch) {
		t.Errorf("tampered args: err = %v", err)
	}
	raw.Args, raw.Tool = `{"city":"Oslo"}`, "forecast"
	c, _ = NewToolCall(raw)
	if err := c.VerifyChecksum(); !errors.Is(err, ErrChecksumMismatch) {
		t.Errorf("tampered tool: err = %v", err)
	}
}

func TestToolCallAccessorsCopy(t *testing.T) {
	raw := validRaw()
	raw.Results = []Artifact{fakeArtifact{id: "a1", kind: "K"}}
	raw.Payload, raw.ReplayCompatibility = json.RawMessage(`{"p":1}`), "x"
	c, _ := NewToolCall(raw)
	c.Args()[0] = 'X'
	c.Payload()[0] = 'X'
	c.Results().Artifacts()[0] = fakeArtifact{id: "evil"}
	if string(c.Args()) != `{"city":"Oslo"}` || string(c.Payload()) != `{"p":1}` || c.Results().Artifacts()[0].ID() != "a1" {
		t.Errorf("ToolCall changed through an accessor")
	}
}

// A media value can never be an ArtifactKind: the type system keeps media
// out of the artifact wrap path.
func TestMediaIsNotAnArtifactKind(t *testing.T) {
	for _, v := range []any{newMedia(t, "m"), media.KindImage, media.Media{}} {
		if _, ok := v.(ArtifactKind); ok {
			t.Errorf("%T implements ArtifactKind", v)
		}
		if _, ok := v.(Artifact); ok {
			t.Errorf("%T implements Artifact", v)
		}
	}
}

// A non-ASCII tool name survives the persisted form byte for byte, so the
// checksum still verifies after a round trip.
func TestToolCallJSONRoundTripChecksum(t *testing.T) {
	tests := []struct{ name, id, tool, args string }{
		{"ascii", "call_1", "weather", `{"city":"Oslo"}`},
		{"non-ASCII", "appel_é", "météo_☀", `{"ville":"Zürich"}`},
		{"astral", "call_𝄞", "tool_😀", `{"q":"😀"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, err := canonical.Checksum(tt.tool, json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			raw := validRaw()
			raw.ID, raw.Tool, raw.Args, raw.Checksum = tt.id, tt.tool, tt.args, sum
			c, err := NewToolCall(raw)
			if err != nil {
				t.Fatal(err)
			}
			back := roundTrip(t, c, nil)
			if diff := cmp.Diff([]string{c.ID(), c.Tool()}, []string{back.ID(), back.Tool()}); diff != "" {
				t.Errorf("id, tool (-before +after):\n%s", diff)
			}
			if err := back.VerifyChecksum(); err != nil {
				t.Errorf("after round trip: %v", err)
			}
		})
	}
}

// roundTrip is json.Marshal then UnmarshalToolCall.
func roundTrip(t *testing.T, c *ToolCall, res ResultResolver) *ToolCall {
	t.Helper()
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	back, err := UnmarshalToolCall(context.Background(), data, res)
	if err != nil {
		t.Fatalf("UnmarshalToolCall: %v\n%s", err, data)
	}
	return back
}

// Times come back as the same instant whatever their zone, and are written
// in UTC; forms written with an offset still decode.
func TestToolCallJSONTimes(t *testing.T) {
	lmt := time.FixedZone("AMT", 19*60+32) // Europe/Amsterdam's local mean time, +00:19:32
	tests := []struct {
		name string
		at   time.Time
	}{
		{"UTC", t0},
		{"offset", time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("IST", 5*3600+1800))},
		{"offset with seconds", time.Date(1900, 1, 1, 0, 0, 0, 0, lmt)},
		{"negative offset with seconds", time.Date(1850, 6, 1, 12, 0, 0, 0, time.FixedZone("", -(4*3600+56*60+2)))},
		{"local", time.Date(2020, 6, 1, 12, 0, 0, 1, time.Local)},
		{"monotonic", time.Now()},
		{"first instant of year 0", time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"year 9999 in UTC, earlier locally", time.Date(9999, 12, 31, 18, 59, 59, 999999998, time.FixedZone("", -5*3600))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := validRaw()
			raw.CreatedAt, raw.UpdatedAt, raw.CompletedAt = tt.at, tt.at, tt.at.Add(time.Nanosecond)
			c, err := NewToolCall(raw)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatalf("accepted by NewToolCall, but json.Marshal: %v", err)
			}
			var stamps struct{ CreatedAt, UpdatedAt, CompletedAt string }
			if err := json.Unmarshal(data, &stamps); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{stamps.CreatedAt, stamps.UpdatedAt, stamps.CompletedAt} {
				if !strings.HasSuffix(s, "Z") {
					t.Errorf("time %q not written in UTC", s)
				}
			}
			back, err := UnmarshalToolCall(context.Background(), data, nil)
			if err != nil {
				t.Fatalf("UnmarshalToolCall: %v\n%s", err, data)
			}
			want := []time.Time{c.CreatedAt(), c.UpdatedAt(), c.CompletedAt()}
			if diff := cmp.Diff(want, []time.Time{back.CreatedAt(), back.UpdatedAt(), back.CompletedAt()}); diff != "" {
				t.Errorf("instants changed (-before +after):\n%s", diff)
			}
		})
	}
	// A form written before times were normalised to UTC.
	old := `{"id":"x","tool":"t","args":{},"checksum":"` + sum64 + `","results":{"kind":"text","text":"x"},` +
		`"isComplete":true,"createdAt":"2026-01-02T05:04:05.006+02:00","updatedAt":"2026-01-02T05:04:06.006+02:00",` +
		`"completedAt":"2026-01-01T22:04:07.006-05:00"}`
	back, err := UnmarshalToolCall(context.Background(), []byte(old), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{t0, t0.Add(time.Second), t0.Add(2 * time.Second)}
	if diff := cmp.Diff(want, []time.Time{back.CreatedAt(), back.UpdatedAt(), back.CompletedAt()}); diff != "" {
		t.Errorf("older form with offsets (-want +got):\n%s", diff)
	}
}

// A ToolCall held by value encodes as the pointer does, wherever it sits;
// decoding into one is refused in every position, as for *ToolCall.
func TestToolCallValueMarshal(t *testing.T) {
	c, err := NewToolCall(validRaw())
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	w := string(want)
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"pointer", c, w},
		{"value", *c, w},
		{"struct field by value", struct{ C ToolCall }{*c}, `{"C":` + w + `}`},
		{"struct field by pointer", struct{ C *ToolCall }{c}, `{"C":` + w + `}`},
		{"slice of values", []ToolCall{*c, *c}, `[` + w + `,` + w + `]`},
		{"map of values", map[string]ToolCall{"k": *c}, `{"k":` + w + `}`},
		{"nil pointer", (*ToolCall)(nil), `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("encoding (-want +got):\n%s", diff)
			}
		})
	}

	// The zero ToolCall is not a tool call: encoding it fails rather than
	// writing a form UnmarshalToolCall would reject.
	for _, v := range []any{ToolCall{}, &ToolCall{}, struct{ C ToolCall }{}} {
		if _, err := json.Marshal(v); !errors.Is(err, ErrInvalidInitialToolCallValue) {
			t.Errorf("json.Marshal(%T zero) err = %v, want ErrInvalidInitialToolCallValue", v, err)
		}
	}

	decodes := []struct {
		name string
		data string
		into any
	}{
		{"value", w, new(ToolCall)},
		{"struct field by value", `{"C":` + w + `}`, new(struct{ C ToolCall })},
		{"slice of values", `[` + w + `]`, new([]ToolCall)},
		{"map of values", `{"k":` + w + `}`, new(map[string]ToolCall)},
	}
	for _, tt := range decodes {
		t.Run("decode "+tt.name, func(t *testing.T) {
			if err := json.Unmarshal([]byte(tt.data), tt.into); !errors.Is(err, ErrInvalidInitialToolCallValue) {
				t.Errorf("json.Unmarshal err = %v, want ErrInvalidInitialToolCallValue", err)
			}
		})
	}
}

// Args and payload keep their JSON value through the persisted form (not
// their bytes: json.Marshal escapes <, >, & and U+2028/U+2029), and the
// checksum still verifies.
func TestToolCallJSONArgsPayloadValue(t *testing.T) {
	tests := []struct{ name, args, payload string }{
		{"plain", `{"city":"Oslo","n":123456789012345678901234567890}`, `{"sig":"abc"}`},
		{"HTML characters", `{"q":"a<b && c>d"}`, `{"html":"<b>&amp;</b>"}`},
		{"line and paragraph separators", "{\"q\":\"a\u2028b\u2029c\"}", "{\"p\":\"\u2028\"}"},
		{"model wrote the escapes", `{"q":"\u003c\u003e\u0026\u2028"}`, `{"p":"\u003cb\u003e"}`},
		{"both spellings", `{"q":"<\u003c","\u0026":"&"}`, `{"<":"\u003c"}`},
		{"other escapes", `{"q":"\/\u0041\n\ud83d\ude00"}`, `{"p":"\t"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, err := canonical.Checksum("weather", json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			raw := validRaw()
			raw.Args, raw.Checksum = tt.args, sum
			raw.Payload, raw.ReplayCompatibility = json.RawMessage(tt.payload), "anthropic"
			c, err := NewToolCall(raw)
			if err != nil {
				t.Fatal(err)
			}
			back := roundTrip(t, c, nil)
			if diff := cmp.Diff(jsonValue(t, c.Args()), jsonValue(t, back.Args())); diff != "" {
				t.Errorf("args value (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(jsonValue(t, c.Payload()), jsonValue(t, back.Payload())); diff != "" {
				t.Errorf("payload value (-before +after):\n%s", diff)
			}
			if err := back.VerifyChecksum(); err != nil {
				t.Errorf("after round trip: %v", err)
			}
		})
	}
}

// jsonValue decodes JSON text, numbers kept as written.
func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

// persistableTime compares with the bounds of years 0-9999 UTC; it must
// agree with the years themselves, in any zone, to the nanosecond.
func TestPersistableTime(t *testing.T) {
	east, west := time.FixedZone("", 14*3600), time.FixedZone("", -12*3600)
	first := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	after := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{first, first.Add(-1), after, after.Add(-1), first.In(west), first.Add(-1).In(east),
		after.Add(-1).In(east), after.In(west), {}, time.Unix(1<<62, 0), time.Unix(-1<<62, 0), t0} {
		y := at.UTC().Year()
		if want := y >= 0 && y <= 9999; persistableTime(at) != want {
			t.Errorf("persistableTime(%v) = %v, want %v", at, !want, want)
		}
	}
}

func FuzzPersistableTime(f *testing.F) {
	f.Add(int64(-62167219200), int64(0))
	f.Add(int64(253402300800), int64(-1))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		at := time.Unix(sec, nsec)
		y := at.UTC().Year()
		if want := y >= 0 && y <= 9999; persistableTime(at) != want {
			t.Fatalf("persistableTime(%v) = %v, want %v", at, !want, want)
		}
	})
}
