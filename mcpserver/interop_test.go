package mcpserver

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/internal/testdeps"
)

// tsResult is what testdata/client.cjs prints.
type tsResult struct {
	Server struct{ Name string }
	Tools  []struct {
		Name        string
		Description string
		InputSchema json.RawMessage
	}
	Results []struct {
		Meta    map[string]any `json:"_meta"`
		IsError bool
		Content []struct{ Type, Text, MIMEType, Data string }
	}
}

// tsClient runs the TypeScript SDK's client against target and decodes its
// report.
func tsClient(t *testing.T, mode, target, calls string) tsResult {
	t.Helper()
	node := testdeps.Node(t)
	modules := testdeps.NodeModules(t, "@modelcontextprotocol/sdk")
	script, err := filepath.Abs(filepath.Join("testdata", "client.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, script, mode, target, calls)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.cjs: %v\n%s", err, stderr.String())
	}
	var res tsResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	return res
}

// The official TypeScript client lists and calls the example server's
// tools over stdio.
func TestTypeScriptClientStdio(t *testing.T) {
	bin := testdeps.GoBuild(t, "./examples/mcp")
	res := tsClient(t, "stdio", bin,
		`[{"name":"order_status","arguments":{"order":"A-1001"}},{"name":"order_status","arguments":{"order":"A-1001","x":1}}]`)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"order_status", "stock"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if len(res.Results) != 2 {
		t.Fatalf("%d results", len(res.Results))
	}
	ok, bad := res.Results[0], res.Results[1]
	if ok.IsError || len(ok.Content) != 1 || ok.Content[0].Text != "A-1001: shipped yesterday, arriving Thursday" {
		t.Errorf("call: %+v", ok)
	}
	sum, err := canonical.ChecksumJSON("order_status", []byte(`{"order":"A-1001"}`))
	if err != nil {
		t.Fatal(err)
	}
	if ok.Meta["checksum"] != sum {
		t.Errorf("checksum %v, want %s", ok.Meta["checksum"], sum)
	}
	if !bad.IsError || !strings.Contains(bad.Content[0].Text, `E_INVALID_TOOL_ARGS`) || !strings.Contains(bad.Content[0].Text, `"x"`) {
		t.Errorf("call with an unknown key: %+v", bad)
	}
}

// The official TypeScript client lists and calls tools over streamable
// HTTP, including media.
func TestTypeScriptClientHTTP(t *testing.T) {
	addr, stop := startHTTP(t)
	defer stop()
	res := tsClient(t, "http", "http://"+addr+"/",
		`[{"name":"weather","arguments":{"city":"Oslo"}},{"name":"chart","arguments":{}},{"name":"fail","arguments":{}}]`)
	if len(res.Tools) != 6 {
		t.Errorf("%d tools, want the 6 visible ones", len(res.Tools))
	}
	if len(res.Results) != 3 {
		t.Fatalf("%d results", len(res.Results))
	}
	if got := res.Results[0].Content[0].Text; got != "sunny in Oslo␛[2J" {
		t.Errorf("weather: %q", got)
	}
	if c := res.Results[1].Content[0]; c.Type != "image" || c.MIMEType != "image/png" || c.Data == "" {
		t.Errorf("chart: %+v", c)
	}
	if r := res.Results[2]; !r.IsError || !strings.Contains(r.Content[0].Text, "the backend is down") {
		t.Errorf("fail: %+v", r)
	}
}
