package openaicompat

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/internal/wiretest"
)

// FuzzDecoder feeds arbitrary chunk sequences (one per line) to the
// decoder and checks the assembly invariants: no panic; tool-call parts
// name an assembled call; each call's first part carries its id, and no
// two calls share a generated id.
func FuzzDecoder(f *testing.F) {
	wiretest.SeedFixtures(f)
	f.Add(`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f"}},{"function":{"arguments":"x"}},{"id":"a","index":3}]}}]}`)
	f.Add(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a"},{"index":0,"id":"b"},{"index":0}]}}]}` + "\n" + `{"error":"x"}`)
	f.Fuzz(func(t *testing.T, in string) {
		n := 0
		d := decoder{newID: func(i int) string { n++; return "gen" + strconv.Itoa(n) }}
		seen := map[int]bool{}
		check := func() {
			for _, p := range d.out {
				if p.Kind != llm.PartToolCall {
					continue
				}
				if p.Index < 0 || p.Index >= len(d.calls) {
					t.Fatalf("part for call %d of %d", p.Index, len(d.calls))
				}
				if !seen[p.Index] && p.ID == "" {
					t.Fatalf("call %d's first part has no id", p.Index)
				}
				seen[p.Index] = true
			}
			d.out = d.out[:0]
		}
		for _, chunk := range strings.Split(in, "\n") {
			if eb, err := d.chunk(chunk); eb != nil || err != nil {
				break
			}
			check()
		}
		d.end()
		check()
		ids := map[string]bool{}
		for _, c := range d.calls {
			if c.id == "" {
				t.Fatal("a call without an id")
			}
			if c.generated && ids[c.id] {
				t.Fatalf("generated id %q twice", c.id)
			}
			ids[c.id] = true
		}
	})
}
