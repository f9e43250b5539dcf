package spooledartifact

import "bytes"

// DefaultIndexStride is how many lines share one index checkpoint: the index
// keeps the byte offset of every 64th line start, so 1 GiB of 35-byte lines
// (about 30M lines) costs under 4 MiB of index instead of 240 MB, and a
// lookup scans at most 63 lines forward from its checkpoint.
const DefaultIndexStride = 64

// lineIndex is a sparse line-start index: marks[j] is the byte offset of line
// j*stride. It is immutable once built.
type lineIndex struct {
	stride int
	marks  []int64
	lines  int
	size   int64
}

// indexBuilder builds a lineIndex from the bytes written to it, in order, in
// one pass; it never keeps the bytes.
type indexBuilder struct {
	stride int
	marks  []int64
	nl     int // newlines seen
	pos    int64
}

func newIndexBuilder(stride int) *indexBuilder {
	if stride <= 0 {
		stride = DefaultIndexStride
	}
	return &indexBuilder{stride: stride, marks: []int64{0}}
}

// Write records the line starts in p; it never fails.
func (b *indexBuilder) Write(p []byte) (int, error) {
	// Count 4 KiB windows with bytes.Count (vectorised) and walk newline by
	// newline only in a window that holds the next checkpoint.
	rest := p
	base := b.pos // offset of rest[0]
	for len(rest) > 0 {
		need := b.stride - b.nl%b.stride // newlines until the next checkpoint
		w := min(len(rest), 4096)
		if c := bytes.Count(rest[:w], nlSep); c < need {
			b.nl += c
			base += int64(w)
			rest = rest[w:]
			continue
		}
		for k := 0; k < need; k++ {
			q := bytes.IndexByte(rest, '\n')
			base += int64(q + 1)
			rest = rest[q+1:]
		}
		b.nl += need
		b.marks = append(b.marks, base)
	}
	b.pos += int64(len(p))
	return len(p), nil
}

func (b *indexBuilder) done() lineIndex {
	idx := lineIndex{stride: b.stride, size: b.pos}
	if b.pos == 0 {
		return idx
	}
	idx.lines = b.nl + 1
	idx.marks = b.marks
	// A mark for a line start == size exists only when the text ends in
	// '\n' (the empty last line); it is still a valid line start.
	return idx
}

var nlSep = []byte{'\n'}

// checkpoint returns the nearest indexed line at or before line i and its
// byte offset.
func (x *lineIndex) checkpoint(i int) (line int, off int64) {
	j := i / x.stride
	return j * x.stride, x.marks[j]
}
