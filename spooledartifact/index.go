package spooledartifact

import (
	"bytes"
	"sort"
)

// defaultIndexStride is the fewest lines between two line-index
// checkpoints (see defaultIndexSpan for the byte rule that goes with it).
const defaultIndexStride = 64

// defaultIndexSpan is the fewest bytes between two line-index checkpoints.
//
// A checkpoint (a line number and its byte offset, 16 bytes) is placed at a
// line start once both defaultIndexStride lines and defaultIndexSpan bytes
// have passed since the previous one, or once 16 spans (1 MiB) have passed
// whatever the line count. So the index holds at most one checkpoint per
// 64 KiB however dense the newlines (1 GiB of "\n" costs 256 KiB of index,
// not 128 MiB), and a lookup scans less than 1 MiB from its checkpoint, and
// less than 64 KiB plus 64 lines: microseconds for short lines.
const defaultIndexSpan = 64 << 10

// indexMaxSpans is how many spans force a checkpoint whatever the line count,
// so that long lines (where 64 lines can be many MiB) stay cheap to reach.
const indexMaxSpans = 16

// indexMark is one checkpoint: line starts at byte off.
type indexMark struct {
	line int
	off  int64
}

// lineIndex is a sparse line-start index: marks[0] is line 0 at offset 0 and
// the others follow in order (see defaultIndexSpan for the spacing). It is
// immutable once built.
type lineIndex struct {
	marks []indexMark
	lines int
	size  int64
}

// indexShape is the checkpoint spacing: at least stride lines and span
// bytes apart, or span*indexMaxSpans bytes.
type indexShape struct {
	stride int
	span   int64
}

func (s indexShape) norm() indexShape {
	if s.stride <= 0 {
		s.stride = defaultIndexStride
	}
	if s.span <= 0 {
		s.span = defaultIndexSpan
	}
	return s
}

// indexBuilder builds a lineIndex from the bytes written to it, in order, in
// one pass; it never keeps the bytes.
type indexBuilder struct {
	shape indexShape
	marks []indexMark
	nl    int   // newlines seen
	pos   int64 // bytes seen
	last  byte  // the last byte seen
}

func newIndexBuilder(shape indexShape) *indexBuilder {
	return &indexBuilder{shape: shape.norm(), marks: []indexMark{{}}}
}

// Write records the line starts in p; it never fails.
func (b *indexBuilder) Write(p []byte) (int, error) {
	rest := p
	base := b.pos // offset of rest[0]
	for len(rest) > 0 {
		last := b.marks[len(b.marks)-1]
		// No line start before last.off+span can be a checkpoint: count the
		// newlines up to there (vectorised) without looking at them.
		if first := last.off + b.shape.span - 1; base < first { // a '\n' at first starts an eligible line
			w := min(int64(len(rest)), first-base)
			b.nl += bytes.Count(rest[:w], nlSep)
			base += w
			rest = rest[w:]
			continue
		}
		// Every line start from here on is far enough in bytes; take the
		// first one that is also far enough in lines, or past the maximum
		// span. This walks fewer than stride newlines per checkpoint.
		q := bytes.IndexByte(rest, '\n')
		if q < 0 {
			break
		}
		b.nl++
		start := base + int64(q) + 1
		if b.nl-last.line >= b.shape.stride || start-last.off >= b.shape.span*indexMaxSpans {
			b.marks = append(b.marks, indexMark{line: b.nl, off: start})
		}
		base = start
		rest = rest[q+1:]
	}
	b.pos += int64(len(p))
	if len(p) > 0 {
		b.last = p[len(p)-1]
	}
	return len(p), nil
}

func (b *indexBuilder) done() lineIndex {
	idx := lineIndex{size: b.pos}
	if b.pos == 0 {
		idx.marks = b.marks[:1]
		return idx
	}
	// A final '\n' ends the last line; it does not start another.
	idx.lines = b.nl + 1
	marks := b.marks
	if b.last == '\n' {
		idx.lines = b.nl
		if m := marks[len(marks)-1]; len(marks) > 1 && m.off == b.pos {
			marks = marks[:len(marks)-1] // the start of no line
		}
	}
	// Trim the append slack: the index lives as long as its readers.
	idx.marks = marks
	if cap(marks) > len(marks) {
		idx.marks = append([]indexMark(nil), marks...)
	}
	return idx
}

var nlSep = []byte{'\n'}

// checkpoint returns the nearest indexed line at or before line i and its
// byte offset.
func (x *lineIndex) checkpoint(i int) (line int, off int64) {
	k := sort.Search(len(x.marks), func(k int) bool { return x.marks[k].line > i }) - 1
	m := x.marks[max(k, 0)]
	return m.line, m.off
}

// skipLines returns the offset in b just after its k-th '\n' (k >= 1), or
// -1 and the number of newlines b holds when it holds fewer than k. It
// counts whole windows with bytes.Count and walks newline by newline only in
// the window that holds the k-th.
func skipLines(b []byte, k int) (off int, seen int) {
	const window = 1 << 10
	pos := 0
	for pos < len(b) {
		w := min(len(b)-pos, window)
		c := bytes.Count(b[pos:pos+w], nlSep)
		if seen+c < k {
			seen += c
			pos += w
			continue
		}
		for {
			q := bytes.IndexByte(b[pos:], '\n')
			pos += q + 1
			seen++
			if seen == k {
				return pos, seen
			}
		}
	}
	return -1, seen
}
