package mcptool

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/testdeps"
	"github.com/ebbforge/adk/media"
)

// The toolset lists and calls the tools of a server written with the
// official TypeScript SDK, run by node as a subprocess.
func TestTypeScriptServer(t *testing.T) {
	node := testdeps.Node(t)
	modules := testdeps.NodeModules(t, "@modelcontextprotocol/sdk")
	script, err := filepath.Abs(filepath.Join("testdata", "server.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	ts := newToolset(t, func() mcp.Transport {
		cmd := exec.Command(node, script)
		cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
		return &mcp.CommandTransport{Command: cmd}
	}, &Options{Prefix: "ts_"})
	tools, err := ts.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name())
	}
	notes := toolName("ts_", "notes.read")
	if diff := cmp.Diff([]string{"ts_shout", notes, "ts_pixel"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	call := func(name, args string) (forge.Output, error) {
		return byName(t, tools, name).Execute(t.Context(), json.RawMessage(args), forge.Invocation{}, nil)
	}
	// The server's schema is open: a key it does not list reaches it.
	out, err := call("ts_shout", `{"text":"hi","volume":11}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "HI! keys: text,volume\n{\"length\":2}"; out.Text() != want {
		t.Errorf("shout = %q, want %q", out.Text(), want)
	}
	if _, err := call("ts_shout", `{"text":""}`); !errors.Is(err, ErrToolError) {
		t.Errorf("empty shout: err = %v, want ErrToolError", err)
	}
	if _, err := call("ts_shout", `{}`); !errors.Is(err, forge.ErrInvalidToolArgs) {
		t.Errorf("no text: err = %v, want ErrInvalidToolArgs", err)
	}
	if out, err := call(notes, `{}`); err != nil || out.Text() != "buy milk" {
		t.Errorf("notes = %q, %v", out.Text(), err)
	}
	out, err = call("ts_pixel", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if m := out.Media(); len(m) != 1 || m[0].Kind() != media.KindImage || m[0].MIMEType() != "image/png" || m[0].TrustTier() != media.ThirdPartyPrivate {
		t.Errorf("pixel media: %+v", m)
	}
}
