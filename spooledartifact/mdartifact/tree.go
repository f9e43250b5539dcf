package mdartifact

import (
	"context"
	"sort"
	"strings"

	gast "github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// Node is one node of the syntax tree AST returns: an MDAST-like shape
// (https://github.com/syntax-tree/mdast), rendered as JSON with empty
// fields left out.
//
// Types: root, yaml (front matter, value), heading (depth), paragraph, text
// (value), emphasis, strong, delete (GFM strikethrough), inlineCode (value),
// code (lang, meta, value), link (url, title), image (url, title, alt),
// list (ordered, start, spread), listItem (checked for GFM task items),
// blockquote, thematicBreak, html (value), break, table (align: "left",
// "right", "center" or "" per column), tableRow, tableCell. Block nodes
// carry Position when goldmark knows their lines: the 0-based, inclusive
// lines of their content in the whole document (for fenced code, the lines
// inside the fences).
type Node struct {
	Type     string   `json:"type"`
	Depth    int      `json:"depth,omitempty"`
	Value    string   `json:"value,omitempty"`
	Lang     string   `json:"lang,omitempty"`
	Meta     string   `json:"meta,omitempty"`
	URL      string   `json:"url,omitempty"`
	Title    string   `json:"title,omitempty"`
	Alt      string   `json:"alt,omitempty"`
	Ordered  *bool    `json:"ordered,omitempty"`
	Start    *int     `json:"start,omitempty"` // an ordered list's first number (0 is kept); nil otherwise
	Spread   *bool    `json:"spread,omitempty"`
	Checked  *bool    `json:"checked,omitempty"`
	Align    []string `json:"align,omitempty"`
	Position *Span    `json:"position,omitempty"`
	Children []*Node  `json:"children,omitempty"`
	parent   *Node    // the listItem a task checkbox marks
}

// Link is a link (inline, reference or GFM autolink) in a line range.
type Link struct {
	Text  string `json:"text"`
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// Image is an image in a line range.
type Image struct {
	Alt   string `json:"alt"`
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// AST parses lines [start, end] (0-based, inclusive; end < 0 means the last
// line) with goldmark (CommonMark + GFM) and returns the tree. When the
// range covers the whole front matter it comes first as a yaml node. A
// range that starts inside a block (say, a fence) parses as if the block
// started there.
func (a *Artifact) AST(ctx context.Context, start, end int) (*Node, error) {
	src, first, fm, err := a.source(ctx, start, end)
	if err != nil {
		return nil, err
	}
	root := &Node{Type: "root"}
	if fm != "" {
		root.Children = append(root.Children, &Node{Type: "yaml", Value: strings.TrimSuffix(fm, "\n")})
	}
	doc, err := parse(ctx, src, a.kind.maxParseWork())
	if err != nil {
		return nil, err
	}
	c := treeBuilder{src: src, first: first, starts: lineStarts(src)}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if child := c.convert(n, root); child != nil {
			root.Children = append(root.Children, child)
		}
	}
	return root, nil
}

// Links returns the links in lines [start, end] (inclusive; end < 0: last).
func (a *Artifact) Links(ctx context.Context, start, end int) ([]Link, error) {
	root, err := a.AST(ctx, start, end)
	if err != nil {
		return nil, err
	}
	out := []Link{}
	walk(root, func(n *Node) {
		if n.Type == "link" {
			out = append(out, Link{Text: plain(n.Children), URL: n.URL, Title: n.Title})
		}
	})
	return out, nil
}

// Images returns the images in lines [start, end] (inclusive; end < 0:
// last).
func (a *Artifact) Images(ctx context.Context, start, end int) ([]Image, error) {
	root, err := a.AST(ctx, start, end)
	if err != nil {
		return nil, err
	}
	out := []Image{}
	walk(root, func(n *Node) {
		if n.Type == "image" {
			out = append(out, Image{Alt: n.Alt, URL: n.URL, Title: n.Title})
		}
	})
	return out, nil
}

// Text returns the text of lines [start, end] (inclusive; end < 0: last)
// with the markup stripped: one line per block (code blocks keep their
// lines, table cells are tab-separated), image alt text kept, HTML and
// front matter dropped.
func (a *Artifact) Text(ctx context.Context, start, end int) (string, error) {
	root, err := a.AST(ctx, start, end)
	if err != nil {
		return "", err
	}
	var lines []string
	var block func(n *Node)
	block = func(n *Node) {
		switch n.Type {
		case "yaml", "html", "thematicBreak":
		case "code":
			lines = append(lines, n.Value)
		case "heading", "paragraph":
			lines = append(lines, plain(n.Children))
		case "tableRow":
			cells := make([]string, len(n.Children))
			for i, c := range n.Children {
				cells[i] = plain(c.Children)
			}
			lines = append(lines, strings.Join(cells, "\t"))
		default:
			for _, c := range n.Children {
				block(c)
			}
		}
	}
	block(root)
	return strings.Join(lines, "\n"), nil
}

func walk(n *Node, fn func(*Node)) {
	fn(n)
	for _, c := range n.Children {
		walk(c, fn)
	}
}

// plain is the text of inline nodes: text, code and image alt, with breaks
// as newlines.
func plain(ns []*Node) string {
	var b strings.Builder
	var rec func(ns []*Node)
	rec = func(ns []*Node) {
		for _, n := range ns {
			switch n.Type {
			case "text", "inlineCode":
				b.WriteString(n.Value)
			case "image":
				b.WriteString(n.Alt)
			case "break":
				b.WriteByte('\n')
			case "html":
			default:
				rec(n.Children)
			}
		}
	}
	rec(ns)
	return b.String()
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

type treeBuilder struct {
	src    []byte
	first  int
	starts []int
}

// line maps a source offset to its document line.
func (c *treeBuilder) line(off int) int {
	return c.first + sort.Search(len(c.starts), func(i int) bool { return c.starts[i] > off }) - 1
}

// span is the lines of n's own segments, widened by its children's spans.
func (c *treeBuilder) span(n gast.Node, children []*Node) *Span {
	var s *Span
	widen := func(lo, hi int) {
		if s == nil {
			s = &Span{lo, hi}
			return
		}
		s.StartLine, s.EndLine = min(s.StartLine, lo), max(s.EndLine, hi)
	}
	if n.Type() == gast.TypeBlock {
		if lines := n.Lines(); lines != nil && lines.Len() > 0 {
			widen(c.line(lines.At(0).Start), c.line(max(lines.At(lines.Len()-1).Stop-1, lines.At(lines.Len()-1).Start)))
		}
	}
	for _, ch := range children {
		if ch.Position != nil {
			widen(ch.Position.StartLine, ch.Position.EndLine)
		}
	}
	return s
}

func (c *treeBuilder) segments(n gast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(c.src))
	}
	return b.String()
}

func (c *treeBuilder) children(n gast.Node, self *Node) []*Node {
	var out []*Node
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		if cn := c.convert(ch, self); cn != nil {
			// goldmark splits text at breaks and inline nodes; MDAST keeps
			// adjacent text as one node.
			if last := len(out) - 1; cn.Type == "text" && last >= 0 && out[last].Type == "text" {
				out[last].Value += cn.Value
			} else if cn.Type != "text" || cn.Value != "" {
				out = append(out, cn)
			}
			if t, ok := ch.(*gast.Text); ok && t.HardLineBreak() {
				out = append(out, &Node{Type: "break"})
			}
		}
	}
	return out
}

func (c *treeBuilder) convert(n gast.Node, parent *Node) *Node {
	out := &Node{parent: parent}
	switch t := n.(type) {
	case *gast.Heading:
		out.Type, out.Depth = "heading", t.Level
	case *gast.Paragraph, *gast.TextBlock:
		out.Type = "paragraph"
	case *gast.Text:
		out.Type, out.Value = "text", string(t.Segment.Value(c.src))
		if t.SoftLineBreak() {
			out.Value += "\n"
		}
		return out
	case *gast.String:
		out.Type, out.Value = "text", string(t.Value)
		return out
	case *gast.Emphasis:
		out.Type = "emphasis"
		if t.Level >= 2 {
			out.Type = "strong"
		}
	case *gast.CodeSpan:
		out.Type, out.Value = "inlineCode", plain(c.children(n, out))
		return out
	case *gast.FencedCodeBlock:
		out.Type, out.Value = "code", strings.TrimSuffix(c.segments(n), "\n")
		out.Lang = string(t.Language(c.src))
		if t.Info != nil {
			info := strings.TrimSpace(string(t.Info.Segment.Value(c.src)))
			out.Meta = strings.TrimSpace(strings.TrimPrefix(info, out.Lang))
		}
	case *gast.CodeBlock:
		out.Type, out.Value = "code", strings.TrimSuffix(c.segments(n), "\n")
	case *gast.Link:
		out.Type, out.URL, out.Title = "link", string(t.Destination), string(t.Title)
	case *gast.AutoLink:
		out.Type, out.URL = "link", string(t.URL(c.src))
		if t.AutoLinkType == gast.AutoLinkEmail && !strings.HasPrefix(out.URL, "mailto:") {
			out.URL = "mailto:" + out.URL
		}
		out.Children = []*Node{{Type: "text", Value: string(t.Label(c.src))}}
		return out
	case *gast.Image:
		out.Type, out.URL, out.Title = "image", string(t.Destination), string(t.Title)
		out.Alt = plain(c.children(n, out))
		return out
	case *gast.List:
		ordered, spread := t.IsOrdered(), !t.IsTight
		out.Type, out.Ordered, out.Spread = "list", &ordered, &spread
		if ordered {
			start := t.Start
			out.Start = &start
		}
	case *gast.ListItem:
		out.Type = "listItem"
	case *east.TaskCheckBox:
		for p := parent; p != nil; p = p.parent {
			if p.Type == "listItem" {
				checked := t.IsChecked
				p.Checked = &checked
				break
			}
		}
		return nil
	case *gast.Blockquote:
		out.Type = "blockquote"
	case *gast.ThematicBreak:
		out.Type = "thematicBreak"
	case *gast.HTMLBlock:
		v := c.segments(n)
		if t.HasClosure() {
			v += string(t.ClosureLine.Value(c.src))
		}
		out.Type, out.Value = "html", strings.TrimSuffix(v, "\n")
	case *gast.RawHTML:
		var b strings.Builder
		for i := 0; i < t.Segments.Len(); i++ {
			seg := t.Segments.At(i)
			b.Write(seg.Value(c.src))
		}
		out.Type, out.Value = "html", b.String()
		return out
	case *east.Strikethrough:
		out.Type = "delete"
	case *east.Table:
		out.Type = "table"
		for _, al := range t.Alignments {
			switch al {
			case east.AlignLeft:
				out.Align = append(out.Align, "left")
			case east.AlignRight:
				out.Align = append(out.Align, "right")
			case east.AlignCenter:
				out.Align = append(out.Align, "center")
			default:
				out.Align = append(out.Align, "")
			}
		}
	case *east.TableHeader, *east.TableRow:
		out.Type = "tableRow"
	case *east.TableCell:
		out.Type = "tableCell"
	default:
		out.Type = n.Kind().String()
	}
	out.Children = c.children(n, out)
	if n.Type() == gast.TypeBlock {
		out.Position = c.span(n, out.Children)
	}
	return out
}
