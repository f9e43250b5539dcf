// Command webui serves a small chat page (plain HTML and JavaScript, no
// build step) that streams turns over the Vercel AI SDK UI message stream:
// text as it streams, collapsible thoughts, a card per tool call going from
// running to done with its result or handle, approval buttons for a gated
// tool, and loop-guard warnings.
//
//	go run ./examples/webui            # then open http://127.0.0.1:8080
//	go run ./examples/webui -addr :9000
//
// It runs on the built-in scripted model: no keys, no network. Any prompt
// plays the same script: the model thinks, searches the logs, fetches a
// page whose content is markup (shown as text), exports the logs (large
// enough to become a handle), repeats its search (the loop guard blocks
// it), asks to delete a file (approve or deny it in the page) and answers.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/examples/internal/modelenv"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
	"github.com/ebbforge/adk/uistream"
)

//go:embed static
var static embed.FS

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	if err := run(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "webui:", err)
		os.Exit(1)
	}
}

func run(addr string) error {
	// The scripted model by default; a real one from ADK_PROVIDER,
	// ADK_BASE_URL, ADK_MODEL and ADK_API_KEY, as in the quickstart.
	cfg, err := modelenv.Load(os.Getenv)
	if err != nil {
		return err
	}
	model, err := cfg.New(scriptedModel())
	if err != nil {
		return err
	}
	log.Printf("webui: model %s", cfg)
	h, closeChat, err := newServer(model)
	if err != nil {
		return err
	}
	defer closeChat()
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Printf("webui: open http://%s", addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newServer is the page and its chat endpoint on model; call the returned
// func on shutdown.
func newServer(model llm.Model) (http.Handler, func(), error) {
	runner, err := turnrunner.New(model, &turnrunner.Options{
		Tools:           tools(),
		RequireApproval: []string{"delete_file"},
		// Outputs over 1 KB reach the model as a handle it reads with the
		// artifact tools; the page shows the handle.
		ResultHooks: []turnrunner.ResultHook{spooledartifact.HandleAbove(1 << 10)},
		Loop:        dispatch.LoopPolicy{MaxIdenticalCalls: 1},
	})
	if err != nil {
		return nil, nil, err
	}
	chat := uistream.NewAISDK(runner, &uistream.Options{
		Prepare: func(r *http.Request, in *turnrunner.Input) error {
			in.System = "You are a careful operations assistant."
			return nil
		},
	})
	page, err := fs.Sub(static, "static")
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/api/chat", chat)
	mux.Handle("/", http.FileServerFS(page))
	return securityHeaders(mux), chat.Close, nil
}

// securityHeaders forbids inline scripts and framing: even markup that
// slipped into the page could not run.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

type queryArgs struct {
	Query string `json:"query" jsonschema:"what to search for"`
}

type urlArgs struct {
	URL string `json:"url" jsonschema:"the page to fetch"`
}

type pathArgs struct {
	Path string `json:"path" jsonschema:"the file to delete"`
}

type noArgs struct{}

func tools() []*forge.Tool {
	must := func(t *forge.Tool, err error) *forge.Tool {
		if err != nil {
			panic(err)
		}
		return t
	}
	return []*forge.Tool{
		must(forge.NewTypedTool("search_logs", "Search the service logs.",
			func(ctx context.Context, a queryArgs, _ forge.Invocation) (forge.Output, error) {
				return forge.TextOutput("3 matches for " + a.Query + " in /var/log/app (oldest 41 days)"), nil
			}, nil)),
		must(forge.NewTypedTool("fetch_page", "Fetch a web page.",
			func(ctx context.Context, a urlArgs, _ forge.Invocation) (forge.Output, error) {
				return forge.TextOutput(`<script>window.pwned = true; document.title = "pwned"</script><b>retention: 30 days</b>`), nil
			}, nil)),
		must(forge.NewTypedTool("export_logs", "Export the full log.",
			func(ctx context.Context, _ noArgs, _ forge.Invocation) (forge.Output, error) {
				var b strings.Builder
				for i := range 200 {
					fmt.Fprintf(&b, "2026-01-%02d INFO request served in %dms\n", i%28+1, i%97)
				}
				return forge.TextOutput(b.String()), nil
			}, nil)),
		must(forge.NewTypedTool("delete_file", "Delete a file (needs the user's approval).",
			func(ctx context.Context, a pathArgs, _ forge.Invocation) (forge.Output, error) {
				return forge.TextOutput("deleted " + a.Path), nil
			}, nil)),
	}
}

// scriptedModel plays the demo script by iteration, for every prompt.
func scriptedModel() llm.Model {
	steps := []scripted.Step{
		{
			Thoughts: []string{"The user wants old logs cleaned up. ", "I should look before deleting anything."},
			Text:     []string{"Let me check ", "the logs first."},
			Calls: []scripted.Call{
				{Name: "search_logs", Args: `{"query":"older than 30 days"}`},
				{Name: "fetch_page", Args: `{"url":"https://intranet.example/retention"}`},
				{Name: "export_logs", Args: `{}`},
			},
		},
		{Calls: []scripted.Call{
			{Name: "search_logs", Args: `{"query":"older than 30 days"}`},
			{Name: "delete_file", Args: `{"path":"/var/log/app/2025-12.log"}`},
		}},
		scripted.Say("All done: ", "the old log file is handled ", "and retention is 30 days."),
	}
	return scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		if req.Iteration < len(steps) {
			return steps[req.Iteration], nil
		}
		return steps[len(steps)-1], nil
	})
}
