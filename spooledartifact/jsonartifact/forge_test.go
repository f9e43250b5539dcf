package jsonartifact_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/jsonartifact"
	"github.com/ebbforge/adk/spooledartifact/mdartifact"
)

// TestForgeMixedKinds forges tools over plain, JSON and Markdown results:
// the base seven take every call, each kind's tools only its own calls.
func TestForgeMixedKinds(t *testing.T) {
	ctx := context.Background()
	store := spooledartifact.NewMemoryStore()
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	spool := func(id string, kind forge.ArtifactKind, text string, fromArtifactTool bool) *forge.ToolCall {
		a, err := spooledartifact.SpoolString(ctx, store, id, kind, text)
		if err != nil {
			t.Fatal(err)
		}
		c, err := forge.NewToolCall(forge.RawToolCall{ID: id, Tool: "fetch", Args: map[string]any{},
			Checksum: strings.Repeat("a", 64), Results: a, IsComplete: true,
			FromArtifactTool: fromArtifactTool, CreatedAt: t0, CompletedAt: t0})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	calls := []*forge.ToolCall{
		spool("plain_1", nil, "alpha\nbeta", false),
		spool("json_1", jsonartifact.Kind{}, `{"a":{"b":1}}`, false),
		spool("md_1", mdartifact.Kind{}, "# Title\n[x](https://x.example)", false),
		spool("jsonl_1", jsonartifact.Kind{Format: jsonartifact.FormatNDJSON}, "{\"a\":1}\n{\"a\":2}\n", false),
		spool("grep_of_json", jsonartifact.Kind{}, `{}`, true), // an artifact tool's answer: never queryable
	}
	var f spooledartifact.Forger
	tools, err := f.Update(calls)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := forge.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	run := func(tool, args string) (string, error) {
		tl, _ := reg.Get(tool)
		out, err := tl.Execute(ctx, json.RawMessage(args), forge.Invocation{CallID: strings.Repeat("b", 64)}, nil)
		return out.Text(), err
	}
	// accepted lists the ids tool takes: the schemas do not list them, the
	// handler refuses the others with ErrNotFound. The tool's other
	// required parameters get a value of their type, so validation passes.
	accepted := func(name string) []string {
		tl, ok := reg.Get(name)
		if !ok {
			t.Fatalf("tool %s not forged", name)
		}
		args := map[string]any{}
		for _, r := range gjson.GetBytes(tl.Schema(), "required").Array() {
			prop := gjson.GetBytes(tl.Schema(), "properties."+r.Str)
			switch prop.Get("type").Str {
			case "integer", "number":
				args[r.Str] = 1
			case "boolean":
				args[r.Str] = false
			case "array":
				args[r.Str] = []string{"a"}
			default:
				args[r.Str] = "a"
				if first := prop.Get("enum.0"); first.Exists() {
					args[r.Str] = first.Value()
				}
			}
		}
		var ids []string
		for _, c := range calls {
			args["callId"] = c.ID()
			args, _ := json.Marshal(args)
			if _, err := run(name, string(args)); !errors.Is(err, spooledartifact.ErrNotFound) {
				ids = append(ids, c.ID())
			}
		}
		slices.Sort(ids)
		return ids
	}
	all := []string{"json_1", "jsonl_1", "md_1", "plain_1"}
	jsonIDs := []string{"json_1", "jsonl_1"}
	mdIDs := []string{"md_1"}
	want := map[string][]string{}
	for _, m := range spooledartifact.EffectiveMethods(nil) {
		want[m.Tool] = all
	}
	for _, m := range (jsonartifact.Kind{}).Methods() {
		want[m.Tool] = jsonIDs
	}
	for _, m := range (mdartifact.Kind{}).Methods() {
		want[m.Tool] = mdIDs
	}
	if len(want) != 7+7+8 {
		t.Fatalf("expected 22 distinct tools, have %d", len(want))
	}
	got := map[string][]string{}
	for _, tl := range reg.All() {
		got[tl.Name()] = accepted(tl.Name())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("forged tools and the callIds they accept (-want +got):\n%s", diff)
	}

	for _, c := range []struct{ tool, args, want string }{
		{"artifact_json_get", `{"callId":"json_1","path":"a.b"}`, "1"},
		{"artifact_json_type", `{"callId":"jsonl_1"}`, "ndjson"},
		{"artifact_md_links", `{"callId":"md_1"}`, "[\n  {\n    \"text\": \"x\",\n    \"url\": \"https://x.example\"\n  }\n]"},
		{"artifact_head", `{"callId":"md_1","n":1}`, "# Title"},
	} {
		out, err := run(c.tool, c.args)
		if err != nil || out != c.want {
			t.Errorf("%s %s = %q, %v; want %q", c.tool, c.args, out, err, c.want)
		}
	}
	// A Markdown call is not one the JSON tools query.
	if _, err := run("artifact_json_keys", `{"callId":"md_1"}`); !errors.Is(err, forge.ErrInvalidToolArgs) {
		t.Errorf("json tool on a markdown call: err = %v, want ErrInvalidToolArgs", err)
	}
}

// TestJSONLinesRecordsAreLines: a JSON Lines export ends every record with
// a '\n', which ends the record's line rather than starting another, so
// 50,000 records are 50,000 lines and the last two lines are the last two
// records, in memory and on disk.
func TestJSONLinesRecordsAreLines(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	for i := range 50000 {
		b.WriteString(`{"id":` + strconv.Itoa(i) + "}\n")
	}
	disk, err := spooledartifact.NewDiskStore(t.TempDir(), &spooledartifact.DiskOptions{SpillThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	for name, store := range map[string]spooledartifact.Store{"memory": spooledartifact.NewMemoryStore(), "disk": disk} {
		a, err := spooledartifact.SpoolString(ctx, store, "export", jsonartifact.Kind{Format: jsonartifact.FormatNDJSON}, b.String())
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		c, err := forge.NewToolCall(forge.RawToolCall{ID: "export", Tool: "export", Args: map[string]any{},
			Checksum: strings.Repeat("a", 64), Results: a, IsComplete: true, CreatedAt: t0, CompletedAt: t0})
		if err != nil {
			t.Fatal(err)
		}
		var f spooledartifact.Forger
		tools, err := f.Update([]*forge.ToolCall{c})
		if err != nil {
			t.Fatal(err)
		}
		reg, err := forge.NewRegistry(tools...)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct{ tool, args, want string }{
			{"artifact_line_count", `{"callId":"export"}`, "50000"},
			{"artifact_tail", `{"callId":"export","n":2}`, `{"id":49998}` + "\n" + `{"id":49999}`},
		} {
			tl, _ := reg.Get(tt.tool)
			out, err := tl.Execute(ctx, json.RawMessage(tt.args), forge.Invocation{CallID: strings.Repeat("b", 64)}, nil)
			if err != nil || out.Text() != tt.want {
				t.Errorf("%s: %s = %q, %v; want %q", name, tt.tool, out.Text(), err, tt.want)
			}
		}
	}
}
