package mdartifact

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

func TestLineNesting(t *testing.T) {
	tests := []struct {
		line string
		want int
	}{
		{"", 0},
		{"text > - x", 0},
		{"> x", 1},
		{">>> x", 3},
		{"> > > x", 3},
		{"- x", 1},
		{"- - - x", 3},
		{"* + - x", 3},
		{"-x", 0},
		{"---", 0},
		{"1. x", 1},
		{"1) 2. x", 2},
		{"123456789. x", 1},
		{"1234567890. x", 0}, // ten digits: no marker
		{"2024 was", 0},
		{"  - x", 2},        // continues a list item: two columns
		{"\t- x", 3},        // a tab counts 4 columns
		{">   - x", 3},      // one blank after '>' is its own, two more count
		{"-", 1},            // an empty item
		{"> -\r> > > x", 1}, // lineNesting reads one line: see maxNesting
		{strings.Repeat(">", 5000), 5000},
	}
	for _, tt := range tests {
		if got := lineNesting([]byte(tt.line)); got != tt.want {
			t.Errorf("lineNesting(%q) = %d, want %d", tt.line, got, tt.want)
		}
	}
}

// containerDepth is the deepest nesting of block quotes and list items in
// goldmark's tree of src, parsed as AST parses.
func containerDepth(src []byte) int {
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	deepest := 0
	var walk func(n gast.Node, depth int)
	walk = func(n gast.Node, depth int) {
		if n.Kind() == gast.KindBlockquote || n.Kind() == gast.KindListItem {
			depth++
			deepest = max(deepest, depth)
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c, depth)
		}
	}
	walk(doc, 0)
	return deepest
}

// FuzzLineNesting holds the nesting pre-scan, a parser of untrusted input,
// to its contract: it never panics, reads at most two levels a byte (a tab
// is two), and bounds the nesting goldmark finds on every line.
func FuzzLineNesting(f *testing.F) {
	for _, s := range []string{
		"> x", "- - x", "1. > 2) x", "  - a\n    - b\n      > c", "> a\nlazy", "\t\t- x", "-\n  > x",
		"> -\r> > > x", "a\r>>> b", "* * *", "1234567890. x", "> ```\n> > x\n> ```", ">\t-\tx",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		src := []byte(doc)
		bound := 0
		for line := range bytes.SplitSeq(src, []byte{'\n'}) {
			n := lineNesting(line)
			if n < 0 || n > 2*len(line) {
				t.Fatalf("lineNesting(%q) = %d", line, n)
			}
			bound = max(bound, maxNesting(line))
		}
		if d := containerDepth(src); d > bound {
			t.Fatalf("%q: goldmark nests %d deep, above the bound %d", doc, d, bound)
		}
	})
}
