package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strconv"
	"time"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/turnrunner"
)

// kitModel answers each request with the parts of step n, n being the
// number of tool calls in the request's timeline divided by perStep, as
// eino's fake model does from its messages: stateless, so one model serves
// every turn.
func kitModel(steps [][]llm.Part, perStep int) llm.Model {
	return llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		return func(yield func(llm.Part, error) bool) {
			calls := 0
			for _, e := range req.Timeline {
				if e.ToolCall != nil {
					calls++
				}
			}
			n := min(calls/perStep, len(steps)-1)
			for _, p := range steps[n] {
				if !yield(p, nil) {
					return
				}
			}
		}
	})
}

// kitCallSteps is iterations responses of perStep calls of tool, then an
// answer; args is a format for the call's number, so that no two calls are
// the same (the kit's loop guard would refuse repeats).
func kitCallSteps(iterations, perStep int, tool, args string) [][]llm.Part {
	steps := make([][]llm.Part, 0, iterations+1)
	for i := range iterations {
		var parts []llm.Part
		for j := range perStep {
			parts = append(parts, llm.ToolCallPart(j, "call_"+strconv.Itoa(i)+"_"+strconv.Itoa(j), tool, fmt.Sprintf(args, i*perStep+j)))
		}
		steps = append(steps, append(parts, llm.StopPart(llm.StopToolUse)))
	}
	return append(steps, []llm.Part{llm.TextPart("done"), llm.StopPart(llm.StopEnd)})
}

// kitDrain runs one turn and reads every event, as a UI would.
func kitDrain(r *turnrunner.Runner) (deltas int, err error) {
	ch, err := r.Run(context.Background(), turnrunner.Input{Prompt: "go"})
	if err != nil {
		return 0, err
	}
	for ev := range ch {
		switch e := ev.(type) {
		case turnrunner.MessageDelta:
			if !e.IsComplete {
				deltas++
			}
		case turnrunner.TurnEnd:
			if e.Status != turnrunner.TurnCompleted {
				err = fmt.Errorf("kit turn %s: %v", e.Status, e.Err)
			}
		}
	}
	return deltas, err
}

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// kitW1 is W1 on the kit: a typed tool adding two numbers.
func kitW1Runner() (*turnrunner.Runner, error) {
	add, _ := forge.NewTypedTool("add", "Adds two integers.",
		func(ctx context.Context, a addArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput(strconv.Itoa(a.A + a.B)), nil
		}, nil)
	return turnrunner.New(kitModel(kitCallSteps(w1Iterations, 1, "add", `{"a":%d,"b":2}`), 1),
		&turnrunner.Options{Tools: []*forge.Tool{add}})
}

func kitW1() (func() error, error) {
	add, err := forge.NewTypedTool("add", "Adds two integers.",
		func(ctx context.Context, a addArgs, inv forge.Invocation) (forge.Output, error) {
			return forge.TextOutput(strconv.Itoa(a.A + a.B)), nil
		}, nil)
	if err != nil {
		return nil, err
	}
	r, err := turnrunner.New(kitModel(kitCallSteps(w1Iterations, 1, "add", `{"a":%d,"b":2}`), 1),
		&turnrunner.Options{Tools: []*forge.Tool{add}})
	if err != nil {
		return nil, err
	}
	return func() error { _, err := kitDrain(r); return err }, nil
}

// kitW2 is W2 on the kit's default settings: 16 calls of a 10 ms tool in one response.
func kitW2() (func() error, error) {
	sleep, err := forge.NewTypedTool("sleep", "Waits 10 ms, as an I/O-bound call would.",
		func(ctx context.Context, a addArgs, inv forge.Invocation) (forge.Output, error) {
			time.Sleep(w2Sleep)
			return forge.TextOutput("slept"), nil
		}, nil)
	if err != nil {
		return nil, err
	}
	r, err := turnrunner.New(kitModel(kitCallSteps(1, w2Calls, "sleep", `{"a":%d,"b":2}`), w2Calls),
		&turnrunner.Options{Tools: []*forge.Tool{sleep}})
	if err != nil {
		return nil, err
	}
	return func() error { _, err := kitDrain(r); return err }, nil
}

// kitW3 is W3 on the kit: 10,000 text deltas through the event channel.
func kitW3() (func() error, error) {
	parts := make([]llm.Part, 0, w3Deltas+1)
	for range w3Deltas {
		parts = append(parts, llm.TextPart("tok "))
	}
	parts = append(parts, llm.StopPart(llm.StopEnd))
	r, err := turnrunner.New(kitModel([][]llm.Part{parts}, 1), nil)
	if err != nil {
		return nil, err
	}
	return func() error {
		n, err := kitDrain(r)
		if err == nil && n != w3Deltas {
			err = fmt.Errorf("kit delivered %d deltas, want %d", n, w3Deltas)
		}
		return err
	}, nil
}

// kitW4 is W4 on the kit: one call returning w4Size bytes of text (or a
// stream of them) into the given spool store (nil: the default memory
// store). A fresh runner per turn: its stores keep the turn.
func kitW4(reader bool, store func() (spooledartifact.Store, func(), error)) (func() error, error) {
	return func() error {
		big, err := forge.NewTypedTool("dump", "Returns a large text.",
			func(ctx context.Context, a addArgs, inv forge.Invocation) (forge.Output, error) {
				if reader {
					return forge.ReaderOutput(newTextStream(w4Size)), nil
				}
				return forge.TextOutput(bigText(w4Size)), nil
			}, nil)
		if err != nil {
			return err
		}
		opts := &turnrunner.Options{Tools: []*forge.Tool{big}}
		if store != nil {
			s, done, err := store()
			if err != nil {
				return err
			}
			defer done()
			opts.SpoolStore, opts.CleanupArtifacts = s, true
		}
		r, err := turnrunner.New(kitModel(kitCallSteps(1, 1, "dump", `{"a":%d,"b":2}`), 1), opts)
		if err != nil {
			return err
		}
		_, err = kitDrain(r)
		return err
	}, nil
}

// textStream gives n bytes of log-like lines without holding them.
type textStream struct {
	left int
	line []byte
	off  int
}

func newTextStream(n int) *textStream {
	return &textStream{left: n, line: []byte(w4Line)}
}

func (t *textStream) Read(p []byte) (int, error) {
	if t.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && t.left > 0 {
		c := copy(p[n:min(len(p), n+t.left)], t.line[t.off:])
		n, t.left, t.off = n+c, t.left-c, (t.off+c)%len(t.line)
	}
	return n, nil
}
