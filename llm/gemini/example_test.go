package gemini_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/gemini"
)

// A server streaming a signed function call, as the Gemini API does: CRLF
// framing, no call id, no terminator.
func fakeServer() *httptest.Server {
	chunk := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnbmVk"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":5,"totalTokenCount":25}}`
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+chunk+"\r\n\r\n")
	}))
}

func Example() {
	srv := fakeServer()
	defer srv.Close()

	model, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "AIza…", Model: "gemini-2.5-flash"})
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
			// The id is generated: the API sent none.
			fmt.Printf("call %s %s, signature kept as %s: %s\n", part.Name, part.Text, part.ReplayCompatibility, part.Payload)
		case llm.PartUsage:
			fmt.Println("tokens:", part.Usage.TotalTokens)
		case llm.PartStop:
			fmt.Println("stop:", part.StopReason)
		}
	}
	// Output:
	// call weather {"city":"Paris"}, signature kept as gemini: {"thoughtSignature":"c2lnbmVk"}
	// tokens: 25
	// stop: tool_use
}

// With thought summaries on, the model's thinking streams as reasoning
// before the answer.
func ExampleConfig_thoughts() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"candidates":[{"content":{"parts":[{"text":"Paris is in France.","thought":true}]}}]}`+"\r\n\r\n")
		io.WriteString(w, `data: {"candidates":[{"content":{"parts":[{"text":"Paris."}]},"finishReason":"STOP"}]}`+"\r\n\r\n")
	}))
	defer srv.Close()

	model, _ := gemini.New(gemini.Config{BaseURL: srv.URL, Model: "gemini-2.5-flash", IncludeThoughts: true})
	for part, err := range model.Stream(context.Background(), &llm.Request{}) {
		switch {
		case err != nil:
			fmt.Println("error:", err)
		case part.Kind == llm.PartThought:
			fmt.Println("thought:", part.Text)
		case part.Kind == llm.PartText:
			fmt.Println("text:", part.Text)
		}
	}
	// Output:
	// thought: Paris is in France.
	// text: Paris.
}
