package mdartifact

import (
	"context"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// DefaultMaxParseWork is the work budget of one parse (see
// Kind.MaxParseWork), in units of about a byte scanned: at most a few
// tenths of a second of parsing.
const DefaultMaxParseWork = 128 << 20

// CommonMark inline parsing is quadratic on some inputs in goldmark: every
// "](" of a line of "[a](" scans the rest of the line for the link's end,
// every "_" of "*a_*a_..." searches all earlier delimiters for an opener,
// and every unmatched code-span opener scans the rest of its paragraph. A
// parse is therefore metered, each inline parser call charged an upper
// bound of the bytes it scanned:
//
//   - a parser that scans ahead (a link or image at its "](", a code span,
//     an HTML comment, processing instruction or declaration) is charged
//     what it consumed when it matched, and the rest of the line (for a
//     link, linkScanCost per byte) or of the paragraph when it did not,
//     which it may all have scanned; a search for a link title's or a
//     reference label's end likewise;
//   - each delimiter pairing attempt (emphasis, strikethrough) is charged
//     delimiterCost;
//   - any other call one unit plus the bytes it consumed.
//
// The meter stops the parse with ErrTooComplex once the budget is spent,
// and with ctx's error as soon as ctx ends (checked at every charge), so
// that no parse runs on after its caller gave up. Being an upper bound, the
// budget can also stop a long paragraph dense with unmatched brackets or
// backticks that goldmark would have parsed quickly; artifact_cat reads
// such lines as they are.

// linkScanCost is the charge per byte of the rest of a line a link's
// destination was searched in without a match: goldmark spends several
// times longer on it than on a byte of a code span.
const linkScanCost = 8

// delimiterCost is the charge of one delimiter pairing attempt, in
// scanned-byte units (an attempt costs about as much as scanning that many
// bytes).
const delimiterCost = 32

// meter is one parse's budget; see above. It is kept in the parser
// context.
type meter struct {
	ctx  context.Context
	left int64
	err  error // why the parse was stopped
}

// charge spends units; when the budget is spent or ctx has ended it
// records why and stops the parse by panicking with the meter, which
// parse recovers.
func (m *meter) charge(units int) {
	m.left -= int64(units)
	if m.left < 0 && m.err == nil {
		m.err = ErrTooComplex.With(nil, "mdartifact: the lines need more parsing work than Kind.MaxParseWork allows (Markdown dense with brackets, backticks or emphasis marks); ask for a narrower startLine/endLine range, or read the lines with artifact_cat")
	}
	if m.err == nil {
		m.err = m.ctx.Err()
	}
	if m.err != nil {
		panic(m)
	}
}

var meterKey = parser.NewContextKey()

func meterOf(pc parser.Context) *meter { return pc.Get(meterKey).(*meter) }

// parse parses src with goldmark (CommonMark + GFM) under ctx and a
// budget of work units.
func parse(ctx context.Context, src []byte, budget int64) (doc ast.Node, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return parseWith(&meter{ctx: ctx, left: budget}, src)
}

// parseWith is parse charging m.
func parseWith(m *meter, src []byte) (doc ast.Node, err error) {
	pc := parser.NewContext()
	pc.Set(meterKey, m)
	defer func() {
		if p := recover(); p != nil {
			if p != m {
				panic(p)
			}
			doc, err = nil, m.err
		}
	}()
	return meteredParser().Parse(text.NewReader(src), parser.WithContext(pc)), nil
}

// meteredParser is goldmark's CommonMark parser with the GFM extensions
// (tables, strikethrough, task lists, autolinks), every inline parser
// metered. Parsers are safe for concurrent use; per-parse state is in the
// parser context.
var meteredParser = sync.OnceValue(func() parser.Parser {
	inline := []util.PrioritizedValue{
		// The priorities goldmark and its GFM extensions register them with.
		util.Prioritized(metered(parser.NewCodeSpanParser(), codeSpans), 100),
		util.Prioritized(metered(parser.NewLinkParser(), links), 200),
		util.Prioritized(metered(parser.NewAutoLinkParser(), consumes), 300),
		util.Prioritized(metered(parser.NewRawHTMLParser(), rawHTML), 400),
		util.Prioritized(metered(parser.NewEmphasisParser(), delimits), 500),
		util.Prioritized(metered(extension.NewStrikethroughParser(), delimits), 500),
		util.Prioritized(metered(extension.NewLinkifyParser(), consumes), 999),
		util.Prioritized(metered(extension.NewTaskCheckBoxParser(), consumes), 0),
	}
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(inline...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(extension.NewTableParagraphTransformer(), 200))...),
		parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
	)
})

// How a metered inline parser is charged.
type charging int

const (
	consumes  charging = iota // one unit and the bytes it consumes
	delimits                  // one unit, and delimiterCost per pairing attempt of its delimiters
	codeSpans                 // as scansAhead, up to the paragraph's end
	links                     // at a "](", as scansAhead up to the line's end; else as consumes
	rawHTML                   // comments and the like as codeSpans; tags as consumes
)

// meteredInline charges an inline parser's work to the parse's meter.
type meteredInline struct {
	parser.InlineParser
	how charging
}

func metered(p parser.InlineParser, how charging) parser.InlineParser {
	if cb, ok := p.(parser.CloseBlocker); ok {
		return &meteredCloser{meteredInline{p, how}, cb}
	}
	return &meteredInline{p, how}
}

func (p *meteredInline) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	m := meterOf(pc)
	m.charge(1)
	switch p.how {
	case delimits:
		n := p.InlineParser.Parse(parent, block, pc)
		if d, ok := n.(*parser.Delimiter); ok {
			d.Processor = &meteredDelimiters{DelimiterProcessor: d.Processor, m: m}
		}
		return n
	case codeSpans:
		return p.scansAhead(parent, block, pc, m, true)
	case links:
		if line, _ := block.PeekLine(); len(line) > 1 && line[0] == ']' && line[1] == '(' {
			return p.scansAhead(parent, block, pc, m, false)
		}
	case rawHTML:
		if line, _ := block.PeekLine(); len(line) > 1 && (line[1] == '!' || line[1] == '?') {
			return p.scansAhead(parent, block, pc, m, true)
		}
	}
	_, before := block.Position()
	n := p.InlineParser.Parse(parent, block, pc)
	_, after := block.Position()
	m.charge(max(after.Start-before.Start, 0))
	return n
}

// scansAhead runs a parser that may scan to the end of the line (or of the
// paragraph, when toBlockEnd) before it knows whether it matches: it is
// charged what it consumed when it matched and all it may have scanned
// when it did not.
func (p *meteredInline) scansAhead(parent ast.Node, block text.Reader, pc parser.Context, m *meter, toBlockEnd bool) ast.Node {
	_, before := block.Position()
	n := p.InlineParser.Parse(parent, &meteredReader{Reader: block, m: m}, pc)
	if n != nil {
		_, after := block.Position()
		m.charge(max(after.Start-before.Start, 0))
		return n
	}
	if toBlockEnd {
		m.charge(restOfBlock(block))
	} else {
		line, _ := block.PeekLine()
		m.charge(linkScanCost * len(line))
	}
	return nil
}

// meteredCloser is a meteredInline whose parser also closes blocks (the
// link parser pairs the delimiters left at a paragraph's end then).
type meteredCloser struct {
	meteredInline
	cb parser.CloseBlocker
}

func (p *meteredCloser) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	m := meterOf(pc)
	m.charge(1)
	p.cb.CloseBlock(parent, &meteredReader{Reader: block, m: m}, pc)
}

// meteredReader charges a search for a closing character (a link title,
// a reference label) before it runs.
type meteredReader struct {
	text.Reader
	m *meter
}

// FindClosure is charged what it scanned: up to the closer when it found
// one, else the rest of the line, or of the paragraph when the closure
// may span lines.
func (r *meteredReader) FindClosure(opener, closer byte, options text.FindClosureOptions) (*text.Segments, bool) {
	segs, ok := r.Reader.FindClosure(opener, closer, options)
	switch {
	case ok && segs != nil:
		n := 0
		for i := range segs.Len() {
			seg := segs.At(i)
			n += seg.Len()
		}
		r.m.charge(1 + n)
	case options.Newline:
		r.m.charge(1 + restOfBlock(r.Reader))
	default:
		line, _ := r.Reader.PeekLine()
		r.m.charge(1 + len(line))
	}
	return segs, ok
}

// restOfBlock is the length of r's lines from its position on; r's
// position is kept.
func restOfBlock(r text.Reader) int {
	l, pos := r.Position()
	n := 0
	for {
		line, _ := r.PeekLine()
		if line == nil {
			break
		}
		n += len(line)
		r.AdvanceLine()
	}
	r.SetPosition(l, pos)
	return n
}

// meteredDelimiters charges each pairing attempt of a delimiter.
type meteredDelimiters struct {
	parser.DelimiterProcessor
	m *meter
}

func (d *meteredDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	d.m.charge(delimiterCost)
	return d.DelimiterProcessor.CanOpenCloser(opener, closer)
}
