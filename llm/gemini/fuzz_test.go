package gemini

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

// FuzzDecoder feeds arbitrary responses (one per line) to the decoder: no
// panic, part indexes within the calls and thought blocks seen, every
// call with an id and object arguments, every payload valid JSON.
func FuzzDecoder(f *testing.F) {
	_, replies := wiretest.LoadExchanges(f, "gemini-stream-function-calls-roundtrip.json")
	for _, r := range replies {
		var data []string
		for _, line := range strings.Split(r.Body, "\r\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
		f.Add(strings.Join(data, "\n"))
	}
	f.Add(chunk(`{"text":"a","thought":true,"thoughtSignature":"x"},{"text":"","thoughtSignature":"y"},{"functionCall":{"name":"f","args":[1]}}`, `,"finishReason":"STOP"`, ""))
	f.Add(`[{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"-5s"}]}}]`)
	f.Fuzz(func(t *testing.T, in string) {
		n := 0
		d := decoder{newID: func() string { n++; return strconv.Itoa(n) }}
		for _, line := range strings.Split(in, "\n") {
			if eb, err := d.chunk(line); eb != nil || err != nil {
				break
			}
		}
		d.end()
		for _, p := range d.out {
			if p.Payload != nil && !json.Valid(p.Payload) {
				t.Fatalf("invalid payload %s", p.Payload)
			}
			switch p.Kind {
			case llm.PartThought:
				if p.Index < 0 || p.Index >= d.thinks {
					t.Fatalf("thought %d of %d", p.Index, d.thinks)
				}
			case llm.PartToolCall:
				if p.Index < 0 || p.Index >= d.calls || p.ID == "" || !isObject(json.RawMessage(p.Text)) {
					t.Fatalf("call %+v of %d", p, d.calls)
				}
			}
		}
	})
}
