package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
)

// einoModel is the fake ToolCallingChatModel: like kitModel it picks step
// n from the tool results in its input, and its messages are built once.
// Stream, when deltas > 0, pipes that many text chunks from a goroutine,
// as a provider's stream reader does.
type einoModel struct {
	steps   []*schema.Message
	perStep int
	deltas  int
}

func (m *einoModel) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	results := 0
	for _, msg := range in {
		if msg.Role == schema.Tool {
			results++
		}
	}
	return m.steps[min(results/m.perStep, len(m.steps)-1)], nil
}

func (m *einoModel) Stream(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	if m.deltas == 0 {
		msg, err := m.Generate(ctx, in)
		if err != nil {
			return nil, err
		}
		return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
	}
	sr, sw := schema.Pipe[*schema.Message](64)
	go func() {
		defer sw.Close()
		for range m.deltas {
			if sw.Send(&schema.Message{Role: schema.Assistant, Content: "tok "}, nil) {
				return
			}
		}
	}()
	return sr, nil
}

func (m *einoModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

// einoCallSteps mirrors kitCallSteps.
func einoCallSteps(iterations, perStep int, tool, args string) []*schema.Message {
	steps := make([]*schema.Message, 0, iterations+1)
	for i := range iterations {
		msg := &schema.Message{Role: schema.Assistant}
		for j := range perStep {
			msg.ToolCalls = append(msg.ToolCalls, schema.ToolCall{ID: "call_" + strconv.Itoa(i) + "_" + strconv.Itoa(j), Type: "function",
				Function: schema.FunctionCall{Name: tool, Arguments: fmt.Sprintf(args, i*perStep+j)}})
		}
		steps = append(steps, msg)
	}
	return append(steps, &schema.Message{Role: schema.Assistant, Content: "done"})
}

func einoAgent(m *einoModel, t tool.BaseTool) (*react.Agent, error) {
	return react.NewAgent(context.Background(), &react.AgentConfig{
		ToolCallingModel: m,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{t}},
		MaxStep:          4*w1Iterations + 4,
	})
}

func einoGenerate(a *react.Agent) error {
	out, err := a.Generate(context.Background(), []*schema.Message{schema.UserMessage("go")})
	if err == nil && out.Content != "done" {
		err = fmt.Errorf("eino answered %q", out.Content)
	}
	return err
}

// einoW1 is W1 on eino: the same typed tool through utils.InferTool.
func einoW1() (func() error, error) {
	add, err := utils.InferTool("add", "Adds two integers.", func(ctx context.Context, a addArgs) (string, error) {
		return strconv.Itoa(a.A + a.B), nil
	})
	if err != nil {
		return nil, err
	}
	a, err := einoAgent(&einoModel{steps: einoCallSteps(w1Iterations, 1, "add", `{"a":%d,"b":2}`), perStep: 1}, add)
	if err != nil {
		return nil, err
	}
	return func() error { return einoGenerate(a) }, nil
}

// einoW2 is W2 on eino's defaults (its tools node runs every call of a
// response on its own goroutine).
func einoW2() (func() error, error) {
	sleep, err := utils.InferTool("sleep", "Waits 10 ms, as an I/O-bound call would.", func(ctx context.Context, a addArgs) (string, error) {
		time.Sleep(w2Sleep)
		return "slept", nil
	})
	if err != nil {
		return nil, err
	}
	a, err := einoAgent(&einoModel{steps: einoCallSteps(1, w2Calls, "sleep", `{"a":%d,"b":2}`), perStep: w2Calls}, sleep)
	if err != nil {
		return nil, err
	}
	return func() error { return einoGenerate(a) }, nil
}

// einoW3 is W3 on eino: the agent's Stream, read to the end.
func einoW3() (func() error, error) {
	noop, err := utils.InferTool("noop", "Does nothing.", func(ctx context.Context, a addArgs) (string, error) { return "", nil })
	if err != nil {
		return nil, err
	}
	a, err := einoAgent(&einoModel{steps: einoCallSteps(0, 1, "", ""), perStep: 1, deltas: w3Deltas}, noop)
	if err != nil {
		return nil, err
	}
	return func() error {
		sr, err := a.Stream(context.Background(), []*schema.Message{schema.UserMessage("go")})
		if err != nil {
			return err
		}
		defer sr.Close()
		n := 0
		for {
			msg, err := sr.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if msg.Content != "" {
				n++
			}
		}
		if n != w3Deltas {
			return fmt.Errorf("eino delivered %d deltas, want %d", n, w3Deltas)
		}
		return nil
	}, nil
}

// einoW4 is W4 on eino: the tool's string becomes the tool message as is.
func einoW4() (func() error, error) {
	return func() error {
		dump, err := utils.InferTool("dump", "Returns a large text.", func(ctx context.Context, a addArgs) (string, error) {
			return bigText(w4Size), nil
		})
		if err != nil {
			return err
		}
		a, err := einoAgent(&einoModel{steps: einoCallSteps(1, 1, "dump", `{"a":%d,"b":2}`), perStep: 1}, dump)
		if err != nil {
			return err
		}
		return einoGenerate(a)
	}, nil
}
