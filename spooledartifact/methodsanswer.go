package spooledartifact

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ebbforge/adk/internal/safetext"
)

// DefaultMaxAnswerBytes caps the text of one base tool answer (see
// Forger.MaxAnswerBytes), as the JSON and Markdown kinds cap theirs.
const DefaultMaxAnswerBytes = 64 << 10

// answerWriter builds a base tool's answer line by line within a byte cap,
// so that a query never holds more than the cap of the artifact's text
// (the line iteration is stopped, not the finished answer cut). It joins
// lines with '\n' exactly as the original does when nothing is capped.
type answerWriter struct {
	b      strings.Builder
	capped bool // false: no cap at all
	budget int  // bytes left for lines; the cap's note has room set aside
	lines  int  // lines written
	cut    bool // the first line was too long and only its start is written
}

// newAnswerWriter returns a writer for an answer of at most limit bytes, of
// which reserve are kept for the truncation note; limit < 0 means no cap.
func newAnswerWriter(limit, reserve int) *answerWriter {
	if limit < 0 {
		return &answerWriter{}
	}
	return &answerWriter{capped: true, budget: max(limit-reserve, 0)}
}

// readLimit is the longest line worth reading whole: a longer one cannot
// fit, so readers may hand over its first readLimit bytes only (-1: any).
// The extra bytes past the budget let line cut a first line at a rune
// boundary.
func (w *answerWriter) readLimit() int {
	if !w.capped {
		return -1
	}
	return w.budget + utf8.UTFMax
}

// line appends sep (left out before the first line), prefix and text, and
// reports whether it did. clipped says text is only the start of a longer
// line. A line that does not fit is not written, except the answer's first
// line, whose start fills the budget (w.cut is then set): either way line
// returns false and the answer is complete.
func (w *answerWriter) line(sep, prefix string, text []byte, clipped bool) bool {
	if w.lines == 0 {
		sep = ""
	}
	if !safetext.SafeBytes(text) {
		// The answer is read by a model or shown in a UI: safe text, as
		// the cap counts it. The stored bytes are left as they are.
		text = []byte(safetext.Bytes(text))
	}
	need := len(sep) + len(prefix) + len(text)
	if !w.capped || (!clipped && need <= w.budget) {
		w.b.Grow(need)
		w.b.WriteString(sep)
		w.b.WriteString(prefix)
		w.b.Write(text)
		w.budget -= need
		w.lines++
		return true
	}
	if w.lines > 0 {
		return false
	}
	room := max(w.budget-len(prefix), 0)
	if room < len(text) {
		for room > 0 && !utf8.RuneStart(text[room]) {
			room--
		}
		text = text[:room]
	}
	w.b.WriteString(prefix)
	w.b.Write(text)
	w.lines++
	w.cut = true
	return false
}

// String returns the lines written, or "(empty list)" for none, as the
// original renders an empty list.
func (w *answerWriter) String() string {
	if w.lines == 0 {
		return "(empty list)"
	}
	return w.b.String()
}

// capNote is the last line of an answer the cap stopped at line k of
// [.., end): how to ask for the rest with tool's start argument.
func capNote(limit int, tool string, k, end int, cut bool) string {
	s := "\n(truncated: answer capped at " + strconv.Itoa(limit) + " bytes; "
	next := k
	if cut {
		s += "line " + strconv.Itoa(k) + " is longer and was cut; "
		next = k + 1
	}
	if next >= end {
		return strings.TrimSuffix(s, "; ") + ")"
	}
	return s + "use " + tool + " with start=" + strconv.Itoa(next) + " to continue)"
}

// capNoteRoom is the most bytes capNote can take for lines below end.
func capNoteRoom(limit int, tool string, end int) int {
	return len(capNote(limit, tool, end, end+2, true))
}

// errAnswerFull stops a line iteration once the answer is complete.
var errAnswerFull = errors.New("spooledartifact: answer full")

// eachLineUpTo is EachLine over q with lines longer than limit bytes
// (limit >= 0) handed over as their first limit bytes, clipped true. The
// package's own readers then never assemble such a line whole.
func eachLineUpTo(ctx context.Context, q lineQuerier, start, end, limit int, fn func(i int, line []byte, clipped bool) error) error {
	if sr, ok := q.Reader().(*spoolReader); ok {
		if err := ctx.Err(); err != nil {
			return err
		}
		if count := sr.LineCount(); end < 0 || end > count {
			end = count
		}
		return sr.lines(ctx, start, end, limit, fn)
	}
	return q.EachLine(ctx, start, end, func(i int, line []byte) error {
		if limit >= 0 && len(line) > limit {
			return fn(i, line[:limit], true)
		}
		return fn(i, line, false)
	})
}

// catAnswer renders lines [start, end) of q (end < 0: to the last line)
// within limit bytes (< 0: no cap); a capped answer ends with a note
// naming the artifact_cat start that continues it.
func catAnswer(ctx context.Context, q lineQuerier, start, end, limit int) (string, error) {
	count := q.Reader().LineCount()
	if end < 0 || end > count {
		end = count
	}
	w := newAnswerWriter(limit, capNoteRoom(limit, ToolCat, end))
	stop := -1
	err := eachLineUpTo(ctx, q, start, end, w.readLimit(), func(i int, line []byte, clipped bool) error {
		if !w.line("\n", "", line, clipped) {
			stop = i
			return errAnswerFull
		}
		return nil
	})
	if err != nil && !errors.Is(err, errAnswerFull) {
		return "", err
	}
	if stop < 0 {
		return w.String(), nil
	}
	return w.String() + capNote(limit, ToolCat, stop, end, w.cut), nil
}

// grepQuery is artifact_grep's arguments.
type grepQuery struct {
	pattern, flags string
	maxMatches     int // 0: no cap
	maxBytes       int // 0: no cap
	context        int // lines before and after each match
	start          int // first line searched
	lineNumbers    bool
}

// grepAnswer renders the lines of q matching g.pattern, as GrepResult.Format
// does, streaming the matches (GrepFunc) and their context lines so that it
// stops reading as soon as limit bytes (< 0: no cap) are reached; a capped
// answer ends with a note naming the artifact_grep start that continues it,
// and, when the cap fell in the context after a match, the artifact_cat
// range that shows the rest of that context first (see grepContextNote).
// maxMatches and maxBytes work as in GrepOptions and keep their own note.
func grepAnswer(ctx context.Context, q lineQuerier, g grepQuery, limit int) (string, error) {
	count := q.Reader().LineCount()
	reserve := max(capNoteRoom(limit, ToolGrep, count), len(grepCapsNote(count)))
	if g.context > 0 {
		reserve = max(reserve, grepContextNoteRoom(limit, count))
	}
	w := newAnswerWriter(limit, reserve)
	var (
		next      = g.start // first line neither written nor passed over
		afterEnd  = 0       // end of the last match's after-context
		lastMatch = -1      // last match written
		pending   = -1      // a match found but not written, -1: none (yet)
		seeking   bool      // the answer is full; the scan only looks for pending
		last      = -1      // last line written
		matches   int
		size      int
		capped    bool // maxMatches or maxBytes stopped the scan
		stop      = -1 // the answer cap stopped at this line
	)
	write := func(n int, text []byte, clipped, match bool) bool {
		sep := "\n"
		if g.context > 0 && last >= 0 && n != last+1 {
			sep = "\n--\n"
		}
		var prefix string
		if g.lineNumbers {
			mark := "-"
			if match {
				mark = ":"
			}
			prefix = strconv.Itoa(n) + mark
		}
		if !w.line(sep, prefix, text, clipped) {
			stop = n
			return false
		}
		last = n
		return true
	}
	// contextLines writes the (non-matching) lines [lo, hi).
	contextLines := func(lo, hi int) error {
		if lo >= hi {
			return nil
		}
		return eachLineUpTo(ctx, q, lo, hi, w.readLimit(), func(i int, line []byte, clipped bool) error {
			if !write(i, line, clipped, false) {
				return errAnswerFull
			}
			return nil
		})
	}
	var ctxErr error // an error reading context lines
	err := q.GrepFunc(ctx, g.pattern, &GrepOptions{Flags: g.flags}, func(m int, text []byte) bool {
		if m < g.start {
			return true
		}
		pending = m
		if seeking {
			return false
		}
		if (g.maxMatches > 0 && matches >= g.maxMatches) ||
			(g.maxBytes > 0 && matches > 0 && size+len(text)+1 > g.maxBytes) {
			capped = true
			return false
		}
		if g.context > 0 {
			if ctxErr = contextLines(next, min(afterEnd, m)); ctxErr != nil {
				return false
			}
			next = max(next, min(afterEnd, m))
			if ctxErr = contextLines(max(m-g.context, next), m); ctxErr != nil {
				return false
			}
		}
		if !write(m, text, false, true) {
			if w.cut && g.context > 0 {
				// The answer's first line, a match, was cut: its
				// after-context is still due, up to the next match.
				pending, lastMatch, afterEnd, seeking = -1, m, m+1+g.context, true
				return true
			}
			return false
		}
		pending = -1
		matches++
		size += len(text) + 1
		lastMatch, next, afterEnd = m, m+1, m+1+g.context
		return true
	})
	if err == nil {
		err = ctxErr
	}
	if err == nil && stop < 0 && g.context > 0 {
		err = contextLines(next, min(afterEnd, count))
	}
	if err != nil && !errors.Is(err, errAnswerFull) {
		return "", err
	}
	switch {
	case stop >= 0:
		resume := stop // the first line not shown
		if w.cut {
			resume++
		}
		// A grep from resume shows the lines from the first match at or
		// after it, less its before-context: the after-context lines of
		// lastMatch before those (no match among them) need artifact_cat.
		catEnd := min(afterEnd, count)
		if pending >= 0 {
			catEnd = min(catEnd, pending-g.context)
		}
		if lastMatch < 0 || catEnd <= resume {
			return w.String() + capNote(limit, ToolGrep, stop, count, w.cut), nil
		}
		return w.String() + grepContextNote(limit, stop, w.cut, lastMatch, resume, catEnd, catEnd < count), nil
	case capped:
		return w.String() + grepCapsNote(matches), nil
	}
	return w.String(), nil
}

// grepContextNote is the last line of an artifact_grep answer the cap
// stopped at line k (cut: only its start is shown) inside the context after
// the match at line match: start selects matches, so no grep shows the rest
// of that context, lines [from, to); the note names the artifact_cat call
// that does, then (more) the artifact_grep start that continues after it.
// Following the notes shows every line once and always ends: each grep
// start is past the previous one.
func grepContextNote(limit, k int, cut bool, match, from, to int, more bool) string {
	s := "\n(truncated: answer capped at " + strconv.Itoa(limit) + " bytes; "
	if cut {
		s += "line " + strconv.Itoa(k) + " is longer and was cut; "
	}
	s += "read the rest of the context of the match at line " + strconv.Itoa(match) +
		" with " + ToolCat + " with start=" + strconv.Itoa(from) + ", end=" + strconv.Itoa(to)
	if more {
		s += ", then use " + ToolGrep + " with start=" + strconv.Itoa(to) + " to continue"
	}
	return s + ")"
}

// grepContextNoteRoom is the most bytes grepContextNote can take for lines
// below count.
func grepContextNoteRoom(limit, count int) int {
	return len(grepContextNote(limit, count, true, count, count, count, true))
}

// grepCapsNote ends an answer that maxMatches or maxBytes cut.
func grepCapsNote(matches int) string {
	return "\n(truncated: showing the first " + strconv.Itoa(matches) +
		" matching lines; more lines match. Narrow the pattern or raise maxMatches/maxBytes.)"
}
