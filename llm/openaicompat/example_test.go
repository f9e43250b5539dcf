package openaicompat_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/openaicompat"
)

// A server streaming a short answer, as Ollama would.
func fakeServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"}}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":", world."},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":4,"total_tokens":9}}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
}

func Example() {
	srv := fakeServer()
	defer srv.Close()

	model, err := openaicompat.New(openaicompat.Config{BaseURL: srv.URL + "/v1", Model: "qwen3"})
	if err != nil {
		panic(err)
	}
	for part, err := range model.Stream(context.Background(), &llm.Request{System: "Be brief."}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch part.Kind {
		case llm.PartText:
			fmt.Print(part.Text)
		case llm.PartUsage:
			fmt.Printf("\n%d tokens", part.Usage.TotalTokens)
		case llm.PartStop:
			fmt.Println(", stop:", part.StopReason)
		}
	}
	// Output:
	// Hello, world.
	// 9 tokens, stop: end
}

func ExampleProfileFor() {
	for _, u := range []string{
		"https://api.openai.com/v1",
		"http://localhost:11434/v1",
		"https://api.deepseek.com",
		"https://generativelanguage.googleapis.com/v1beta/openai",
		"http://gpu-box:8000/v1",
	} {
		fmt.Println(openaicompat.ProfileFor(u).Name)
	}
	// Output:
	// openai
	// ollama
	// deepseek
	// gemini
	// generic
}
