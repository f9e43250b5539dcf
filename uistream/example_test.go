package uistream_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
	"github.com/ebbforge/adk/uistream"
)

// A useChat client posts its messages; the handler streams the turn as UI
// message chunks. Put your own authentication middleware in front and name
// the user in Authorize.
func ExampleNewAISDK() {
	runner, _ := turnrunner.New(scripted.New(scripted.Say("Hello", " there.")), nil)
	chat := uistream.NewAISDK(runner, &uistream.Options{
		Authorize: func(r *http.Request) (string, error) { return "user-1", nil },
	})
	defer chat.Close()
	srv := httptest.NewServer(chat)
	defer srv.Close()

	res, _ := http.Post(srv.URL, "application/json", strings.NewReader(
		`{"id":"chat-1","messages":[{"id":"m1","role":"user","parts":[{"type":"text","text":"Hi"}]}]}`))
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			if typ := between(data, `"type":"`, `"`); typ != "" {
				fmt.Println(strings.TrimSpace(typ + " " + between(data, `"delta":"`, `"`)))
			} else {
				fmt.Println(data)
			}
		}
	}
	// Output:
	// start
	// start-step
	// text-start
	// text-delta Hello
	// text-delta  there.
	// text-end
	// finish-step
	// finish
	// [DONE]
}

// CopilotKit and other AG-UI clients post a RunAgentInput.
func ExampleNewAGUI() {
	runner, _ := turnrunner.New(scripted.New(scripted.Say("Hello.")), nil)
	agent := uistream.NewAGUI(runner, nil)
	defer agent.Close()
	srv := httptest.NewServer(agent)
	defer srv.Close()

	res, _ := http.Post(srv.URL, "application/json", strings.NewReader(
		`{"threadId":"t1","runId":"r1","messages":[{"id":"m1","role":"user","content":"Hi"}],"tools":[],"context":[]}`))
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, line := range strings.Split(string(body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			fmt.Println(between(data, `"type":"`, `"`))
		}
	}
	// Output:
	// RUN_STARTED
	// STEP_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT
	// TEXT_MESSAGE_END
	// STEP_FINISHED
	// RUN_FINISHED
}
