package mdartifact_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/golden"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/mdartifact"
)

var update = flag.Bool("update", false, "rewrite golden files")

// newMem spools s into the core's memory store and returns its reader.
func newMem(t testing.TB, s string) spooledartifact.Reader {
	t.Helper()
	r, err := spooledartifact.WriteString(context.Background(), spooledartifact.NewMemoryStore(), "md", s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func spaces(n int) string { return strings.Repeat(" ", n) }

func callTool(t *testing.T, k mdartifact.Kind, a forge.Artifact, tool string, args map[string]any) (string, error) {
	t.Helper()
	for _, m := range k.Methods() {
		if m.Tool == tool {
			return m.Call(context.Background(), a, args)
		}
	}
	t.Fatalf("no method %s", tool)
	return "", nil
}

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/readme.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConformance(t *testing.T) {
	k := mdartifact.Kind{}
	a, err := k.Wrap(context.Background(), "call_md", newMem(t, readme(t)))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, tool string
		args       map[string]any
	}{
		{"frontmatter", "artifact_md_frontmatter", nil},
		{"headings", "artifact_md_headings", nil},
		{"headings_depth2", "artifact_md_headings", map[string]any{"depth": 2.0}},
		{"code_blocks", "artifact_md_code_blocks", nil},
		{"code_blocks_sh", "artifact_md_code_blocks", map[string]any{"lang": "sh"}},
		{"code_blocks_nolang", "artifact_md_code_blocks", map[string]any{"lang": ""}},
		{"sections", "artifact_md_sections", nil},
		{"sections_depth3", "artifact_md_sections", map[string]any{"depth": 3.0}},
		{"links", "artifact_md_links", nil},
		{"links_range", "artifact_md_links", map[string]any{"startLine": 15.0, "endLine": 15.0}},
		{"images", "artifact_md_images", nil},
		{"text", "artifact_md_text", nil},
		{"text_usage", "artifact_md_text", map[string]any{"startLine": 33.0, "endLine": 48.0}},
		{"ast_usage", "artifact_md_ast", map[string]any{"startLine": 33.0, "endLine": 48.0}},
		{"ast_head", "artifact_md_ast", map[string]any{"endLine": 17.0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := callTool(t, k, a, c.tool, c.args)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, c.name, got, *update)
		})
	}
}

func TestIndex(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		doc  string
		want mdartifact.Index
	}{
		{"empty", "", mdartifact.Index{}},
		{"a final newline ends the last line", "# A\n", mdartifact.Index{LineCount: 1,
			Headings: []mdartifact.Heading{{Depth: 1, Text: "A", StartLine: 0, EndLine: 0}}}},
		{"nested ends", "# A\n## B\ntext\n### C\n## D\n# E", mdartifact.Index{LineCount: 6,
			Headings: []mdartifact.Heading{
				{1, "A", 0, 4}, {2, "B", 1, 3}, {3, "C", 3, 3}, {2, "D", 4, 4}, {1, "E", 5, 5},
			}}},
		{"closing sequence and indent", "  ## Title ##  \r\n#\tTab\n# #hash#", mdartifact.Index{LineCount: 3,
			Headings: []mdartifact.Heading{{2, "Title", 0, 0}, {1, "Tab", 1, 1}, {1, "#hash#", 2, 2}}}},
		{"not headings", "#x\n####### seven\n    # indented code\n\\#", mdartifact.Index{LineCount: 4}},
		{"fences", "```go run\nx\n```\n~~~\n```\n~~~~\n````\n```\n", mdartifact.Index{LineCount: 8,
			CodeBlocks: []mdartifact.CodeBlock{{"go", 0, 2}, {"", 3, 5}, {"", 6, 7}}}},
		{"inline backticks are not a fence", "``` a ` b\n# H", mdartifact.Index{LineCount: 2,
			Headings: []mdartifact.Heading{{1, "H", 1, 1}}}},
		{"front matter", "---\n# yaml comment\n---\n# H", mdartifact.Index{LineCount: 4,
			FrontMatter: &mdartifact.Span{StartLine: 0, EndLine: 2},
			Headings:    []mdartifact.Heading{{1, "H", 3, 3}}}},
		{"unclosed front matter is markdown", "---\n# H\ntext", mdartifact.Index{LineCount: 3,
			Headings: []mdartifact.Heading{{1, "H", 1, 2}}}},
		{"front matter must close within 200 lines", "---\n" + strings.Repeat("a: 1\n", 199) + "---\n# H", mdartifact.Index{LineCount: 202,
			Headings: []mdartifact.Heading{{1, "H", 201, 201}}}},
		{"front matter closing on line 199", "---\n" + strings.Repeat("a: 1\n", 198) + "---\n# H", mdartifact.Index{LineCount: 201,
			FrontMatter: &mdartifact.Span{StartLine: 0, EndLine: 199},
			Headings:    []mdartifact.Heading{{1, "H", 200, 200}}}},
		// Lines longer than the 4 KiB of heading text kept are classified
		// whole: what follows a long run of spaces still counts.
		{"long closing-fence lookalike does not close", "```\ncode\n```" + spaces(5000) + "text\nmore\n```\n# H", mdartifact.Index{LineCount: 6,
			CodeBlocks: []mdartifact.CodeBlock{{"", 0, 4}},
			Headings:   []mdartifact.Heading{{1, "H", 5, 5}}}},
		{"long closing fence closes", "```\ncode\n```" + spaces(5000) + "\t\r\n# H", mdartifact.Index{LineCount: 4,
			CodeBlocks: []mdartifact.CodeBlock{{"", 0, 2}},
			Headings:   []mdartifact.Heading{{1, "H", 3, 3}}}},
		{"long fence info keeps its language", "```" + spaces(5000) + "go\nx\n```", mdartifact.Index{LineCount: 3,
			CodeBlocks: []mdartifact.CodeBlock{{"go", 0, 2}}}},
		{"long inline backticks are not a fence", "```" + spaces(5000) + "`x`\n# H", mdartifact.Index{LineCount: 2,
			Headings: []mdartifact.Heading{{1, "H", 1, 1}}}},
		{"long heading keeps its text", "#" + spaces(5000) + "Title", mdartifact.Index{LineCount: 1,
			Headings: []mdartifact.Heading{{1, "Title", 0, 0}}}},
		{"long heading text is capped", "# " + strings.Repeat("é", 3000) + "\n---\n", mdartifact.Index{LineCount: 2,
			Headings: []mdartifact.Heading{{1, strings.Repeat("é", 2048), 0, 1}}}},
		{"front matter with long lines", "---\nk: " + strings.Repeat("v", 5000) + "\n---\n```" + spaces(5000) + "go\n", mdartifact.Index{LineCount: 4,
			FrontMatter: &mdartifact.Span{StartLine: 0, EndLine: 2},
			CodeBlocks:  []mdartifact.CodeBlock{{"go", 3, 3}}}},
		{"unclosed front matter with long lines is markdown", "---\n```" + spaces(5000) + "text\n# H\n```" + spaces(5000) + "more\n```", mdartifact.Index{LineCount: 5,
			CodeBlocks: []mdartifact.CodeBlock{{"text", 1, 4}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := mdartifact.New("id", newMem(t, c.doc), mdartifact.Kind{})
			got, err := a.Index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("index (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEmptyATXHeadings checks that an ATX heading with no text (a run of
// 1-6 '#' followed by the end of the line, or by spaces and tabs and maybe
// a closing sequence) is indexed, as CommonMark and goldmark (the AST) have
// it, so the section before it ends there: "#" and "##" alone on a line
// are headings too.
func TestEmptyATXHeadings(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		doc  string
		want []mdartifact.Heading
	}{
		{"#", "# A\ntext\n#\nafter\n", []mdartifact.Heading{{1, "A", 0, 1}, {1, "", 2, 3}}},
		{"##", "## A\ntext\n##\nafter", []mdartifact.Heading{{2, "A", 0, 1}, {2, "", 2, 3}}},
		{"### and spaces", "### A\ntext\n###   \nafter", []mdartifact.Heading{{3, "A", 0, 1}, {3, "", 2, 3}}},
		{"# and a tab", "# A\ntext\n#\t\nafter", []mdartifact.Heading{{1, "A", 0, 1}, {1, "", 2, 3}}},
		{"closing sequence only", "# A\ntext\n# #\nafter", []mdartifact.Heading{{1, "A", 0, 1}, {1, "", 2, 3}}},
		{"CRLF", "# A\r\ntext\r\n##\r\nafter", []mdartifact.Heading{{1, "A", 0, 3}, {2, "", 2, 3}}},
		{"at end of file without newline", "# A\ntext\n#", []mdartifact.Heading{{1, "A", 0, 1}, {1, "", 2, 2}}},
		{"six", "###### A\n######", []mdartifact.Heading{{6, "A", 0, 0}, {6, "", 1, 1}}},
		{"seven is text", "# A\n#######\nafter", []mdartifact.Heading{{1, "A", 0, 2}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := mdartifact.New("md", newMem(t, tt.doc), mdartifact.Kind{})
			hs, err := a.Headings(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, hs); diff != "" {
				t.Errorf("headings (-want +got):\n%s", diff)
			}
			// The index agrees with goldmark on the headings.
			idx, err := a.Index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			checkIndexAgreesWithAST(t, ctx, a, idx)
		})
	}
}

func TestFrontMatter(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, doc, want string
		err             error
	}{
		{"none", "# A", "", nil},
		{"empty", "---\n---\n", "null", nil},
		{"order and types", "---\nz: 1\na: [true, null, 1.5, .inf, 0x10, '2']\nwhen: 2024-01-02\n---", `{"z":1,"a":[true,null,1.5,".inf",16,"2"],"when":"2024-01-02"}`, nil},
		{"aliases", "---\nbase: &b {x: 1}\nuse: *b\n---", `{"base":{"x":1},"use":{"x":1}}`, nil},
		{"billion laughs", "---\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n---", "", mdartifact.ErrInvalidFrontMatter},
		{"invalid", "---\na: [1\n---", "", mdartifact.ErrInvalidFrontMatter},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := mdartifact.New("id", newMem(t, c.doc), mdartifact.Kind{})
			got, err := a.FrontMatter(ctx)
			if !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if string(got) != c.want {
				t.Errorf("front matter = %s, want %s", got, c.want)
			}
		})
	}
}

func TestRanges(t *testing.T) {
	ctx := context.Background()
	doc := "[a](u1)\n\n[b](u2) [c](u3)\n\n[d](u4)"
	a := mdartifact.New("id", newMem(t, doc), mdartifact.Kind{})
	for _, c := range []struct {
		start, end int
		want       []string
	}{
		{0, -1, []string{"u1", "u2", "u3", "u4"}},
		{2, 2, []string{"u2", "u3"}}, // endLine is inclusive
		{1, 3, []string{"u2", "u3"}},
		{3, 100, []string{"u4"}},
		{4, 2, nil},
		{9, -1, nil},
	} {
		t.Run(fmt.Sprint(c.start, c.end), func(t *testing.T) {
			links, err := a.Links(ctx, c.start, c.end)
			if err != nil {
				t.Fatal(err)
			}
			var urls []string
			for _, l := range links {
				urls = append(urls, l.URL)
			}
			if diff := cmp.Diff(c.want, urls); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("parse cap", func(t *testing.T) {
		big := mdartifact.New("id", newMem(t, strings.Repeat("word ", 100)), mdartifact.Kind{MaxParseBytes: 100})
		if _, err := big.Text(ctx, 0, -1); !errors.Is(err, mdartifact.ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("answer cap", func(t *testing.T) {
		k := mdartifact.Kind{MaxAnswerBytes: 200}
		got, err := callTool(t, k, mdartifact.New("id", newMem(t, readme(t)), k), "artifact_md_ast", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 200+120 || !strings.Contains(got, "\n(truncated: answer capped at 200 of ") {
			t.Errorf("got %d bytes: %q", len(got), got)
		}
	})
}

func TestToolArgs(t *testing.T) {
	k := mdartifact.Kind{}
	a := mdartifact.New("id", newMem(t, "# A"), k)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"artifact_md_headings", map[string]any{"depth": 0.0}},
		{"artifact_md_headings", map[string]any{"depth": 7}},
		{"artifact_md_sections", map[string]any{"depth": "2"}},
		{"artifact_md_code_blocks", map[string]any{"lang": 3}},
		{"artifact_md_text", map[string]any{"startLine": -1.0}},
		{"artifact_md_ast", map[string]any{"endLine": 0.5}},
		{"artifact_md_headings", map[string]any{"startLine": -1.0}},
		{"artifact_md_sections", map[string]any{"endLine": 0.5}},
		{"artifact_md_code_blocks", map[string]any{"startLine": "3"}},
	} {
		t.Run(fmt.Sprint(c.tool, c.args), func(t *testing.T) {
			if _, err := callTool(t, k, a, c.tool, c.args); !errors.Is(err, forge.ErrInvalidToolArgs) {
				t.Fatalf("err = %v, want ErrInvalidToolArgs", err)
			}
		})
	}
	t.Run("not a markdown artifact", func(t *testing.T) {
		got, err := callTool(t, k, spooledartifact.New("call_3", newMem(t, "# A")), "artifact_md_headings", nil)
		if err != nil || got != "Error: tool call call_3 results are not a SpooledMarkdownArtifact instance" {
			t.Fatalf("got %q, %v", got, err)
		}
	})
}

func TestMethods(t *testing.T) {
	k := mdartifact.Kind{}
	if k.Name() != "SpooledMarkdownArtifact" {
		t.Errorf("Name = %q", k.Name())
	}
	a, _ := k.Wrap(context.Background(), "id", newMem(t, ""))
	if kinded, ok := a.(spooledartifact.Kinded); !ok || a.Kind() != mdartifact.Name || kinded.ArtifactKind() != spooledartifact.Kind(k) {
		t.Errorf("artifact kind: %q", a.Kind())
	}
	var names []string
	for _, m := range k.Methods() {
		names = append(names, m.Tool)
		if !strings.Contains(m.Description, "produced earlier in this turn") {
			t.Errorf("%s: description lacks the turn phrase", m.Tool)
		}
	}
	want := []string{"artifact_md_frontmatter", "artifact_md_headings", "artifact_md_code_blocks", "artifact_md_sections",
		"artifact_md_links", "artifact_md_images", "artifact_md_text", "artifact_md_ast"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if n := len(spooledartifact.EffectiveMethods(k)); n != 15 {
		t.Errorf("effective methods = %d, want 15 (7 base + 8)", n)
	}
}

// TestASTListStart checks an ordered list keeps its start number, 0
// included, and a bullet list has none.
func TestASTListStart(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		doc  string
		want *int
	}{
		{"0. zero\n1. one", ptr(0)},
		{"1. one", ptr(1)},
		{"7) seven", ptr(7)},
		{"- bullet", nil},
	} {
		a := mdartifact.New("id", newMem(t, c.doc), mdartifact.Kind{})
		root, err := a.AST(ctx, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		list := root.Children[0]
		if diff := cmp.Diff(c.want, list.Start); list.Type != "list" || diff != "" {
			t.Errorf("%q: %s start (-want +got):\n%s", c.doc, list.Type, diff)
		}
		out, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := gjson.GetBytes(out, "start").Raw, jsonOf(c.want); got != want {
			t.Errorf("%q: JSON start = %q, want %q (in %s)", c.doc, got, want, out)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func jsonOf(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

// TestTooDeep: goldmark's time grows with the square of a line's nesting
// (4 MiB of '>' ran past 5 minutes), so a line of the parsed range nested
// deeper than MaxNesting is ErrTooDeep before parsing; the lines around it
// still parse, and nesting up to the limit parses as before.
func TestTooDeep(t *testing.T) {
	ctx := context.Background()
	deep := strings.Repeat(">", 4<<20) + " deep"
	k := mdartifact.Kind{}
	a := mdartifact.New("id", newMem(t, "# Title\nbefore\n\n"+deep+"\n\nafter\n"), k)
	for name, query := range map[string]func() error{
		"Text":   func() error { _, err := a.Text(ctx, 0, -1); return err },
		"AST":    func() error { _, err := a.AST(ctx, 3, 3); return err },
		"Links":  func() error { _, err := a.Links(ctx, 2, 4); return err },
		"Images": func() error { _, err := a.Images(ctx, 0, -1); return err },
		"artifact_md_text": func() error {
			_, err := callTool(t, k, a, "artifact_md_text", map[string]any{"startLine": 0.0})
			return err
		},
	} {
		if err := query(); !errors.Is(err, mdartifact.ErrTooDeep) || !strings.Contains(err.Error(), "line 3 ") {
			t.Errorf("%s: %v, want ErrTooDeep naming line 3", name, err)
		}
	}
	for _, r := range [][2]int{{0, 2}, {4, -1}} {
		if _, err := a.Text(ctx, r[0], r[1]); err != nil {
			t.Errorf("Text(%d, %d) around the deep line: %v", r[0], r[1], err)
		}
	}
	if hs, err := a.Headings(ctx, 0); err != nil || len(hs) != 1 {
		t.Errorf("Headings = %v, %v; the index needs no parse", hs, err)
	}

	tests := []struct {
		name string
		line string
		deep bool
	}{
		{"quotes at the limit", strings.Repeat(">", mdartifact.MaxNesting) + " x", false},
		{"quotes over the limit", strings.Repeat(">", mdartifact.MaxNesting+1) + " x", true},
		{"lists at the limit", strings.Repeat("- ", mdartifact.MaxNesting) + "x", false},
		{"lists over the limit", strings.Repeat("- ", mdartifact.MaxNesting+1) + "x", true},
		{"after a bare CR", "x\r" + strings.Repeat("> ", mdartifact.MaxNesting+1) + "x", true},
		{"markers not leading", "x " + strings.Repeat("> ", 2*mdartifact.MaxNesting), false},
	}
	for _, tt := range tests {
		a := mdartifact.New("id", newMem(t, tt.line), k)
		got, err := a.Text(ctx, 0, -1)
		if errors.Is(err, mdartifact.ErrTooDeep) != tt.deep || (err != nil && !tt.deep) {
			t.Errorf("%s: Text = %.20q, %v; want too deep %v", tt.name, got, err, tt.deep)
		}
	}
}

// TestDeepASTBounded: the syntax tree of 256 KiB of block quotes nested 999
// deep, indented, is gigabytes (15 GB were allocated per answer); it is
// indented only up to the answer's cap.
func TestDeepASTBounded(t *testing.T) {
	block := strings.Repeat("> ", 999) + "x\n\n"
	k := mdartifact.Kind{}
	a := mdartifact.New("id", newMem(t, strings.Repeat(block, (256<<10)/len(block))), k)
	if _, err := a.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := callTool(t, k, a, "artifact_md_ast", nil)
	runtime.ReadMemStats(&after)
	if err != nil || len(out) > mdartifact.DefaultMaxAnswerBytes || !strings.Contains(out, "\n(truncated: answer capped at 65536 of ") {
		t.Errorf("artifact_md_ast: %d bytes, %v: %.200q", len(out), err, out)
	}
	// The trees (goldmark's and the answer's) cost about 100 MiB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 512<<20 {
		t.Errorf("artifact_md_ast allocated %d MiB over 256 KiB", alloc>>20)
	}
}

// BenchmarkText parses 1 MiB of README Markdown for Text: goldmark, the
// tree conversion and the nesting pre-scan of every line.
func BenchmarkText(b *testing.B) {
	raw, err := os.ReadFile("testdata/readme.md")
	if err != nil {
		b.Fatal(err)
	}
	doc := strings.Repeat(string(raw)+"\n\n", (1<<20)/len(raw))
	a := mdartifact.New("id", newMem(b, doc), mdartifact.Kind{})
	ctx := context.Background()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Text(ctx, 0, -1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkASTAnswer renders artifact_md_ast over the README: parse, tree
// and the indented JSON answer.
func BenchmarkASTAnswer(b *testing.B) {
	raw, err := os.ReadFile("testdata/readme.md")
	if err != nil {
		b.Fatal(err)
	}
	k := mdartifact.Kind{}
	a := mdartifact.New("id", newMem(b, string(raw)), k)
	var ast spooledartifact.Method
	for _, m := range k.Methods() {
		if m.Tool == "artifact_md_ast" {
			ast = m
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ast.Call(ctx, a, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFencesInContainers checks that a fence opened after list or block
// quote markers ("- ```sh", "1. ~~~", "> ```") is indexed: the lines in it
// are no headings, its closing fence indented to the container's content
// closes it (not opens an unclosed fence that swallows the headings after
// it), and a line outside the container ends it. The index agrees with
// goldmark (the AST) on the headings and code blocks.
func TestFencesInContainers(t *testing.T) {
	ctx := context.Background()
	type cb = mdartifact.CodeBlock
	type h = mdartifact.Heading
	for _, tt := range []struct {
		name     string
		doc      string
		headings []h
		blocks   []cb
	}{
		{"bullet", "- ```sh\n  # install deps\n  ```\n# b\ntext",
			[]h{{1, "b", 3, 4}}, []cb{{"sh", 0, 2}}},
		{"bullet star and plus", "* ```\n  # x\n  ```\n+ ~~~go\n  # y\n  ~~~\n# b",
			[]h{{1, "b", 6, 6}}, []cb{{"", 0, 2}, {"go", 3, 5}}},
		{"ordered dot", "1. ```sh\n   # x\n   ```\n# b",
			[]h{{1, "b", 3, 3}}, []cb{{"sh", 0, 2}}},
		{"ordered paren", "10) ~~~py\n    # x\n    ~~~\n# b",
			[]h{{1, "b", 3, 3}}, []cb{{"py", 0, 2}}},
		{"spaces after the marker", "-   ```\n    # x\n    ```\n# b",
			[]h{{1, "b", 3, 3}}, []cb{{"", 0, 2}}},
		{"blank line in the item", "- ```\n  a\n\n  # x\n  ```\n# b",
			[]h{{1, "b", 5, 5}}, []cb{{"", 0, 4}}},
		{"nested list", "- a\n  - ```sh\n    # x\n    ```\n# b",
			[]h{{1, "b", 4, 4}}, []cb{{"sh", 1, 3}}},
		{"blockquote", "> ```\n> # x\n>```\n# b",
			[]h{{1, "b", 3, 3}}, []cb{{"", 0, 2}}},
		{"nested blockquotes", "> > ```\n> > # x\n> > ```\n# b",
			[]h{{1, "b", 3, 3}}, []cb{{"", 0, 2}}},
		{"list in a blockquote", "> - ```\n>   # x\n>   ```\n# b",
			[]h{{1, "b", 3, 3}}, []cb{{"", 0, 2}}},
		{"blockquote in a list", "- > ```\n  > # x\n  > ```\n# b",
			[]h{{1, "b", 3, 3}}, []cb{{"", 0, 2}}},
		{"closer less indented than the item's content", "- ```\n  # x\n ```\n# b",
			nil, []cb{{"", 0, 1}, {"", 2, 3}}},
		{"closer less indented than the fence", "1.  ```\n    # x\n   ```\n# b",
			nil, []cb{{"", 0, 1}, {"", 2, 3}}},
		{"closer indented under the item", "- ```\n  # x\n     ```\n# b",
			[]h{{1, "b", 3, 3}}, []cb{{"", 0, 2}}},
		{"the item ends the fence", "- ```\n  a\n# b\n```",
			[]h{{1, "b", 2, 3}}, []cb{{"", 0, 1}, {"", 3, 3}}},
		{"the quote ends the fence", "> ```\n> a\n# b\n> ```\n> # x",
			[]h{{1, "b", 2, 4}}, []cb{{"", 0, 1}, {"", 3, 4}}},
		{"a blank line ends the quote", "> ```\n\n# b",
			[]h{{1, "b", 2, 2}}, []cb{{"", 0, 0}}},
		{"a marker after the content is text", "a - ```\n# b",
			[]h{{1, "b", 1, 1}}, nil},
		// What goldmark does not read as a container opens no fence.
		{"ordered list from 2 continues a paragraph", "See below\n2. ```\n   # Usage\nmore",
			[]h{{1, "Usage", 2, 3}}, nil},
		{"ordered list from 2 after a thematic break", "---\n2. ```sh\n   # build\n   make\n   ```\n# Usage\n",
			[]h{{1, "Usage", 5, 5}}, []cb{{"sh", 1, 4}}},
		{"ordered list from 2 after a bullet item", "- Install it\n2. ```sh\n   # build\n   make\n   ```\n# Usage\n",
			[]h{{1, "Usage", 5, 5}}, []cb{{"sh", 1, 4}}},
		{"ordered list from 2 after quoted text", "> Note\n2. ```sh\n   # build\n   make\n   ```\n# Usage\n",
			[]h{{1, "Usage", 5, 5}}, []cb{{"sh", 1, 4}}},
		{"ordered list from 2 after a quoted heading", "> # Quoted\n2. ```sh\n   # build\n   make\n   ```\n# Usage\n",
			[]h{{1, "Usage", 5, 5}}, []cb{{"sh", 1, 4}}},
		{"ordered list from 2 after an ordered item", "1) First step\n2. ```sh\n   # build\n   make\n   ```\n# Usage\n",
			[]h{{1, "Usage", 5, 5}}, []cb{{"sh", 1, 4}}},
		{"nested item at column 4", "- Install:\n    - ```sh\n      make\n      ```\n# Usage\n",
			[]h{{1, "Usage", 4, 4}}, []cb{{"sh", 1, 3}}},
		{"ordered list from 2 after a blank line", "See below\n\n2. ```\n   # x\n   ```\n# b",
			[]h{{1, "b", 5, 5}}, []cb{{"", 2, 4}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := mdartifact.New("md", newMem(t, tt.doc), mdartifact.Kind{})
			idx, err := a.Index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.headings, idx.Headings); diff != "" {
				t.Errorf("headings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.blocks, idx.CodeBlocks); diff != "" {
				t.Errorf("code blocks (-want +got):\n%s", diff)
			}
			checkIndexAgreesWithAST(t, ctx, a, idx)
		})
	}
}

// TestMarkersInIndentedCode: a container marker indented four columns or
// more is indented code, which opens no fence (goldmark's AST has no
// fenced block there, only indented code the index does not list).
func TestMarkersInIndentedCode(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		doc      string
		headings []mdartifact.Heading
	}{
		{"indented code with a marker", "Example:\n\n    - ```sh\n    echo hi\n    ```\n# Usage", []mdartifact.Heading{{1, "Usage", 5, 5}}},
		{"tab-indented marker", "# Usage\n\t- ```", []mdartifact.Heading{{1, "Usage", 0, 1}}},
		{"indented quote marker", "Example:\n\n    > ```\n    > x\n# Usage", []mdartifact.Heading{{1, "Usage", 4, 4}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			idx, err := mdartifact.New("md", newMem(t, tt.doc), mdartifact.Kind{}).Index(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.headings, idx.Headings); diff != "" {
				t.Errorf("headings (-want +got):\n%s", diff)
			}
			if n := fencedBlocks(tt.doc); n != len(idx.CodeBlocks) {
				t.Errorf("index code blocks %v, goldmark has %d fenced ones", idx.CodeBlocks, n)
			}
		})
	}
}

// fencedBlocks counts goldmark's fenced code blocks in doc (the AST's
// "code" nodes do not tell them from indented code).
func fencedBlocks(doc string) int {
	n := 0
	root := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader([]byte(doc)))
	_ = gast.Walk(root, func(node gast.Node, entering bool) (gast.WalkStatus, error) {
		if _, ok := node.(*gast.FencedCodeBlock); ok && entering {
			n++
		}
		return gast.WalkContinue, nil
	})
	return n
}

// checkIndexAgreesWithAST checks idx, a's index, against goldmark's tree
// of a: the document's headings (depth, text, line) and every code block
// (its language, and its content within the index's fence lines).
func checkIndexAgreesWithAST(t *testing.T, ctx context.Context, a *mdartifact.Artifact, idx mdartifact.Index) {
	t.Helper()
	root, err := a.AST(ctx, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	type heading struct {
		Depth int
		Text  string
		Line  int
	}
	var fromAST, fromIndex []heading
	for _, n := range root.Children {
		if n.Type == "heading" {
			var text strings.Builder
			for _, c := range n.Children {
				text.WriteString(c.Value)
			}
			line := -1 // goldmark gives no lines for an empty heading
			if n.Position != nil {
				line = n.Position.StartLine
			}
			fromAST = append(fromAST, heading{n.Depth, text.String(), line})
		}
	}
	for k, h := range idx.Headings {
		line := h.StartLine
		if k < len(fromAST) && fromAST[k].Line < 0 {
			line = -1
		}
		fromIndex = append(fromIndex, heading{h.Depth, h.Text, line})
	}
	if diff := cmp.Diff(fromAST, fromIndex); diff != "" {
		t.Errorf("index headings differ from the AST's (-ast +index):\n%s", diff)
	}
	var code []*mdartifact.Node
	var walk func(n *mdartifact.Node)
	walk = func(n *mdartifact.Node) {
		if n.Type == "code" {
			code = append(code, n)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	if len(code) != len(idx.CodeBlocks) {
		t.Fatalf("index has %d code blocks %v, the AST %d", len(idx.CodeBlocks), idx.CodeBlocks, len(code))
	}
	for i, n := range code {
		c := idx.CodeBlocks[i]
		if n.Lang != c.Lang {
			t.Errorf("code block %d: index lang %q, AST %q", i, c.Lang, n.Lang)
		}
		if p := n.Position; p != nil && (p.StartLine <= c.StartLine || p.EndLine > c.EndLine) {
			t.Errorf("code block %d: AST content lines %d-%d outside the index's fence lines %d-%d", i, p.StartLine, p.EndLine, c.StartLine, c.EndLine)
		}
	}
}

// TestIndexToolsContinueFromCapNote checks that the index tools' capped
// answers can be followed to the end: headings, sections and code blocks
// take startLine/endLine (declared in their Params) and keep the items
// starting in that range, and a capped answer shows whole items and names
// the startLine to continue with, so following the notes from the first
// call lists every item exactly once (the notes name only parameters the
// tools take). A capped front matter answer names the artifact_cat call
// that reads its YAML.
func TestIndexToolsContinueFromCapNote(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "## Heading number %d\n\n```sh\necho %d\n```\n", i, i)
		if i%3 == 0 {
			fmt.Fprintf(&b, "### Sub %d\n~~~\nx\n~~~\n", i)
		}
	}
	r := newMem(t, b.String())
	whole := mdartifact.Kind{MaxAnswerBytes: 1 << 30}
	next := regexp.MustCompile(`; continue with startLine=(\d+)( and the other arguments unchanged)?\)$`)
	for _, tt := range []struct {
		name, tool, lineKey string
		args                map[string]any
		limit               int
	}{
		{"headings", "artifact_md_headings", "startLine", nil, 0},
		{"sections", "artifact_md_sections", "headingLine", nil, 0},
		{"code blocks", "artifact_md_code_blocks", "startLine", nil, 0},
		{"headings of a depth from a line", "artifact_md_headings", "startLine", map[string]any{"depth": 2.0, "startLine": 100.0}, 0},
		{"sections up to a line", "artifact_md_sections", "headingLine", map[string]any{"endLine": 9000.0}, 0},
		{"code blocks of a language in a range", "artifact_md_code_blocks", "startLine", map[string]any{"lang": "sh", "startLine": 50.0, "endLine": 11000.0}, 0},
		{"small cap", "artifact_md_headings", "startLine", map[string]any{"endLine": 300.0}, 700},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := callTool(t, whole, mdartifact.New("md", r, whole), tt.tool, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			k := mdartifact.Kind{MaxAnswerBytes: tt.limit}
			a := mdartifact.New("md", r, k)
			args := map[string]any{}
			for key, v := range tt.args {
				args[key] = v
			}
			var got []int64
			calls := 0
			for {
				calls++
				if calls > 1000 {
					t.Fatal("the notes do not reach the end")
				}
				out, err := callTool(t, k, a, tt.tool, args)
				if err != nil {
					t.Fatal(err)
				}
				limit := tt.limit
				if limit == 0 {
					limit = mdartifact.DefaultMaxAnswerBytes
				}
				if len(out) > limit {
					t.Fatalf("answer of %d bytes", len(out))
				}
				head, note, capped := strings.Cut(out, "\n(truncated: ")
				if !json.Valid([]byte(head)) {
					t.Fatalf("call %d: a capped answer is not whole items: %.200q", calls, head)
				}
				for _, l := range gjson.Get(head, "#."+tt.lineKey).Array() {
					got = append(got, l.Int())
				}
				if !capped {
					break
				}
				m := next.FindStringSubmatch(note)
				if m == nil {
					t.Fatalf("call %d: note %q names no startLine to continue with", calls, note)
				}
				if (m[2] != "") != (len(args) > 0 && (args["depth"] != nil || args["lang"] != nil || args["endLine"] != nil)) {
					t.Errorf("note %q: other arguments %v", note, args)
				}
				n, _ := strconv.Atoi(m[1])
				args["startLine"] = float64(n)
			}
			if calls < 2 {
				t.Fatalf("the first answer was not capped")
			}
			var all []int64
			for _, l := range gjson.Get(want, "#."+tt.lineKey).Array() {
				all = append(all, l.Int())
			}
			if len(all) == 0 {
				t.Fatal("no items")
			}
			if diff := cmp.Diff(all, got); diff != "" {
				t.Errorf("items reached in %d calls (-want +got):\n%s", calls, diff)
			}
		})
	}

	t.Run("an item alone over the cap", func(t *testing.T) {
		k := mdartifact.Kind{MaxAnswerBytes: 200}
		a := mdartifact.New("md", newMem(t, "# "+strings.Repeat("x", 400)+"\n# b\n# c"), k)
		out, err := callTool(t, k, a, "artifact_md_headings", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(out, "; 1 of 3 headings shown, cut (artifact_cat start=0 end=1 reads its first line); continue with startLine=1)") || len(out) > 200 {
			t.Fatalf("got %q", out)
		}
		out, err = callTool(t, k, a, "artifact_md_headings", map[string]any{"startLine": 1.0})
		if err != nil || gjson.Get(out, "#.text").String() != `["b","c"]` {
			t.Fatalf("continued: %q, %v", out, err)
		}
	})

	t.Run("front matter", func(t *testing.T) {
		var fm strings.Builder
		for i := range 100 {
			fmt.Fprintf(&fm, "key%d: %s\n", i, strings.Repeat("v", 50))
		}
		k := mdartifact.Kind{MaxAnswerBytes: 1000}
		a := mdartifact.New("md", newMem(t, "---\n"+fm.String()+"---\n# A"), k)
		out, err := callTool(t, k, a, "artifact_md_frontmatter", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(out, "; read its YAML with artifact_cat start=1 end=101)") {
			t.Fatalf("note: %q", out[max(len(out)-200, 0):])
		}
		for _, m := range spooledartifact.EffectiveMethods(k) {
			if m.Tool == "artifact_cat" {
				yaml, err := m.Call(ctx, a, map[string]any{"start": 1.0, "end": 101.0})
				if err != nil || yaml != strings.TrimSuffix(fm.String(), "\n") {
					t.Errorf("artifact_cat start=1 end=101 = %.100q, %v; want the YAML", yaml, err)
				}
			}
		}
	})

	t.Run("params", func(t *testing.T) {
		for _, m := range (mdartifact.Kind{}).Methods() {
			switch m.Tool {
			case "artifact_md_headings", "artifact_md_sections", "artifact_md_code_blocks":
				var props map[string]struct {
					Type    string
					Minimum *int
				}
				if err := json.Unmarshal(m.Params, &props); err != nil {
					t.Fatal(err)
				}
				for _, p := range []string{"startLine", "endLine"} {
					if props[p].Type != "integer" || props[p].Minimum == nil || *props[p].Minimum != 0 {
						t.Errorf("%s: %s not declared as a non-negative integer in %s", m.Tool, p, m.Params)
					}
				}
			}
		}
	})
}
