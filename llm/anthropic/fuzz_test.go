package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

// FuzzDecoder feeds arbitrary event payloads (one per line) to the
// decoder: no panic, part indexes within the blocks seen, and every thought
// payload valid JSON.
func FuzzDecoder(f *testing.F) {
	wiretest.SeedFixtures(f)
	f.Add(`{"type":"content_block_delta","index":70000,"delta":{"type":"text_delta","text":"x"}}` + "\n" + `{"type":"content_block_stop","index":-1}`)
	f.Fuzz(func(t *testing.T, in string) {
		var d decoder
		for _, ev := range strings.Split(in, "\n") {
			if eb, err := d.event(ev); eb != nil || err != nil {
				break
			}
		}
		d.end()
		for _, p := range d.out {
			switch p.Kind {
			case llm.PartThought:
				if p.Index < 0 || p.Index >= d.thinks {
					t.Fatalf("thought %d of %d", p.Index, d.thinks)
				}
				if p.Payload != nil && !json.Valid(p.Payload) {
					t.Fatalf("invalid payload %s", p.Payload)
				}
			case llm.PartToolCall:
				if p.Index < 0 || p.Index >= d.calls {
					t.Fatalf("call %d of %d", p.Index, d.calls)
				}
			}
		}
		if len(d.blocks) > 1<<16+1 {
			t.Fatalf("%d blocks", len(d.blocks))
		}
	})
}
