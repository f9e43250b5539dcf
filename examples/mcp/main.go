// Command mcp is an agent that uses the tools of an MCP server running as
// a subprocess, on the scripted model: no keys, no network.
//
// The same binary is both sides. Started with -serve, it serves a small
// shop's tools (order_status, stock) over MCP on its standard input and
// output with mcpserver. Started without flags, it is the agent: it runs
// itself with -serve as a subprocess, takes that server's tools through
// mcptool (prefixed "shop_"), and runs a turn in which the model calls
// them and answers. Every event of the turn is printed as it streams.
//
//	go run ./examples/mcp
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/mcpserver"
	"github.com/ebbforge/adk/mcptool"
	"github.com/ebbforge/adk/turnrunner"
)

func main() {
	serve := flag.Bool("serve", false, "serve the shop's tools over MCP on stdin/stdout")
	flag.Parse()
	ctx := context.Background()
	var err error
	if *serve {
		err = serveTools(ctx)
	} else {
		var self string
		if self, err = os.Executable(); err == nil {
			err = run(ctx, os.Stdout, mcptool.Command(self, "-serve"))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

// orderArgs are order_status' arguments; the schema is derived from them.
type orderArgs struct {
	Order string `json:"order" jsonschema:"the order number, like A-1001"`
}

// stockArgs are stock's arguments.
type stockArgs struct {
	SKU string `json:"sku,omitempty" jsonschema:"one article number; all articles when empty"`
}

var stockLevels = map[string]int{"KB-01": 14, "MS-02": 0, "HD-03": 3}

// shopTools is the registry the server side offers.
func shopTools() (*forge.Registry, error) {
	status, err := forge.NewTypedTool("order_status", "Where an order is.",
		func(_ context.Context, a orderArgs, _ forge.Invocation) (forge.Output, error) {
			if a.Order != "A-1001" {
				return forge.Output{}, fmt.Errorf("no order %q", a.Order)
			}
			return forge.TextOutput("A-1001: shipped yesterday, arriving Thursday"), nil
		}, nil)
	if err != nil {
		return nil, err
	}
	stock, err := forge.NewTypedTool("stock", "Stock levels by article number.",
		func(_ context.Context, a stockArgs, _ forge.Invocation) (forge.Output, error) {
			var b strings.Builder
			for _, sku := range []string{"HD-03", "KB-01", "MS-02"} {
				if a.SKU == "" || a.SKU == sku {
					fmt.Fprintf(&b, "%s %d\n", sku, stockLevels[sku])
				}
			}
			return forge.TextOutput(b.String()), nil
		}, nil)
	if err != nil {
		return nil, err
	}
	return forge.NewRegistry(status, stock)
}

// serveTools serves the shop's tools on stdin/stdout until the client
// hangs up.
func serveTools(ctx context.Context) error {
	reg, err := shopTools()
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(reg, nil)
	if err != nil {
		return err
	}
	return srv.ServeStdio(ctx)
}

// run is the agent: it takes the tools of the server tr reaches and runs
// one turn, printing its events to w.
func run(ctx context.Context, w io.Writer, tr mcptool.Transport) error {
	ts, err := mcptool.New(tr, &mcptool.Options{Prefix: "shop_"})
	if err != nil {
		return err
	}
	defer ts.Close() // ends the server subprocess
	tools, err := ts.Tools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		fmt.Fprintf(w, "tool %s: %s\n", t.Name(), t.Description())
	}
	model := scripted.New(
		scripted.Step{
			Text: []string{"Let me check the order and the stock."},
			Calls: []scripted.Call{
				{ID: "call_order", Name: "shop_order_status", Args: `{"order":"A-1001"}`},
				{ID: "call_stock", Name: "shop_stock", Args: `{}`},
			},
		},
		scripted.Say("Your order A-1001 shipped yesterday and arrives Thursday. ",
			"Mice (MS-02) are out of stock; keyboards are available."),
	)
	runner, err := turnrunner.New(model, &turnrunner.Options{Tools: tools})
	if err != nil {
		return err
	}
	events, err := runner.Run(ctx, turnrunner.Input{Prompt: "Where is my order A-1001, and can I add a mouse?"})
	if err != nil {
		return err
	}
	var turnErr error
	for ev := range events { // the runner closes the channel after TurnEnd
		switch e := ev.(type) {
		case turnrunner.MessageDelta:
			fmt.Fprint(w, e.Delta)
		case turnrunner.ToolCallContent:
			if !e.IsComplete {
				fmt.Fprintf(w, "\n-> %s %s\n", e.Tool, e.Args)
				continue
			}
			text, err := llm.RenderResult(ctx, e.Call)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "<- %s error=%v: %s\n", e.Tool, e.IsError, strings.TrimSpace(text))
		case turnrunner.TurnEnd:
			fmt.Fprintf(w, "\nturn %s\n", e.Status)
			turnErr = e.Err
		}
	}
	return errors.Join(turnErr, ts.Close())
}
