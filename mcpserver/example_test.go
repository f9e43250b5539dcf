package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/mcpserver"
)

func registry() *forge.Registry {
	type args struct {
		City string `json:"city" jsonschema:"the city"`
	}
	weather, err := forge.NewTypedTool("weather", "Current weather of a city.",
		func(_ context.Context, a args, _ forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("sunny in " + a.City), nil
		}, nil)
	if err != nil {
		log.Fatal(err)
	}
	reg, err := forge.NewRegistry(weather)
	if err != nil {
		log.Fatal(err)
	}
	return reg
}

// Serve a registry to an MCP client; here over in-memory transports, in
// real use with ServeStdio or ServeHTTP.
func Example() {
	ctx := context.Background()
	srv, err := mcpserver.New(registry(), nil)
	if err != nil {
		log.Fatal(err)
	}
	clientSide, serverSide := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, serverSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for _, args := range []string{`{"city":"Oslo"}`, `{"town":"Oslo"}`} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: json.RawMessage(args)})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("isError=%v %s\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// isError=false sunny in Oslo
	// isError=true E_INVALID_TOOL_ARGS: forge: invalid arguments for tool "weather": required: missing properties: ["city"]; unexpected additional properties ["town"]
}

// Serve over streamable HTTP: the handler refuses requests whose Host or
// Origin is not loopback or allowed.
func ExampleServer_Handler() {
	srv, err := mcpserver.New(registry(), nil)
	if err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler(&mcpserver.HTTPOptions{AllowedOrigins: []string{"https://app.example.com"}}))
	defer hs.Close()

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Tools[0].Name, "-", res.Tools[0].Description)
	// Output:
	// weather - Current weather of a city.
}
