package mdartifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"unicode"
	"unicode/utf8"

	"github.com/ebbforge/adk/spooledartifact"
)

// Heading is an ATX heading and the lines of its section: from its own line
// to the line before the next heading of the same or a shallower depth, or
// the last line of the document. Lines are 0-based and both ends inclusive.
type Heading struct {
	Depth     int    `json:"depth"`
	Text      string `json:"text"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
}

// CodeBlock is a fenced code block, from its opening fence line to its
// closing fence line (or the last line when it is never closed), both
// inclusive. Lang is the first word of the info string; "" means none (null
// in JSON).
type CodeBlock struct {
	Lang      string
	StartLine int
	EndLine   int
}

// MarshalJSON renders {"lang": string|null, "startLine", "endLine"}.
func (c CodeBlock) MarshalJSON() ([]byte, error) {
	var lang *string
	if c.Lang != "" {
		lang = &c.Lang
	}
	return json.Marshal(struct {
		Lang      *string `json:"lang"`
		StartLine int     `json:"startLine"`
		EndLine   int     `json:"endLine"`
	}{lang, c.StartLine, c.EndLine})
}

// Section is a heading's section: the heading line, then its body from the
// next line to the heading's EndLine (both inclusive; a heading on the last
// line has BodyStartLine > BodyEndLine, an empty body).
type Section struct {
	Depth         int    `json:"depth"`
	Heading       string `json:"heading"`
	HeadingLine   int    `json:"headingLine"`
	BodyStartLine int    `json:"bodyStartLine"`
	BodyEndLine   int    `json:"bodyEndLine"`
}

// Span is an inclusive 0-based line range.
type Span struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
}

// Index is the structural index of a Markdown artifact, built in one scan
// that keeps metadata only.
type Index struct {
	// LineCount is the number of lines.
	LineCount int
	// FrontMatter is the span of the front matter, delimiters included, or
	// nil. It is recognised only when line 0 is "---" and a closing "---"
	// is on one of the first FrontMatterLines lines; its lines are not
	// scanned for headings or fences.
	FrontMatter *Span
	// Headings are the ATX headings in document order, outside fences and
	// front matter.
	Headings []Heading
	// CodeBlocks are the fenced code blocks in document order, those in
	// list items and block quotes included.
	CodeBlocks []CodeBlock
}

// maxHeadingBytes caps the heading text kept per heading, and
// maxLangBytes a code block's language. Lines are classified whole, however
// long: only what is kept is capped.
const (
	maxHeadingBytes = 4 << 10
	maxLangBytes    = 256
)

// indexer builds an Index from the lines after the front matter (see
// frontMatterEnd), in order.
type indexer struct {
	idx       Index
	fence     byte // '`' or '~' inside a fence, else 0
	fenceLen  int
	fenceLine int
	fenceLang string
	// A fence opened after container markers ("- ```", "> ```") is in
	// fenceQuotes block quotes, and in a list item whose content starts at
	// column fenceListCol (0: none); its lines must carry those '>' and be
	// indented that far, or blank, to stay in it (see inFence).
	fenceQuotes  int
	fenceListCol int
	// afterText: the previous line was paragraph text, which an ordered
	// list not starting at 1 cannot interrupt (CommonMark): such a line
	// continues the paragraph instead of opening a list item.
	afterText bool
	// inList: a list item may still be open (a list marker was seen, and
	// no blank line then unindented text since), so a marker indented four
	// columns may be a nested item rather than indented code.
	inList, afterBlank bool
}

func (x *indexer) add(i int, line []byte) {
	x.idx.LineCount = i + 1
	x.classify(i, line)
}

// frontMatterEnd is the line of the closing "---" of front matter opened by
// line 0 (both on the first FrontMatterLines lines), or -1.
func frontMatterEnd(ctx context.Context, a *spooledartifact.Artifact) (int, error) {
	end := -1
	err := a.EachLine(ctx, 0, FrontMatterLines, func(i int, line []byte) error {
		if !isDelimiter(line) {
			if i == 0 {
				return errStop
			}
			return nil
		}
		if i > 0 {
			end = i
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return -1, err
	}
	return end, nil
}

// errStop ends a line scan early; it never leaves the package.
var errStop = errors.New("mdartifact: stop")

func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

func (x *indexer) classify(i int, line []byte) {
	line = bytes.TrimRight(line, "\r")
	afterText, afterBlank := x.afterText, x.afterBlank
	x.afterText, x.afterBlank = false, false // set again below
	if x.fence != 0 {
		if x.inFence(i, line) {
			return
		}
		// The fence's container ended before line i: so did the fence
		// (lazy continuation lines do not continue code), and line i is
		// read afresh.
		x.idx.CodeBlocks = append(x.idx.CodeBlocks, CodeBlock{x.fenceLang, x.fenceLine, i - 1})
		x.fence = 0
	}
	if container, list := x.openInContainer(i, line, afterText); container {
		// Text inside a container is not a top-level paragraph: a
		// marker on the next line starts a list whatever its number.
		x.inList = x.inList || list
		return
	}
	indent := 0
	for indent < len(line) && indent < 4 && line[indent] == ' ' {
		indent++
	}
	body := line[indent:]
	if len(bytes.Trim(line, " \t")) == 0 {
		x.afterBlank = true
		return
	}
	if indent >= 4 {
		x.afterText = afterText // indented code cannot interrupt a paragraph: it continues it
		return
	}
	if indent == 0 && afterBlank {
		x.inList = false // unindented text after a blank line ends any list
	}
	switch body[0] {
	case '`', '~':
		if x.open(i, body, 0, 0) {
			x.inList = false
			return
		}
	case '#':
		// CommonMark: 1-6 '#' then the end of the line or a space or tab;
		// "#" alone, or "# #" (a closing sequence), is an empty heading.
		n := run(body, '#')
		if n <= 6 && (n == len(body) || body[n] == ' ' || body[n] == '\t') {
			x.idx.Headings = append(x.idx.Headings, Heading{Depth: n, Text: headingText(body[n:]), StartLine: i})
			x.inList = false
			return
		}
	case '-', '*', '_', '=':
		if isBreak(body) {
			return // a thematic break or a setext underline ends the paragraph
		}
	}
	x.afterText = true
}

// open starts a fence when body (a line's content, past its containers and
// indentation) opens one.
func (x *indexer) open(i int, body []byte, quotes, listCol int) bool {
	c := body[0]
	n := run(body, c)
	if n < 3 {
		return false
	}
	info := body[n:]
	if c == '`' && bytes.IndexByte(info, '`') >= 0 {
		return false // not a fence: inline code
	}
	x.fence, x.fenceLen, x.fenceLine, x.fenceLang = c, n, i, firstWord(info)
	x.fenceQuotes, x.fenceListCol = quotes, listCol
	return true
}

// openInContainer opens a fence on a line whose content follows block
// quote or list markers ("- ```sh", "1. ~~~", "> ```"), found by
// containerRun as lineNesting finds them, and reports whether the line
// had such markers (it is then no heading: a heading in a container is not
// one of the document's sections), and whether its content is paragraph
// text. Past each marker, up to four columns of blanks lead to the
// content (one ends the marker, three indent it); more make the rest
// indented code, no fence. A first marker indented four columns or more
// is indented code itself, and after paragraph text (afterText) an
// ordered marker other than 1 is no list item: the line continues the
// paragraph (CommonMark), so it has no markers.
func (x *indexer) openInContainer(i int, line []byte, afterText bool) (container, list bool) {
	var (
		markers, quotes, listCol int
		pendingList, code, none  bool
		cols                     columns
		pastCol                  int
	)
	end, _ := containerRun(line, func(quote bool, at, past int) {
		if none {
			return
		}
		if markers == 0 {
			switch {
			case cols.at(line, at) >= 4 && !x.inList:
				code = true
			case afterText && !quote && line[at] >= '0' && line[at] <= '9' && string(line[at:past-1]) != "1":
				none = true
				return
			}
		}
		if markers > 0 && cols.at(line, at)-pastCol > 4 {
			code = true
		}
		if pendingList {
			listCol, pendingList = cols.at(line, at), false
		}
		markers++
		if quote {
			quotes++
		} else {
			pendingList = true
		}
		pastCol = cols.at(line, past)
	})
	list = markers > quotes
	switch {
	case none, markers == 0:
		return false, false
	case code:
		x.afterText = afterText // indented code continues a paragraph
		return true, false
	case end == len(line), cols.at(line, end)-pastCol > 4:
		return true, list
	}
	if pendingList {
		listCol = cols.at(line, end)
	}
	if c := line[end]; c == '`' || c == '~' {
		x.open(i, line[end:], quotes, listCol)
	}
	return true, list
}

// inFence reports whether line i, inside the open fence, is still in the
// fence's containers, and closes the fence when the line is its closing
// fence. A fence opened outside containers holds every line up to its
// closing fence, indented at most three spaces.
func (x *indexer) inFence(i int, line []byte) bool {
	pos, col := 0, 0
	if x.fenceQuotes > 0 || x.fenceListCol > 0 {
		// Each of the fence's block quotes needs its '>', after at most
		// three columns of blanks; the blank after a '>' is its own.
		for range x.fenceQuotes {
			from := col
			for pos < len(line) && (line[pos] == ' ' || line[pos] == '\t') && col-from < 4 {
				col = nextCol(col, line[pos])
				pos++
			}
			if pos == len(line) || line[pos] != '>' || col-from > 3 {
				return false
			}
			pos, col = pos+1, col+1
			if pos < len(line) && (line[pos] == ' ' || line[pos] == '\t') {
				col = nextCol(col, line[pos])
				pos++
			}
		}
	}
	base := max(col, x.fenceListCol)
	for pos < len(line) && (line[pos] == ' ' || line[pos] == '\t') {
		col = nextCol(col, line[pos])
		pos++
	}
	if pos == len(line) {
		return true // a blank line stays in the list item
	}
	if col < x.fenceListCol {
		return false // the list item ended
	}
	// A closing fence is indented at most three columns past its
	// container's content and followed only by spaces and tabs.
	body := line[pos:]
	if col-base < 4 {
		if n := run(body, x.fence); n >= x.fenceLen && len(bytes.TrimLeft(body[n:], " \t")) == 0 {
			x.idx.CodeBlocks = append(x.idx.CodeBlocks, CodeBlock{x.fenceLang, x.fenceLine, i})
			x.fence = 0
		}
	}
	return true
}

// nextCol is the column after c at column col: a tab moves to the next
// multiple of 4.
func nextCol(col int, c byte) int {
	if c == '\t' {
		return col + 4 - col%4
	}
	return col + 1
}

// columns maps increasing offsets of one line to columns, in time linear
// in the line however many offsets are asked.
type columns struct{ off, col int }

func (c *columns) at(line []byte, off int) int {
	for ; c.off < off; c.off++ {
		c.col = nextCol(c.col, line[c.off])
	}
	return c.col
}

// firstWord is the first whitespace-separated word of a fence's info
// string, at most maxLangBytes of it.
func firstWord(info []byte) string {
	info = bytes.TrimLeftFunc(info, unicode.IsSpace)
	if end := bytes.IndexFunc(info, unicode.IsSpace); end >= 0 {
		info = info[:end]
	}
	return string(validUTF8(capBytes(info, maxLangBytes)))
}

// capBytes cuts b to at most n bytes at a rune boundary.
func capBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

func validUTF8(b []byte) []byte {
	if !utf8.Valid(b) {
		return bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	return b
}

// headingText trims the text and its optional closing sequence of '#'.
func headingText(b []byte) string {
	b = bytes.TrimSpace(b)
	if end := bytes.TrimRight(b, "#"); len(end) == 0 {
		b = end
	} else if len(end) < len(b) && (end[len(end)-1] == ' ' || end[len(end)-1] == '\t') {
		b = bytes.TrimSpace(end)
	}
	return string(validUTF8(capBytes(b, maxHeadingBytes)))
}

func run(b []byte, c byte) int {
	n := 0
	for n < len(b) && b[n] == c {
		n++
	}
	return n
}

// finish closes an open fence and sets heading ends.
func (x *indexer) finish() Index {
	last := x.idx.LineCount - 1
	if x.fence != 0 {
		x.idx.CodeBlocks = append(x.idx.CodeBlocks, CodeBlock{x.fenceLang, x.fenceLine, last})
		x.fence = 0
	}
	// A heading ends before the next heading at its depth or shallower: a
	// stack of open headings, popped when a shallower-or-equal one starts.
	var open []int
	for j := range x.idx.Headings {
		h := &x.idx.Headings[j]
		for len(open) > 0 && x.idx.Headings[open[len(open)-1]].Depth >= h.Depth {
			x.idx.Headings[open[len(open)-1]].EndLine = h.StartLine - 1
			open = open[:len(open)-1]
		}
		open = append(open, j)
	}
	for _, j := range open {
		x.idx.Headings[j].EndLine = last
	}
	return x.idx
}

// isBreak reports whether body is a run of one of '-', '*', '_', '='
// (three or more for a thematic break), blanks allowed: a thematic break or
// a setext underline.
func isBreak(body []byte) bool {
	c, n := body[0], 0
	for _, b := range body {
		switch b {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return c == '=' || n >= 3 || c == '-'
}
