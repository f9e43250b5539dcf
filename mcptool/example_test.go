package mcptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/mcptool"
	"github.com/ebbforge/adk/turnrunner"
)

// weatherServer is an MCP server with one tool; in real use it is another
// process, reached with mcptool.Command or mcptool.StreamableHTTP.
func weatherServer() mcptool.Transport {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{
		Name:        "forecast",
		Description: "Tomorrow's forecast for a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ City string }
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, err
		}
		if args.City == "Atlantis" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "unknown city"}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "rain in " + args.City}}}, nil
	})
	return func() mcp.Transport {
		client, server := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), server, nil); err != nil {
			log.Fatal(err)
		}
		return client
	}
}

// An agent calls an MCP server's tools through the turn runner: the
// server's IsError result is a failed call the model reads.
func Example() {
	ctx := context.Background()
	ts, err := mcptool.New(weatherServer(), &mcptool.Options{Prefix: "weather_"})
	if err != nil {
		log.Fatal(err)
	}
	defer ts.Close()
	tools, err := ts.Tools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	model := scripted.New(
		scripted.Use(
			scripted.Call{ID: "c1", Name: "weather_forecast", Args: `{"city":"Oslo"}`},
			scripted.Call{ID: "c2", Name: "weather_forecast", Args: `{"city":"Atlantis"}`},
		),
		scripted.Say("Rain in Oslo; Atlantis is unknown."),
	)
	runner, err := turnrunner.New(model, &turnrunner.Options{Tools: tools, MaxParallelTools: 1})
	if err != nil {
		log.Fatal(err)
	}
	events, err := runner.Run(ctx, turnrunner.Input{Prompt: "Weather tomorrow in Oslo and Atlantis?"})
	if err != nil {
		log.Fatal(err)
	}
	for ev := range events {
		switch e := ev.(type) {
		case turnrunner.ToolCallContent:
			if !e.IsComplete {
				continue
			}
			text, err := llm.RenderResult(ctx, e.Call)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%s %s error=%v: %s\n", e.ID, e.Tool, e.IsError, text)
		case turnrunner.TurnEnd:
			fmt.Println("turn", e.Status)
		}
	}
	// Output:
	// c1 weather_forecast error=false: rain in Oslo
	// c2 weather_forecast error=true: Tool failed: E_TOOL_DOWNSTREAM_ERROR: forge: tool "weather_forecast" failed: E_MCP_TOOL_ERROR: unknown city
	// turn completed
}
