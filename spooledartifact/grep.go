package spooledartifact

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// GrepOptions tune Grep; nil means the original's behaviour: every matching
// line, no context, no cap.
type GrepOptions struct {
	// Flags is a subset of "ims": i ignores case, m makes ^ and $ match at
	// line breaks (a no-op on a single line), s lets '.' match '\n' (also a
	// no-op: a line holds no '\n'). They map to RE2's (?ims). "" = none.
	// Unlike JavaScript's m, RE2's never treats '\r' as a line break (see
	// Grep).
	Flags string
	// MaxMatches caps the matching lines returned; 0 means no cap.
	MaxMatches int
	// MaxBytes caps the bytes of matching lines returned (each counted with
	// its '\n'); 0 means no cap. The first match is always returned whole.
	MaxBytes int
	// Before and After add up to that many context lines around each match
	// (not counted by the caps).
	Before, After int
}

// GrepLine is one line of a grep result.
type GrepLine struct {
	Line  int    // 0-based line number
	Text  string // the line without its '\n' (its first bytes when Truncated)
	Match bool   // false for a context line
	// Truncated reports a line longer than 32 MiB: it was matched whole,
	// but Text holds only its first 32 MiB (fewer
	// by up to 3 so as not to split a UTF-8 sequence).
	Truncated bool
}

// GrepResult is what Grep found, in line order.
type GrepResult struct {
	// Lines are the matching lines and, when asked, their context lines.
	Lines []GrepLine
	// Matches is the number of matching lines in Lines.
	Matches int
	// Truncated reports that a cap stopped the scan while more lines matched.
	Truncated bool
}

// Texts returns the text of every line of the result (matches only when no
// context was asked): the original grep's return value.
func (r *GrepResult) Texts() []string {
	out := make([]string, len(r.Lines))
	for i, l := range r.Lines {
		out[i] = l.Text
	}
	return out
}

// Format renders the result as text: lines joined with '\n'; with
// lineNumbers each line is prefixed "N:" (a match) or "N-" (context), N
// 0-based as everywhere; non-adjacent context groups are separated by "--",
// as GNU grep does. A truncated line ends with " …[line truncated after N
// bytes]". No lines gives "".
func (r *GrepResult) Format(lineNumbers bool) string {
	var b strings.Builder
	for i, l := range r.Lines {
		if i > 0 {
			b.WriteByte('\n')
			if l.Line != r.Lines[i-1].Line+1 && r.hasContext() {
				b.WriteString("--\n")
			}
		}
		if lineNumbers {
			b.WriteString(strconv.Itoa(l.Line))
			if l.Match {
				b.WriteByte(':')
			} else {
				b.WriteByte('-')
			}
		}
		b.WriteString(l.Text)
		if l.Truncated {
			fmt.Fprintf(&b, " …[line truncated after %d bytes]", len(l.Text))
		}
	}
	return b.String()
}

func (r *GrepResult) hasContext() bool { return len(r.Lines) != r.Matches }

// Grep returns the lines matching pattern, an RE2 regular expression
// (https://github.com/google/re2/wiki/Syntax), tested against each line on
// its own, in order. It runs in time linear in the artifact's size and holds
// one 256 KiB chunk at a time, and at most 32 MiB of a longer line (which
// is still matched whole, see GrepLine.Truncated). The result is the
// same on every store. JavaScript-only features give ErrUnsupportedRegex,
// other syntax errors ErrInvalidRegex.
//
// One difference from the JavaScript original remains: with the m flag, JS
// also treats '\r' as a line break, so /a$/m matches the line "a\r"; RE2
// (and so Grep) does not, and since lines are split on '\n' only, a CRLF
// file's lines end in '\r'. Write `a\r?$` to match such lines either way.
func (a *Artifact) Grep(ctx context.Context, pattern string, opts *GrepOptions) (*GrepResult, error) {
	var o GrepOptions
	if opts != nil {
		o = *opts
	}
	g, err := compileGrep(pattern, o.Flags)
	if err != nil {
		return nil, err
	}
	res := &GrepResult{}
	size := 0
	var matchLines []int
	err = scanLines(ctx, a.r, g, maxGrepLine, func(line int, text []byte, cut bool) bool {
		if (o.MaxMatches > 0 && res.Matches >= o.MaxMatches) ||
			(o.MaxBytes > 0 && res.Matches > 0 && size+len(text)+1 > o.MaxBytes) {
			res.Truncated = true
			return false
		}
		size += len(text) + 1
		res.Matches++
		res.Lines = append(res.Lines, GrepLine{Line: line, Text: string(text), Match: true, Truncated: cut})
		matchLines = append(matchLines, line)
		return true
	})
	if err != nil {
		return nil, err
	}
	if (o.Before > 0 || o.After > 0) && len(matchLines) > 0 {
		if err := a.addContext(ctx, res, max(o.Before, 0), max(o.After, 0)); err != nil {
			return nil, err
		}
	}
	if res.Lines == nil {
		res.Lines = []GrepLine{}
	}
	return res, nil
}

// GrepFunc streams the lines matching pattern to fn, in order, without
// collecting them (grep -c, or a caller with its own sink); text is valid
// only during the call, and for a line longer than 32 MiB it is the
// line's first bytes, as in GrepLine.Truncated. fn returns false to stop.
// Only opts.Flags is used.
func (a *Artifact) GrepFunc(ctx context.Context, pattern string, opts *GrepOptions, fn func(line int, text []byte) bool) error {
	flags := ""
	if opts != nil {
		flags = opts.Flags
	}
	g, err := compileGrep(pattern, flags)
	if err != nil {
		return err
	}
	return scanLines(ctx, a.r, g, maxGrepLine, func(line int, text []byte, _ bool) bool { return fn(line, text) })
}

// addContext replaces res.Lines with the matches plus their context lines,
// read through the line index range by range.
func (a *Artifact) addContext(ctx context.Context, res *GrepResult, before, after int) error {
	matches := res.Lines
	isMatch := make(map[int]GrepLine, len(matches))
	for _, m := range matches {
		isMatch[m.Line] = m
	}
	var out []GrepLine
	next := 0 // first line not yet emitted
	for i := 0; i < len(matches); {
		lo := max(matches[i].Line-before, next)
		hi := matches[i].Line + after + 1
		j := i + 1
		for j < len(matches) && matches[j].Line-before <= hi {
			hi = matches[j].Line + after + 1
			j++
		}
		err := a.eachLineCut(ctx, lo, hi, maxGrepLine, func(n int, text []byte, cut bool) error {
			if m, ok := isMatch[n]; ok {
				out = append(out, m)
			} else {
				out = append(out, GrepLine{Line: n, Text: string(text), Truncated: cut})
			}
			return nil
		})
		if err != nil {
			return err
		}
		next = hi
		i = j
	}
	res.Lines = out
	return nil
}

// eachLineCut is EachLine with lines longer than limit cut to their first
// limit bytes (at a UTF-8 boundary); this package's readers never hold such
// a line whole.
func (a *Artifact) eachLineCut(ctx context.Context, start, end, limit int, fn func(i int, line []byte, cut bool) error) error {
	cutFn := func(i int, line []byte, cut bool) error {
		if len(line) > limit {
			line, cut = line[:limit], true
		}
		if cut {
			line = trimPartialRune(line)
		}
		return fn(i, line, cut)
	}
	if sr, ok := a.r.(*spoolReader); ok {
		count := sr.LineCount()
		if end < 0 || end > count {
			end = count
		}
		return sr.lines(ctx, start, end, limit, cutFn)
	}
	return a.EachLine(ctx, start, end, func(i int, line []byte) error { return cutFn(i, line, false) })
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b (one a
// cut split), keeping invalid bytes that were there already.
func trimPartialRune(b []byte) []byte {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		if i := len(b) - k; utf8.RuneStart(b[i]) {
			if b[i] >= utf8.RuneSelf && !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// grepChunk is the read size of a grep scan.
const grepChunk = 256 << 10

// maxGrepLine bounds the memory a grep spends on one line. A longer line
// (a minified JSON dump, say) is still matched whole: its first maxGrepLine
// bytes are buffered and the rest is streamed through RE2
// (regexp.MatchReader: linear time, bounded memory), with the same answer
// on every store; a match returns its first maxGrepLine bytes as Text,
// marked Truncated.
const maxGrepLine = 32 << 20

// scanLines feeds every line matching g to emit, in order, until emit
// returns false; a line longer than maxLine is matched whole and emitted as
// its first maxLine bytes (cut at a UTF-8 boundary) with cut set.
// Memory-backed readers are scanned in place; others are streamed through a
// grepChunk buffer that grows up to maxLine for a long line.
func scanLines(ctx context.Context, r Reader, g *grepPattern, maxLine int, emit func(line int, text []byte, cut bool) bool) error {
	if r.ByteLength() == 0 || g.mode == modeNever {
		return ctx.Err()
	}
	if sr, ok := r.(*spoolReader); ok && sr.at == nil {
		return scanMemory(ctx, sr.data, g, maxLine, emit)
	}
	rc, err := r.Open(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	return scanStream(ctx, rc, g, grepChunk, maxLine, emit)
}

// capEmit adapts emit for g.scan, whose lines are whole: one longer than
// maxLine is cut.
func capEmit(maxLine int, emit func(int, []byte, bool) bool) func(int, []byte) bool {
	return func(line int, text []byte) bool {
		if len(text) > maxLine {
			return emit(line, trimPartialRune(text[:maxLine]), true)
		}
		return emit(line, text, false)
	}
}

func scanMemory(ctx context.Context, data []byte, g *grepPattern, maxLine int, emit3 func(int, []byte, bool) bool) error {
	emit := capEmit(maxLine, emit3)
	line := 0
	for len(data) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(data) <= grepChunk {
			g.scan(data, data[len(data)-1] == '\n', line, emit)
			return nil
		}
		cut := bytes.IndexByte(data[grepChunk:], '\n')
		if cut < 0 {
			g.scan(data, false, line, emit)
			return nil
		}
		cut += grepChunk + 1
		var stop bool
		line, stop = g.scan(data[:cut], true, line, emit)
		if stop {
			return nil
		}
		data = data[cut:]
	}
	return nil // data ended with a '\n', which ends its last line
}

// scanStream reads src in chunk-sized reads, growing the buffer up to
// maxLine for a longer line. A line longer than maxLine is matched by
// streaming its rest through RE2 (see lineTail).
func scanStream(ctx context.Context, src io.Reader, g *grepPattern, chunk, maxLine int, emit3 func(int, []byte, bool) bool) error {
	src = ctxReader{ctx, src}
	emit := capEmit(maxLine, emit3)
	buf := make([]byte, min(chunk, maxLine))
	n := 0 // bytes held in buf
	line := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		m, rerr := io.ReadFull(src, buf[n:])
		n += m
		eof := errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF)
		if rerr != nil && !eof {
			return rerr
		}
		data := buf[:n]
		if eof {
			if len(data) > 0 { // else the content ended with a '\n', which ends its last line
				g.scan(data, data[len(data)-1] == '\n', line, emit)
			}
			return nil
		}
		last := bytes.LastIndexByte(data, '\n')
		if last >= 0 {
			var stop bool
			line, stop = g.scan(data[:last+1], true, line, emit)
			if stop {
				return nil
			}
			n = copy(buf, data[last+1:])
			continue
		}
		if len(buf) < maxLine {
			nb := make([]byte, min(2*len(buf), maxLine))
			n = copy(nb, data)
			buf = nb
			continue
		}
		// data is the first maxLine bytes of a longer line (or of one of
		// exactly maxLine bytes): match the whole line, streaming the rest.
		tail := &lineTail{src: src, max: len(buf)}
		var matched bool
		if g.mode == modeLiteral { // bytes.Index speed, not the NFA's
			matched = bytes.Contains(data, g.lit) || tail.contains(g.lit, data[len(data)-min(len(data), len(g.lit)-1):])
		} else {
			matched = g.line.MatchReader(bufio.NewReaderSize(io.MultiReader(bytes.NewReader(data), tail), 64<<10))
		}
		if err := tail.drain(); err != nil {
			return err
		}
		if matched {
			text, cut := data, tail.n > 0
			if cut {
				text = trimPartialRune(text)
			}
			if !emit3(line, text, cut) {
				return nil
			}
		}
		if !tail.newline { // the line ended the content
			return nil
		}
		line++
		n = copy(buf, tail.rest)
	}
}

// lineTail reads src up to its next '\n' and ends there (io.EOF), keeping
// what it read past the '\n' in rest: the rest of an over-long line, fed to
// regexp.MatchReader.
type lineTail struct {
	src     io.Reader
	max     int    // the most bytes read at once, so that rest fits the scan buffer
	n       int64  // bytes of the line returned (the '\n' excluded)
	rest    []byte // bytes read past the '\n'
	done    bool   // the '\n', the end of src or an error was reached
	newline bool   // the line ended with a '\n'
	err     error  // a read error other than io.EOF
}

func (t *lineTail) Read(p []byte) (int, error) {
	if t.done {
		return 0, io.EOF
	}
	k, err := t.src.Read(p[:min(len(p), t.max)])
	if q := bytes.IndexByte(p[:k], '\n'); q >= 0 {
		t.rest = append(t.rest[:0], p[q+1:k]...)
		t.done, t.newline = true, true
		t.n += int64(q)
		return q, io.EOF
	}
	t.n += int64(k)
	if err != nil {
		t.done = true
		if err != io.EOF {
			t.err = err
		}
		return k, io.EOF
	}
	return k, nil
}

// contains reports whether lit occurs in carry (the end of what came
// before, shorter than lit) and the rest of the line, reading until it
// finds it.
func (t *lineTail) contains(lit, carry []byte) bool {
	win := make([]byte, 0, len(lit)-1+min(64<<10, t.max))
	win = append(win, carry...)
	for !t.done {
		k := len(win)
		n, _ := t.Read(win[k:cap(win)])
		win = win[:k+n]
		if bytes.Contains(win, lit) {
			return true
		}
		keep := min(len(win), len(lit)-1)
		win = win[:copy(win, win[len(win)-keep:])]
	}
	return false
}

// drain reads to the end of the line, for a match that stopped early, and
// returns the read error, if any.
func (t *lineTail) drain() error {
	var scratch []byte
	for !t.done {
		if scratch == nil {
			scratch = make([]byte, min(64<<10, t.max))
		}
		t.Read(scratch)
	}
	return t.err
}

// scan finds the matching lines of region, whose first line is number
// first. When terminated, region ends with '\n' and holds exactly its
// newline count of lines; otherwise its last line is unterminated (it may be
// empty). It returns the number of the line after region and whether emit
// asked to stop. The error result of the callers is ctx's, checked per chunk.
func (g *grepPattern) scan(region []byte, terminated bool, first int, emit func(int, []byte) bool) (int, bool) {
	cp, ln := 0, first // line ln starts at region[cp]
	limit := len(region)
	if terminated {
		limit-- // the position after the final '\n' starts no line here
	}
	found := func(p int) (ls, le int) {
		ls = bytes.LastIndexByte(region[:p], '\n') + 1
		le = bytes.IndexByte(region[p:], '\n')
		if le < 0 {
			le = len(region)
		} else {
			le += p
		}
		return ls, le
	}
	lineAt := func(ls int) int {
		ln += bytes.Count(region[cp:ls], nlSep)
		cp = ls
		return ln
	}
	if g.mode == modeLine {
		for pos := 0; pos <= limit; {
			le := bytes.IndexByte(region[pos:], '\n')
			if le < 0 {
				le = len(region)
			} else {
				le += pos
			}
			if g.line.Match(region[pos:le]) && !emit(lineAt(pos), region[pos:le]) {
				return 0, true
			}
			pos = le + 1
		}
		return ln + bytes.Count(region[cp:], nlSep), false
	}
	g.choose(region)
	var scratch []byte
	hay := region // where the literal is searched: region, or a lowered copy (same offsets)
	if g.fold {
		hay = lowerASCII(region, &g.lower)
	}
	for pos := 0; pos <= limit; {
		q := bytes.Index(hay[pos:], g.lit)
		if q < 0 {
			break
		}
		p := pos + q
		ls, le := found(p)
		pos = le + 1
		if g.mode == modePrefilter && !g.verify(region[ls:le], hay[ls:le], p-ls, &scratch) {
			continue
		}
		if !emit(lineAt(ls), region[ls:le]) {
			return 0, true
		}
	}
	return ln + bytes.Count(region[cp:], nlSep), false
}
