package forge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/forge"
)

// WeatherArgs are the arguments of the weather tool. The JSON Schema is
// derived from the struct: json tags name the properties, the jsonschema tag
// describes them, fields without omitempty are required and unknown keys
// are rejected.
type WeatherArgs struct {
	City string `json:"city" jsonschema:"the city to look up"`
	Days int    `json:"days,omitempty" jsonschema:"how many days ahead, 0 for today"`
}

// A typed tool end to end: define it, validate arguments, execute it and
// inspect the output and the events.
func ExampleNewTypedTool() {
	weather, err := forge.NewTypedTool("weather", "Look up the weather forecast",
		func(ctx context.Context, a WeatherArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput(fmt.Sprintf("%s in %d day(s): sunny", a.City, a.Days)), nil
		}, &forge.ToolOptions{Timeout: time.Second})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(weather.Schema()))

	// Validation never coerces: "2" is not an integer, and unknown keys are refused.
	_, err = weather.Validate(json.RawMessage(`{"city":"Oslo","days":"2","country":"NO"}`))
	fmt.Println(errors.Is(err, forge.ErrInvalidToolArgs))
	var ve *forge.ValidationError
	if errors.As(err, &ve) {
		for _, p := range ve.Problems {
			fmt.Println("-", p)
		}
	}

	out, err := weather.Execute(context.Background(), json.RawMessage(`{"city":"Oslo","days":2}`),
		forge.Invocation{ID: "call_1"}, printEvents{})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Kind() == forge.OutputText, out.Text())
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"the city to look up"},"days":{"type":"integer","description":"how many days ahead, 0 for today"}},"required":["city"],"additionalProperties":false}
	// true
	// - days: type: "2" has type "string", want "integer"
	// - unexpected additional properties ["country"]
	// start weather
	// end weather isError=false
	// true Oslo in 2 day(s): sunny
}

type printEvents struct{}

func (printEvents) ToolExecutionStart(e forge.ExecutionStart) { fmt.Println("start", e.ToolName) }
func (printEvents) ToolExecutionEnd(e forge.ExecutionEnd) {
	fmt.Printf("end %s isError=%v\n", e.ToolName, e.IsError)
}

// An untyped tool takes a JSON Schema document and receives the validated map.
func ExampleNewTool() {
	echo, err := forge.NewTool("echo", "Repeat a message",
		json.RawMessage(`{"type":"object","properties":{"msg":{"type":"string"},"times":{"type":"integer","default":2}},"required":["msg"]}`),
		func(ctx context.Context, args map[string]any, inv forge.Invocation) (forge.Output, error) {
			s := ""
			for range int(args["times"].(float64)) {
				s += args["msg"].(string)
			}
			return forge.TextOutput(s), nil
		}, nil)
	if err != nil {
		panic(err)
	}
	out, err := echo.Execute(context.Background(), json.RawMessage(`{"msg":"hi "}`), forge.Invocation{}, nil)
	fmt.Printf("%q %v\n", out.Text(), err)
	_, err = echo.Execute(context.Background(), json.RawMessage(`[]`), forge.Invocation{}, nil)
	fmt.Println(err)
	// The schema said nothing about other keys, so they are refused, and the
	// published schema says so.
	_, err = echo.Execute(context.Background(), json.RawMessage(`{"msg":"x","to":"y","cc":"z"}`), forge.Invocation{}, nil)
	fmt.Println(err)
	fmt.Println(string(echo.Schema()))
	// Output:
	// "hi hi " <nil>
	// E_INVALID_TOOL_ARGS: forge: invalid arguments for tool "echo": arguments must be a JSON object, got an array
	// E_INVALID_TOOL_ARGS: forge: invalid arguments for tool "echo": unexpected additional properties ["cc" "to"]
	// {"additionalProperties":false,"type":"object","properties":{"msg":{"type":"string"},"times":{"type":"integer","default":2}},"required":["msg"]}
}

// A Registry holds the tools of a turn; hidden tools are not offered to the
// model, and Merge resolves name collisions.
func ExampleRegistry() {
	mk := func(name string, opts *forge.ToolOptions) *forge.Tool {
		t, err := forge.NewTool(name, "the "+name+" tool", json.RawMessage(`{"type":"object"}`),
			func(context.Context, map[string]any, forge.Invocation) (forge.Output, error) {
				return forge.TextOutput(name), nil
			}, opts)
		if err != nil {
			panic(err)
		}
		return t
	}
	base, _ := forge.NewRegistry(mk("search", nil), mk("fetch", nil), mk("admin", nil))
	base.Hide("admin")
	for _, d := range base.Definitions() {
		fmt.Println("offered:", d.Name)
	}

	err := base.Register(mk("search", nil), false)
	fmt.Println(errors.Is(err, forge.ErrToolAlreadyRegistered))

	extra, _ := forge.NewRegistry(mk("search", &forge.ToolOptions{OnCollision: forge.CollisionReplace, Ephemeral: true}), mk("notes", nil))
	merged, err := forge.Merge(forge.CollisionThrow, base, extra)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(merged.All()), "tools,", len(merged.Visible()), "visible")
	merged.PruneEphemeral()
	var kept []string
	for _, t := range merged.All() {
		kept = append(kept, t.Name())
	}
	fmt.Println(kept)
	// Output:
	// offered: search
	// offered: fetch
	// true
	// 4 tools, 3 visible
	// [fetch admin notes]
}

// A ToolCall records one settled invocation. The checksum is computed by the
// producer and checked by VerifyChecksum; the persisted JSON form references
// artifacts and media rather than inlining them.
func ExampleNewToolCall() {
	args := json.RawMessage(`{"city":"Oslo","days":2}`)
	sum, err := canonical.Checksum("weather", args)
	if err != nil {
		panic(err)
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	call, err := forge.NewToolCall(forge.RawToolCall{
		ID: "call_1", Tool: "weather", Args: `{"days": 2, "city": "Oslo"}`, Checksum: sum,
		Results:    forge.NewTokenizable("sunny"),
		IsComplete: true, CreatedAt: at, CompletedAt: at.Add(time.Second),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(call.Args()), call.Inline(), call.VerifyChecksum())
	data, _ := json.Marshal(call)
	back, err := forge.UnmarshalToolCall(context.Background(), data, nil)
	fmt.Println(back.Results().Text(), err)

	_, err = forge.NewToolCall(forge.RawToolCall{ID: "call_2", Args: "[1]", Checksum: "abc123"})
	fmt.Println(err)
	// Output:
	// {"days":2,"city":"Oslo"} true <nil>
	// sunny <nil>
	// E_INVALID_INITIAL_TOOL_CALL_VALUE: forge: invalid tool call: tool: required; args: must be a JSON object, got an array; checksum: "abc123" is not 64 lowercase hex digits; results: required; createdAt: required
}

// Token estimates per encoding, cached on the value; custom encodings are
// registered on an Estimators set, which counts any text.
func ExampleTokenizable() {
	t := forge.NewTokenizable("The quick brown fox jumps over the lazy dog.")
	n, _ := t.EstimateTokens(forge.EncodingCL100K)
	c, _ := t.EstimateTokens(forge.EncodingClaude)
	fmt.Println(n, c)

	var est forge.Estimators
	_ = est.Register("words", func(s string) (int, error) { return len(s) / 5, nil })
	w, _ := est.Estimate(t.String(), "words")
	fmt.Println(w)
	fmt.Println(errors.Is(est.Register(forge.EncodingO200K, nil), forge.ErrTokenEstimatorShadowsBuiltin))
	// Output:
	// 10 13
	// 8
	// true
}

// A generated schema, trusted, is resolved on first use: building the tool
// costs next to nothing, and an unknown id still fails validation.
func ExampleToolOptions_lazySchema() {
	doc := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","enum":["a","b"]}},"required":["id"],"additionalProperties":false}`)
	tool, _ := forge.NewArtifactTool("lookup", "Look an id up.", doc,
		func(_ context.Context, args map[string]any, _ forge.Invocation) (string, error) {
			return "found " + args["id"].(string), nil
		}, &forge.ToolOptions{LazySchema: true})
	fmt.Println(string(tool.Schema()) == string(doc))
	_, err := tool.Validate(json.RawMessage(`{"id":"c"}`))
	fmt.Println(errors.Is(err, forge.ErrInvalidToolArgs))
	out, _ := tool.Execute(context.Background(), json.RawMessage(`{"id":"b"}`), forge.Invocation{}, nil)
	fmt.Println(out.Text())
	// Output:
	// true
	// true
	// found b
}
