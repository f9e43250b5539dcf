package mdartifact_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ebbforge/adk/spooledartifact/mdartifact"
)

// FuzzIndex builds the structural index of arbitrary text and runs every
// forged query: nothing panics, and every range the index reports lies
// within the document and is well ordered.
func FuzzIndex(f *testing.F) {
	for _, s := range []string{
		"", "# A\n## B\n", "---\na: 1\n---\n# H", "---\n# H", "```go\ncode\n", "~~~\n```\n~~~", "  ### x ###\r\n",
		"[a](b \"t\") ![i](j)\n<https://x>", "| a |\n|---|\n| b |", "- [x] done\n- [ ] todo", "> q\n>\n> > nested",
		"\xff\xfe# \xc0", "#\t\n######\n", "- ```sh\n  # x\n  ```\n# b", "> - ```\n>   a\n\n# b", "1.  ~~~\n   ~~~\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		ctx := context.Background()
		k := mdartifact.Kind{MaxAnswerBytes: 4096}
		a := mdartifact.New("id", newMem(t, doc), k)
		idx, err := a.Index(ctx)
		if err != nil {
			t.Fatal(err)
		}
		last := idx.LineCount - 1
		inRange := func(what string, lo, hi int, allowEmpty bool) {
			if lo < 0 || hi > last || (hi < lo && !(allowEmpty && hi == lo-1)) {
				t.Fatalf("%s [%d, %d] outside [0, %d]", what, lo, hi, last)
			}
		}
		if fm := idx.FrontMatter; fm != nil {
			inRange("front matter", fm.StartLine, fm.EndLine, false)
			if fm.StartLine != 0 || fm.EndLine >= mdartifact.FrontMatterLines {
				t.Fatalf("front matter %+v", fm)
			}
		}
		prev := -1
		for _, h := range idx.Headings {
			inRange("heading", h.StartLine, h.EndLine, false)
			if h.Depth < 1 || h.Depth > 6 || h.StartLine <= prev {
				t.Fatalf("heading %+v after line %d", h, prev)
			}
			prev = h.StartLine
		}
		for _, c := range idx.CodeBlocks {
			inRange("code block", c.StartLine, c.EndLine, false)
		}
		for _, m := range k.Methods() {
			for _, args := range []map[string]any{nil, {"startLine": 1.0, "endLine": 2.0, "depth": 2.0, "lang": ""}} {
				_, err := m.Call(ctx, a, args)
				if err != nil && m.Tool != "artifact_md_frontmatter" && !errors.Is(err, mdartifact.ErrTooDeep) {
					t.Fatalf("%s: %v", m.Tool, err)
				}
			}
		}
	})
}
