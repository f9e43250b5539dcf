package mdartifact_test

import (
	"context"
	"fmt"

	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/mdartifact"
)

// A Markdown tool result, queried the way the model queries it through the
// forged artifact_md_* tools: find a section, then read just that section.
func Example() {
	ctx := context.Background()
	doc := `---
title: Notes
---
# Notes

## Setup

Run [the installer](https://example.com/install).

## Usage

` + "```sh\nnotes add \"hello\"\n```\n"
	r, _ := spooledartifact.WriteString(ctx, spooledartifact.NewMemoryStore(), "call_1", doc)
	k := mdartifact.Kind{}
	a, _ := k.Wrap(ctx, "call_1", r)
	tools := map[string]spooledartifact.Method{}
	for _, m := range k.Methods() {
		tools[m.Tool] = m
	}
	for _, q := range []struct {
		tool string
		args map[string]any
	}{
		{"artifact_md_frontmatter", nil},
		{"artifact_md_sections", map[string]any{"depth": 2}},
		{"artifact_md_links", map[string]any{"startLine": 5, "endLine": 8}},
		{"artifact_md_code_blocks", map[string]any{"lang": "sh"}},
	} {
		out, err := tools[q.tool].Call(ctx, a, q.args)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s:\n%s\n", q.tool, out)
	}
	// Output:
	// artifact_md_frontmatter:
	// {
	//   "title": "Notes"
	// }
	// artifact_md_sections:
	// [
	//   {
	//     "depth": 2,
	//     "heading": "Setup",
	//     "headingLine": 5,
	//     "bodyStartLine": 6,
	//     "bodyEndLine": 8
	//   },
	//   {
	//     "depth": 2,
	//     "heading": "Usage",
	//     "headingLine": 9,
	//     "bodyStartLine": 10,
	//     "bodyEndLine": 13
	//   }
	// ]
	// artifact_md_links:
	// [
	//   {
	//     "text": "the installer",
	//     "url": "https://example.com/install"
	//   }
	// ]
	// artifact_md_code_blocks:
	// [
	//   {
	//     "lang": "sh",
	//     "startLine": 11,
	//     "endLine": 13
	//   }
	// ]
}

// The Go API returns typed values; Text strips the markup of a line range.
func ExampleArtifact_Text() {
	ctx := context.Background()
	r, _ := spooledartifact.WriteString(ctx, spooledartifact.NewMemoryStore(), "call_2", "# Title\n\nSome *emphasis* and `code`.\n")
	a := mdartifact.New("call_2", r, mdartifact.Kind{})
	text, _ := a.Text(ctx, 0, -1)
	fmt.Println(text)
	// Output:
	// Title
	// Some emphasis and code.
}
