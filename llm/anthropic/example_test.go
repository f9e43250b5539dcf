package anthropic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/anthropic"
)

// A server streaming a tool call, as the Messages API does.
func fakeServer() *httptest.Server {
	events := []string{
		`event: message_start` + "\n" + `data: {"type":"message_start","message":{"usage":{"input_tokens":20,"output_tokens":1}}}`,
		`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}}`,
		`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`,
		`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}`,
		`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
		`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":12}}`,
		`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e+"\n\n")
		}
	}))
}

func Example() {
	srv := fakeServer()
	defer srv.Close()

	model, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-…", Model: "claude-sonnet-4-5"})
	if err != nil {
		panic(err)
	}
	for part, err := range model.Stream(context.Background(), &llm.Request{}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch part.Kind {
		case llm.PartToolCall:
			if part.Name != "" {
				fmt.Printf("call %s %s: ", part.ID, part.Name)
			}
			fmt.Print(part.Text)
		case llm.PartStop:
			fmt.Println("\nstop:", part.StopReason)
		}
	}
	// Output:
	// call toolu_1 weather: {"city":"Paris"}
	// stop: tool_use
}
