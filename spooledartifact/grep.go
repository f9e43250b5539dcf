package spooledartifact

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
)

// GrepOptions tune Grep; nil means the original's behaviour: every matching
// line, no context, no cap.
type GrepOptions struct {
	// Flags is a subset of "ims": i ignores case, m makes ^ and $ match at
	// line breaks (a no-op on a single line), s lets '.' match '\n' (also a
	// no-op: a line holds no '\n'). They map to RE2's (?ims). "" = none.
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
	Text  string // the line without its '\n'
	Match bool   // false for a context line
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
// as GNU grep does. No lines gives "".
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
	}
	return b.String()
}

func (r *GrepResult) hasContext() bool { return len(r.Lines) != r.Matches }

// Grep returns the lines matching pattern, an RE2 regular expression
// (https://github.com/google/re2/wiki/Syntax), tested against each line on
// its own, in order. It runs in time linear in the artifact's size and holds
// one 256 KiB chunk at a time (see MaxGrepLine for giant lines). JavaScript-only
// features give ErrUnsupportedRegex, other syntax errors ErrInvalidRegex.
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
	err = scanLines(ctx, a.r, g, func(line int, text []byte) bool {
		if (o.MaxMatches > 0 && res.Matches >= o.MaxMatches) ||
			(o.MaxBytes > 0 && res.Matches > 0 && size+len(text)+1 > o.MaxBytes) {
			res.Truncated = true
			return false
		}
		size += len(text) + 1
		res.Matches++
		res.Lines = append(res.Lines, GrepLine{Line: line, Text: string(text), Match: true})
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
// only during the call. fn returns false to stop. Only opts.Flags is used.
func (a *Artifact) GrepFunc(ctx context.Context, pattern string, opts *GrepOptions, fn func(line int, text []byte) bool) error {
	flags := ""
	if opts != nil {
		flags = opts.Flags
	}
	g, err := compileGrep(pattern, flags)
	if err != nil {
		return err
	}
	return scanLines(ctx, a.r, g, fn)
}

// addContext replaces res.Lines with the matches plus their context lines,
// read through the line index range by range.
func (a *Artifact) addContext(ctx context.Context, res *GrepResult, before, after int) error {
	matches := res.Lines
	isMatch := make(map[int]string, len(matches))
	for _, m := range matches {
		isMatch[m.Line] = m.Text
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
		err := a.EachLine(ctx, lo, hi, func(n int, text []byte) error {
			if t, ok := isMatch[n]; ok {
				out = append(out, GrepLine{Line: n, Text: t, Match: true})
			} else {
				out = append(out, GrepLine{Line: n, Text: string(text)})
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

// grepChunk is the read size of a grep scan.
const grepChunk = 256 << 10

// MaxGrepLine bounds the memory a grep spends on one line. A line longer
// than this is matched on its first MaxGrepLine bytes only, and a match
// returns that prefix: a deliberate limit so that a query of a giant
// one-line artifact (a minified JSON dump) stays in bounded memory.
const MaxGrepLine = 32 << 20

// scanLines feeds every line matching g to emit, in order, until emit
// returns false. Memory-backed readers are scanned in place; others are
// streamed through a grepChunk buffer.
func scanLines(ctx context.Context, r Reader, g *grepPattern, emit func(line int, text []byte) bool) error {
	if r.ByteLength() == 0 || g.mode == modeNever {
		return ctx.Err()
	}
	if sr, ok := r.(*spoolReader); ok && sr.f == nil {
		return scanMemory(ctx, sr.data, g, emit)
	}
	rc, err := r.Open(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	return scanStream(ctx, rc, g, grepChunk, MaxGrepLine, emit)
}

func scanMemory(ctx context.Context, data []byte, g *grepPattern, emit func(int, []byte) bool) error {
	line := 0
	for len(data) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(data) <= grepChunk {
			g.scan(data, false, line, emit)
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
	// data ended right after a '\n': the empty last line.
	g.scan(nil, false, line, emit)
	return nil
}

// scanStream reads src in chunk-sized reads, growing the buffer up to
// maxLine for a longer line.
func scanStream(ctx context.Context, src io.Reader, g *grepPattern, chunk, maxLine int, emit func(int, []byte) bool) error {
	buf := make([]byte, chunk)
	n := 0 // bytes held in buf
	line := 0
	skipping := false // discarding the rest of an over-long line
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
		if skipping {
			q := bytes.IndexByte(data, '\n')
			if q < 0 {
				if eof {
					return nil
				}
				n = 0
				continue
			}
			skipping = false
			data = data[q+1:]
			line++
		}
		if eof {
			g.scan(data, false, line, emit)
			return nil
		}
		last := bytes.LastIndexByte(data, '\n')
		if last < 0 {
			if len(data) < len(buf) { // room left (after a skip): read more
				n = copy(buf, data)
				continue
			}
			if len(buf) < maxLine {
				nb := make([]byte, min(2*len(buf), maxLine))
				n = copy(nb, data)
				buf = nb
				continue
			}
			// Over-long line: match its prefix, then skip to its end.
			if _, stop := g.scan(data, false, line, emit); stop {
				return nil
			}
			skipping = true
			n = 0
			continue
		}
		var stop bool
		line, stop = g.scan(data[:last+1], true, line, emit)
		if stop {
			return nil
		}
		n = copy(buf, data[last+1:])
	}
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
