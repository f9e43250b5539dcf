// Command chat is a terminal chat that remembers: every turn is stored in
// ./chat.db (SQLite), so quitting and starting again continues the same
// conversation. It runs on the scripted model (no keys, no network), whose
// answers show what it was sent: the turn's number in the conversation and
// what you said before. A line starting with "note " makes it call the
// save_note tool, whose result is stored with the turn; "/list" lists the
// stored conversations and "/quit" (or end of input) leaves.
//
//	go run ./examples/chat
//	go run ./examples/chat -conversation work -db /tmp/chat.db
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/examples/internal/modelenv"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/store/sqlitestore"
	"github.com/ebbforge/adk/turnrunner"
)

func main() {
	db := flag.String("db", "chat.db", "the SQLite file the conversation is kept in")
	conv := flag.String("conversation", "default", "the conversation to continue")
	flag.Parse()
	// The scripted model by default; a real one from ADK_PROVIDER,
	// ADK_BASE_URL, ADK_MODEL and ADK_API_KEY, as in the quickstart.
	cfg, err := modelenv.Load(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chat:", err)
		os.Exit(2)
	}
	model, err := cfg.New(scripted.NewFunc(brain))
	if err != nil {
		fmt.Fprintln(os.Stderr, "chat:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), model, os.Stdin, os.Stdout, *db, *conv); err != nil {
		fmt.Fprintln(os.Stderr, "chat:", cfg.Explain(err))
		os.Exit(1)
	}
}

type noteArgs struct {
	Text string `json:"text" jsonschema:"the note to keep"`
}

// run chats over in and out until "/quit" or the end of in.
func run(ctx context.Context, model llm.Model, in io.Reader, out io.Writer, dbPath, conv string) error {
	st, err := sqlitestore.Open(ctx, dbPath, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	note, err := forge.NewTypedTool("save_note", "Keep a note for the user.",
		func(ctx context.Context, a noteArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput("noted: " + a.Text), nil
		}, nil)
	if err != nil {
		return err
	}
	runner, err := turnrunner.New(model, &turnrunner.Options{
		Tools: []*forge.Tool{note},
		Store: st, SpoolStore: st.SpoolStore(),
		// The model sees the last 20 turns of the conversation.
		History: dispatch.HistoryOptions{LastTurns: 20},
	})
	if err != nil {
		return err
	}
	turns, err := st.Turns(ctx, conv)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "conversation %q: %d earlier turns in %s\n", conv, len(turns), dbPath)
	sc := bufio.NewScanner(in)
	for {
		fmt.Fprint(out, "> ")
		if !sc.Scan() {
			fmt.Fprintln(out)
			return sc.Err()
		}
		line := strings.TrimSpace(sc.Text())
		switch line {
		case "":
			continue
		case "/quit":
			return nil
		case "/list":
			cs, err := st.Conversations(ctx)
			if err != nil {
				return err
			}
			for _, c := range cs {
				fmt.Fprintf(out, "%s: %d turns, last %s\n", c.ID, c.Turns, c.UpdatedAt.Format("2006-01-02 15:04"))
			}
			continue
		}
		if err := turn(ctx, runner, out, conv, line); err != nil {
			return err
		}
	}
}

// turn runs one turn of the conversation and prints its answer as it streams.
func turn(ctx context.Context, runner *turnrunner.Runner, out io.Writer, conv, prompt string) error {
	events, err := runner.Run(ctx, turnrunner.Input{ConversationID: conv, Prompt: prompt})
	if err != nil {
		return err
	}
	for ev := range events { // the runner closes the channel after TurnEnd
		switch e := ev.(type) {
		case turnrunner.MessageDelta:
			fmt.Fprint(out, e.Delta)
		case turnrunner.ToolCallContent:
			if e.IsComplete && e.Call != nil {
				text, err := llm.RenderResult(ctx, e.Call)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "[%s: %s]\n", e.Tool, text)
			}
		case turnrunner.TurnEnd:
			fmt.Fprintln(out)
			if e.Status != turnrunner.TurnCompleted {
				return fmt.Errorf("turn %s: %v", e.Status, e.Err)
			}
		}
	}
	return nil
}

// brain is the scripted model: it answers from what it was sent, so the
// answers show the conversation's history reached it.
func brain(ctx context.Context, req *llm.Request) (scripted.Step, error) {
	var said []string
	for _, e := range req.Timeline {
		if m := e.Message; m != nil && m.Role() == dispatch.RoleUser {
			said = append(said, m.Text())
		}
	}
	last := req.Timeline[len(req.Timeline)-1]
	if last.ToolCall != nil {
		return scripted.Say("I saved that note."), nil
	}
	prompt := said[len(said)-1]
	if text, ok := strings.CutPrefix(prompt, "note "); ok {
		args := fmt.Sprintf(`{"text":%q}`, text)
		return scripted.Use(scripted.Call{ID: fmt.Sprintf("note-%d", len(said)), Name: "save_note", Args: args}), nil
	}
	answer := fmt.Sprintf("Turn %d of our conversation. You said %q.", len(said), prompt)
	if len(said) > 1 {
		answer += fmt.Sprintf(" Before that you said %q.", said[len(said)-2])
	}
	return scripted.Say(answer), nil
}
