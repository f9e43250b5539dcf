package forge

import (
	"bytes"
	"testing"
)

// Definitions runs for every model request: it must not copy every tool's
// schema document each time.
func TestRegistryDefinitionsShareTheDocuments(t *testing.T) {
	r, _ := NewRegistry(namedTool(t, "a", nil), namedTool(t, "b", nil), namedTool(t, "c", nil))
	defs := r.Definitions()
	for _, d := range defs {
		tl, _ := r.Get(d.Name)
		if !bytes.Equal(d.Parameters, tl.Schema()) {
			t.Errorf("%s: parameters %s, want the tool's schema %s", d.Name, d.Parameters, tl.Schema())
		}
	}
	// The result only: nothing per tool.
	if n := testing.AllocsPerRun(20, func() { _ = r.Definitions() }); n != 1 {
		t.Errorf("Definitions of 3 tools: %v allocations, want 1", n)
	}
}
