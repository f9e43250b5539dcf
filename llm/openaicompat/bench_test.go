package openaicompat

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/ebbforge/adk/llm"
)

// fixedBody answers every request with one event stream, without network.
type fixedBody []byte

func (f fixedBody) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(f)), Request: r}, nil
}

// BenchmarkStream decodes a 2 000-chunk text stream with a 500-fragment
// tool call, in the 2025 wire format (usage: null and obfuscation on every
// chunk).
func BenchmarkStream(b *testing.B) {
	var buf bytes.Buffer
	chunk := func(delta string) {
		fmt.Fprintf(&buf, `data: {"id":"chatcmpl-CoDWqisNQ3ulIXyQYcUImFvlKIK2N","object":"chat.completion.chunk","created":1766084440,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_e413f45763","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"87KS9lGFk"}`+"\n\n", delta)
	}
	for i := range 2000 {
		chunk(fmt.Sprintf(`{"content":" word%d"}`, i))
	}
	chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}`)
	for i := range 500 {
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":"\"k%d\": 1, "}}]}`, i))
	}
	buf.WriteString(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
	m, err := New(Config{BaseURL: "http://bench.invalid/v1", Model: "m", HTTPClient: &http.Client{Transport: fixedBody(buf.Bytes())}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, req := context.Background(), &llm.Request{}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		for _, err := range m.Stream(ctx, req) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
