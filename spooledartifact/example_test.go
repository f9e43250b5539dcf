package spooledartifact_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
)

func Example() {
	ctx := context.Background()
	store := spooledartifact.NewMemoryStore()
	r, _ := spooledartifact.WriteString(ctx, store, "call_1", "GET /a 200\nGET /b 500\nPOST /c 200\nGET /d 503")
	a := spooledartifact.New("call_1", r)

	head, _ := a.Head(ctx, 2)
	tail, _ := a.Tail(ctx, 1)
	lines, _ := a.LineCount(ctx)
	res, _ := a.Grep(ctx, ` 5\d\d$`, nil)
	numbered, _ := a.Grep(ctx, "post", &spooledartifact.GrepOptions{Flags: "i", Before: 1})
	fmt.Println(head, tail, lines)
	fmt.Println(res.Texts())
	fmt.Println(numbered.Format(true))
	// Output:
	// [GET /a 200 GET /b 500] [GET /d 503] 4
	// [GET /b 500 GET /d 503]
	// 1-GET /b 500
	// 2:POST /c 200
}

func ExampleNewDiskStore() {
	ctx := context.Background()
	dir, _ := mkTemp()
	defer os.RemoveAll(dir)
	store, _ := spooledartifact.NewDiskStore(dir, &spooledartifact.DiskOptions{SpillThreshold: 1 << 20})
	turn := spooledartifact.NewScope(store, "turn-42", nil)
	art, _ := spooledartifact.Spool(ctx, turn, "call_1", nil, strings.NewReader("one\ntwo\nthree\n"))
	n, _ := art.LineCount(ctx)
	fmt.Println(art.ID(), art.Kind(), n)
	deleted, _ := turn.Cleanup(ctx)
	fmt.Println("deleted", deleted)
	// Output:
	// turn-42/call_1 SpooledArtifact 3
	// deleted 1
}

func ExampleForger() {
	ctx := context.Background()
	store := spooledartifact.NewMemoryStore()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	fetch := func(id, text string) *forge.ToolCall {
		art, _ := spooledartifact.SpoolString(ctx, store, id, nil, text)
		call, _ := forge.NewToolCall(forge.RawToolCall{ID: id, Tool: "fetch_log", Args: map[string]any{},
			Checksum: strings.Repeat("0", 64), Results: art, IsComplete: true, CreatedAt: now, CompletedAt: now})
		return call
	}
	var f spooledartifact.Forger
	calls := []*forge.ToolCall{fetch("call_1", "alpha\nbeta\ngamma")}
	first, _ := f.Update(calls)
	again, _ := f.Update(calls) // nothing new: the same tools
	calls = append(calls, fetch("call_2", "delta"))
	grown, _ := f.Update(calls) // a new artifact: the same tools serve it
	fmt.Println(len(first), first[0] == again[0], first[0] == grown[0])

	reg, _ := forge.NewRegistry(grown...)
	grep, _ := reg.Get("artifact_grep")
	out, _ := grep.Execute(ctx, json.RawMessage(`{"callId":"call_1","pattern":"a$"}`),
		forge.Invocation{CallID: strings.Repeat("1", 64)}, nil)
	fmt.Println(out.Text())
	// Output:
	// 7 true true
	// alpha
	// beta
	// gamma
}

func ExampleRenderHandle() {
	ctx := context.Background()
	store := spooledartifact.NewMemoryStore()
	art, _ := spooledartifact.SpoolString(ctx, store, "call_9", nil, "line one\nline two\n")
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	call, _ := forge.NewToolCall(forge.RawToolCall{ID: "call_9", Tool: "dump", Args: map[string]any{},
		Checksum: strings.Repeat("0", 64), Results: art, IsComplete: true, CreatedAt: now, CompletedAt: now})
	call, _ = spooledartifact.HandleAbove(8)(ctx, call) // 18 bytes > 8: render as a handle
	text, _ := spooledartifact.RenderHandle(ctx, call, nil)
	fmt.Println(call.Inline())
	fmt.Println(text)
	// Output:
	// false
	// This result was too large to place here, so it was stored as an artifact.
	//
	// Artifact metadata:
	// - callId: call_9
	// - kind: SpooledArtifact
	// - byteLength: 18
	// - lineCount: 2
	//
	// Read it with these tools from your tool list, passing callId=call_9: artifact_head, artifact_tail, artifact_grep, artifact_cat, artifact_byte_length, artifact_line_count, artifact_estimate_tokens.
	//
	// It stays available for this turn; its content is shown nowhere else, so do not assume you have seen it.
}

// mkTemp makes a scratch directory for the disk example.
func mkTemp() (string, error) { return os.MkdirTemp("", "spooledartifact-example-") }

// A tool call persisted with an artifact result is read back with a
// Resolver over the store that holds the artifact.
func ExampleResolver() {
	ctx := context.Background()
	store := spooledartifact.NewMemoryStore()
	a, _ := spooledartifact.Spool(ctx, store, "turn-1/call-1", spooledartifact.PlainKind{}, strings.NewReader("line one\nline two"))
	sum, _ := canonical.Checksum("fetch", json.RawMessage(`{}`))
	call, _ := forge.NewToolCall(forge.RawToolCall{ID: "call-1", Tool: "fetch", Args: `{}`, Checksum: sum,
		Results: forge.ArtifactResults(a), IsComplete: true, CreatedAt: time.Unix(1, 0), CompletedAt: time.Unix(2, 0)})
	persisted, _ := json.Marshal(call)

	back, err := forge.UnmarshalToolCall(ctx, persisted, spooledartifact.Resolver{Store: store})
	if err != nil {
		fmt.Println(err)
		return
	}
	lines, _ := back.Results().Artifacts()[0].(*spooledartifact.Artifact).Head(ctx, 1)
	fmt.Println(back.ID(), lines)
	// Output: call-1 [line one]
}
