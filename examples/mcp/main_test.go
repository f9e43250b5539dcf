package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ebbforge/adk/internal/testdeps"
)

// The built example runs its agent against itself as an MCP server
// subprocess.
func TestExample(t *testing.T) {
	bin := testdeps.GoBuild(t, "./examples/mcp")
	out, err := exec.CommandContext(t.Context(), bin).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	for _, want := range []string{
		"tool shop_order_status: Where an order is.",
		"tool shop_stock: Stock levels by article number.",
		"<- shop_order_status error=false: A-1001: shipped yesterday, arriving Thursday",
		"<- shop_stock error=false: HD-03 3\nKB-01 14\nMS-02 0",
		"Mice (MS-02) are out of stock",
		"turn completed",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
