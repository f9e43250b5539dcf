package mdartifact

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
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
	// CodeBlocks are the fenced code blocks in document order.
	CodeBlocks []CodeBlock
}

// maxHeadingBytes caps the heading text kept per heading; the scan looks at
// no more of any line.
const maxHeadingBytes = 4 << 10

// indexer builds an Index line by line. Lines 0..FrontMatterLines-1 are
// held back while front matter may still close, then replayed if it does
// not.
type indexer struct {
	idx       Index
	pending   [][]byte // lines after an opening "---", until it closes
	inFM      bool
	fence     byte // '`' or '~' inside a fence, else 0
	fenceLen  int
	fenceLine int
	fenceLang string
}

func (x *indexer) add(i int, line []byte) {
	x.idx.LineCount = i + 1
	if len(line) > maxHeadingBytes {
		line = line[:maxHeadingBytes]
	}
	if i == 0 && isDelimiter(line) {
		x.inFM = true
		x.pending = append(x.pending, bytes.Clone(line))
		return
	}
	if x.inFM {
		if isDelimiter(line) {
			x.idx.FrontMatter = &Span{0, i}
			x.inFM, x.pending = false, nil
			return
		}
		x.pending = append(x.pending, bytes.Clone(line))
		if i+1 < FrontMatterLines {
			return
		}
		x.replay()
		return
	}
	x.classify(i, line)
}

// replay scans held-back lines as ordinary Markdown (front matter never
// closed).
func (x *indexer) replay() {
	x.inFM = false
	pending := x.pending
	x.pending = nil
	for j, l := range pending {
		x.classify(j, l)
	}
}

func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

func (x *indexer) classify(i int, line []byte) {
	line = bytes.TrimRight(line, "\r")
	indent := 0
	for indent < len(line) && indent < 4 && line[indent] == ' ' {
		indent++
	}
	body := line[indent:]
	if x.fence != 0 {
		if indent < 4 {
			if n := run(body, x.fence); n >= x.fenceLen && len(bytes.TrimSpace(body[n:])) == 0 {
				x.idx.CodeBlocks = append(x.idx.CodeBlocks, CodeBlock{x.fenceLang, x.fenceLine, i})
				x.fence = 0
			}
		}
		return
	}
	if indent >= 4 || len(body) == 0 {
		return
	}
	switch body[0] {
	case '`', '~':
		c := body[0]
		n := run(body, c)
		if n < 3 {
			return
		}
		info := bytes.TrimSpace(body[n:])
		if c == '`' && bytes.IndexByte(info, '`') >= 0 {
			return // not a fence: inline code
		}
		lang := ""
		if f := bytes.Fields(info); len(f) > 0 {
			lang = string(f[0])
		}
		x.fence, x.fenceLen, x.fenceLine, x.fenceLang = c, n, i, lang
	case '#':
		n := run(body, '#')
		if n > 6 || n == len(body) || (body[n] != ' ' && body[n] != '\t') {
			return
		}
		x.idx.Headings = append(x.idx.Headings, Heading{Depth: n, Text: headingText(body[n:]), StartLine: i})
	}
}

// headingText trims the text and its optional closing sequence of '#'.
func headingText(b []byte) string {
	b = bytes.TrimSpace(b)
	if end := bytes.TrimRight(b, "#"); len(end) == 0 {
		b = end
	} else if len(end) < len(b) && (end[len(end)-1] == ' ' || end[len(end)-1] == '\t') {
		b = bytes.TrimSpace(end)
	}
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	return string(b)
}

func run(b []byte, c byte) int {
	n := 0
	for n < len(b) && b[n] == c {
		n++
	}
	return n
}

// finish closes an open fence and front matter and sets heading ends.
func (x *indexer) finish() Index {
	if x.inFM {
		x.replay()
	}
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
