// Command sdkdecode measures how fast the kit's provider adapters decode
// and assemble a large streamed response, against the official SDKs
// (openai-go, anthropic-sdk-go and genai) decoding the same bytes in the
// same run.
//
//	go run . -rounds 9 -reps 20
//
// Both sides go through their public streaming API with an in-memory HTTP
// transport that answers with the generated stream, so the work measured
// is the same: read the SSE body, decode every event, assemble text and
// tool calls. Rounds alternate between the two sides; the table shows the
// median of the rounds, and heap allocations per stream chunk.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	sdkanthropic "github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/anthropic"
	"github.com/ebbforge/adk/llm/gemini"
	"github.com/ebbforge/adk/llm/openaicompat"
)

func main() {
	rounds := flag.Int("rounds", 9, "alternating rounds per comparison")
	reps := flag.Int("reps", 20, "streams decoded per side per round")
	flag.Parse()
	fmt.Printf("%-34s %12s %12s %8s %14s %14s\n", "stream", "ours MB/s", "SDK MB/s", "ratio", "ours allocs/ch", "SDK allocs/ch")
	for _, c := range []comparison{openAIComparison(), anthropicComparison(), geminiComparison()} {
		if err := c.check(); err != nil {
			fmt.Fprintln(os.Stderr, "sdkdecode:", err)
			os.Exit(1)
		}
		c.run(*rounds, *reps)
	}
}

// result is what one side assembled, to check both sides agree.
type result struct {
	text  int
	calls []string
}

type comparison struct {
	name   string
	body   []byte
	chunks int
	ours   func() (result, error)
	sdk    func() (result, error)
}

func (c comparison) check() error {
	a, err := c.ours()
	if err != nil {
		return fmt.Errorf("%s ours: %w", c.name, err)
	}
	b, err := c.sdk()
	if err != nil {
		return fmt.Errorf("%s sdk: %w", c.name, err)
	}
	for i := range a.calls {
		a.calls[i] = compact(a.calls[i])
	}
	for i := range b.calls {
		b.calls[i] = compact(b.calls[i])
	}
	if a.text != b.text || !slices.Equal(a.calls, b.calls) {
		return fmt.Errorf("%s: the two sides disagree: %d/%d text bytes, %d/%d calls", c.name, a.text, b.text, len(a.calls), len(b.calls))
	}
	return nil
}

func (c comparison) run(rounds, reps int) {
	var oursMBs, sdkMBs, oursAllocs, sdkAllocs []float64
	measure := func(f func() (result, error)) (mbs, allocs float64) {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		for range reps {
			if _, err := f(); err != nil {
				panic(err)
			}
		}
		d := time.Since(start)
		runtime.ReadMemStats(&after)
		return float64(len(c.body)*reps) / d.Seconds() / 1e6, float64(after.Mallocs-before.Mallocs) / float64(c.chunks*reps)
	}
	for range rounds {
		m, a := measure(c.ours)
		oursMBs, oursAllocs = append(oursMBs, m), append(oursAllocs, a)
		m, a = measure(c.sdk)
		sdkMBs, sdkAllocs = append(sdkMBs, m), append(sdkAllocs, a)
	}
	o, s := median(oursMBs), median(sdkMBs)
	fmt.Printf("%-34s %12.1f %12.1f %7.2fx %14.2f %14.2f\n", fmt.Sprintf("%s (%.1f MB, %d chunks)", c.name, float64(len(c.body))/1e6, c.chunks),
		o, s, o/s, median(oursAllocs), median(sdkAllocs))
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return "INVALID " + s
	}
	return b.String()
}

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// fixed answers every request with one stream.
type fixed []byte

func (f fixed) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(f)), Request: r}, nil
}

func collect(seq func(func(llm.Part, error) bool)) (result, error) {
	var r result
	args := map[int]*strings.Builder{}
	for p, err := range seq {
		if err != nil {
			return r, err
		}
		switch p.Kind {
		case llm.PartText:
			r.text += len(p.Text)
		case llm.PartToolCall:
			b := args[p.Index]
			if b == nil {
				b = &strings.Builder{}
				args[p.Index] = b
			}
			b.WriteString(p.Text)
		}
	}
	for i := range len(args) {
		r.calls = append(r.calls, args[i].String())
	}
	return r, nil
}

// Stream sizes: text chunks, then parallel tool calls in fragments.
const (
	textChunks    = 4000
	calls         = 4
	callFragments = 250
)

var words = []string{" the", " model", " streams", " a", " long", " answer", ",", " with", " tokens", " like", " these", "."}

func openAIStream() ([]byte, int) {
	var b bytes.Buffer
	n := 0
	chunk := func(delta, finish string) {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-CoDWqisNQ3ulIXyQYcUImFvlKIK2N","object":"chat.completion.chunk","created":1766084440,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_e413f45763","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null,"obfuscation":"87KS9lGFk"}`+"\n\n", delta, finish)
		n++
	}
	chunk(`{"role":"assistant","content":"","refusal":null}`, "null")
	for i := range textChunks {
		chunk(fmt.Sprintf(`{"content":%q}`, words[i%len(words)]), "null")
	}
	for c := range calls {
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_M26z19sncd7b4LBgzKRRba%02d","type":"function","function":{"name":"lookup","arguments":""}}]}`, c, c), "null")
		for i := range callFragments {
			frag := argFragment(i)
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":"%s"}}]}`, c, frag), "null")
		}
	}
	chunk(`{}`, `"tool_calls"`)
	b.WriteString(`data: {"id":"chatcmpl-CoDWqisNQ3ulIXyQYcUImFvlKIK2N","object":"chat.completion.chunk","created":1766084440,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_e413f45763","choices":[],"usage":{"prompt_tokens":149,"completion_tokens":28,"total_tokens":177,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"ONyRZVWpbfj5S"}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes(), n + 1
}

// newComparison serves body to both sides through an in-memory transport.
func newComparison(name string, body []byte, chunks int, ours func(*http.Client) (llm.Model, error),
	sdk func(context.Context, *http.Client) func() (result, error)) comparison {
	client := &http.Client{Transport: fixed(body)}
	m, err := ours(client)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	return comparison{name: name, body: body, chunks: chunks,
		ours: func() (result, error) { return collect(m.Stream(ctx, &llm.Request{})) },
		sdk:  sdk(ctx, client)}
}

func openAIComparison() comparison {
	body, chunks := openAIStream()
	ours := func(client *http.Client) (llm.Model, error) {
		return openaicompat.New(openaicompat.Config{BaseURL: "http://bench.invalid/v1", Model: "gpt-4o", HTTPClient: client})
	}
	return newComparison("openai chat.completion.chunk", body, chunks, ours, func(ctx context.Context, client *http.Client) func() (result, error) {
		sdk := openai.NewClient(ooption.WithBaseURL("http://bench.invalid/v1"), ooption.WithAPIKey("k"), ooption.WithHTTPClient(client), ooption.WithMaxRetries(0))
		return func() (result, error) {
			stream := sdk.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: "gpt-4o",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
			var acc openai.ChatCompletionAccumulator
			for stream.Next() {
				acc.AddChunk(stream.Current())
			}
			if err := stream.Err(); err != nil {
				return result{}, err
			}
			var r result
			msg := acc.Choices[0].Message
			r.text = len(msg.Content)
			for _, tc := range msg.ToolCalls {
				r.calls = append(r.calls, tc.Function.Arguments)
			}
			return r, nil
		}
	})
}

// argFragment is the i-th piece of a call's arguments, as JSON string
// content: together the pieces make one object.
func argFragment(i int) string {
	switch i {
	case 0:
		return `{\"k0\": \"value 0\", `
	case callFragments - 1:
		return fmt.Sprintf(`\"end\": %d}`, i)
	}
	return fmt.Sprintf(`\"k%d\": \"value %d\", `, i, i)
}

func anthropicStream() ([]byte, int) {
	var b bytes.Buffer
	n := 0
	event := func(name, data string) {
		fmt.Fprintf(&b, "event: %s\ndata: %s%s\n\n", name, data, strings.Repeat(" ", n%13))
		n++
	}
	event("message_start", `{"type":"message_start","message":{"model":"claude-sonnet-4-20250514","id":"msg_01KTBB57LAzaSZs8kMNvfnsY","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":424,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5,"service_tier":"standard"}}}`)
	event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	for i := range textChunks {
		if i%100 == 50 {
			event("ping", `{"type": "ping"}`)
		}
		event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, words[i%len(words)]))
	}
	event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	for c := range calls {
		idx := c + 1
		event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_01RaX2WYWRWCbaeFHssmGJ%02d","name":"lookup","input":{}}}`, idx, c))
		event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":""}}`, idx))
		for i := range callFragments {
			frag := argFragment(i)
			event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"%s"}}`, idx, frag))
		}
		event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, idx))
	}
	event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":424,"output_tokens":9000}}`)
	event("message_stop", `{"type":"message_stop"}`)
	return b.Bytes(), n
}

func anthropicComparison() comparison {
	body, chunks := anthropicStream()
	ours := func(client *http.Client) (llm.Model, error) {
		return anthropic.New(anthropic.Config{BaseURL: "http://bench.invalid", Model: "claude", HTTPClient: client})
	}
	return newComparison("anthropic messages stream", body, chunks, ours, func(ctx context.Context, client *http.Client) func() (result, error) {
		sdk := sdkanthropic.NewClient(aoption.WithBaseURL("http://bench.invalid"), aoption.WithAPIKey("k"), aoption.WithHTTPClient(client), aoption.WithMaxRetries(0))
		params := sdkanthropic.MessageNewParams{Model: "claude", MaxTokens: 1024,
			Messages: []sdkanthropic.MessageParam{sdkanthropic.NewUserMessage(sdkanthropic.NewTextBlock("hi"))}}
		return func() (result, error) {
			stream := sdk.Messages.NewStreaming(ctx, params)
			var msg sdkanthropic.Message
			for stream.Next() {
				if err := msg.Accumulate(stream.Current()); err != nil {
					return result{}, err
				}
			}
			if err := stream.Err(); err != nil {
				return result{}, err
			}
			var r result
			for _, blk := range msg.Content {
				switch blk.Type {
				case "text":
					r.text += len(blk.Text)
				case "tool_use":
					r.calls = append(r.calls, string(blk.Input))
				}
			}
			return r, nil
		}
	})
}

// geminiStream is the Gemini API's form of the same response: text parts,
// each chunk with its usageMetadata, then the calls whole (the API does not
// split them) in one chunk, CRLF framing and no terminator.
func geminiStream() ([]byte, int) {
	var b bytes.Buffer
	n := 0
	chunk := func(parts, finish string) {
		fmt.Fprintf(&b, `data: {"candidates": [{"content": {"parts": [%s],"role": "model"}%s,"index": 0}],"usageMetadata": {"promptTokenCount": 218,"candidatesTokenCount": %d,"totalTokenCount": %d,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 218}]},"modelVersion": "gemini-2.5-flash","responseId": "XgCzaazDItHRz7IPmsmB4Qk"}`+"\r\n\r\n", parts, finish, n+1, 219+n)
		n++
	}
	for i := range textChunks {
		chunk(fmt.Sprintf(`{"text": %q}`, words[i%len(words)]), "")
	}
	var callParts []string
	for c := range calls {
		var args []string
		for i := range callFragments {
			args = append(args, fmt.Sprintf(`"k%03d":"value %d"`, i, i))
		}
		part := fmt.Sprintf(`{"functionCall": {"name": "lookup","args": {%s}}}`, strings.Join(args, ","))
		if c == 0 {
			part = part[:len(part)-1] + `,"thoughtSignature": "CloBvj72+4/aTlyeodvVsF6WQseQLaqynO0Ocu6hCxSIV1rJCGFv67dtpjtFqWaborKte+82ZXWG2DaoPZaL"}`
		}
		callParts = append(callParts, part)
	}
	chunk(strings.Join(callParts, ","), `,"finishReason": "STOP","finishMessage": "Model generated function call(s)."`)
	return b.Bytes(), n
}

func geminiComparison() comparison {
	body, chunks := geminiStream()
	ours := func(client *http.Client) (llm.Model, error) {
		return gemini.New(gemini.Config{BaseURL: "http://bench.invalid/v1beta", Model: "gemini-2.5-flash", HTTPClient: client})
	}
	return newComparison("gemini streamGenerateContent", body, chunks, ours, func(ctx context.Context, client *http.Client) func() (result, error) {
		sdk, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPClient: client,
			HTTPOptions: genai.HTTPOptions{BaseURL: "http://bench.invalid/"}})
		if err != nil {
			panic(err)
		}
		return func() (result, error) {
			var r result
			for resp, err := range sdk.Models.GenerateContentStream(ctx, "gemini-2.5-flash", genai.Text("hi"), nil) {
				if err != nil {
					return result{}, err
				}
				if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
					continue
				}
				for _, p := range resp.Candidates[0].Content.Parts {
					r.text += len(p.Text)
					if p.FunctionCall != nil {
						args, err := json.Marshal(p.FunctionCall.Args)
						if err != nil {
							return result{}, err
						}
						r.calls = append(r.calls, string(args))
					}
				}
			}
			return r, nil
		}
	})
}
