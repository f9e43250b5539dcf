package mdartifact

import "bytes"

// MaxNesting bounds the block containers (block quotes and list items) a
// line parsed by Links, Images, Text and AST may be nested in: goldmark's
// time grows with the square of the nesting of a line (4 MiB of '>' ran for
// more than 5 minutes, where ctx cannot stop it), and its tree is walked
// recursively. A line of the requested range over it is ErrTooDeep, found
// by lineNesting before parsing. At the limit a MiB of such lines parses
// in about a second, as shallow but unusual Markdown can already take.
const MaxNesting = 1000

// lineNesting returns an upper bound on the containers line is nested in:
// every container needs a '>' or a list marker ("-", "+", "*", or up to 9
// digits then "." or ")", each followed by a space, a tab or the end of
// the line) in the line's leading run of markers and blanks, or, a list
// item continued by indentation, at least two columns of blanks there (a
// tab counts 4). The blank that ends a marker is part of it. It reads no
// further than that leading run (see containerRun).
func lineNesting(line []byte) int {
	markers := 0
	_, cols := containerRun(line, func(bool, int, int) { markers++ })
	return markers + cols/2
}

// containerRun walks the leading run of block quote and list markers and
// blanks of line, the run lineNesting bounds and the index looks past for
// fences. It calls marker for each marker in order, with quote true for a
// '>', at the offset of its first byte and past the offset just after it
// (before the blank that ends it). It returns the offset where the run
// ends (the content's first byte, or len(line)) and the columns of blanks
// in the run that no marker ends (a tab counts 4).
func containerRun(line []byte, marker func(quote bool, at, past int)) (end, cols int) {
	blank := func(i int) bool { return i == len(line) || line[i] == ' ' || line[i] == '\t' }
	i := 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ':
			cols++
			i++
		case c == '\t':
			cols += 4
			i++
		case c == '>':
			marker(true, i, i+1)
			i++
			if i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				i++
			}
		case (c == '-' || c == '+' || c == '*') && blank(i+1):
			marker(false, i, i+1)
			i += 2
		case '0' <= c && c <= '9':
			j := i + 1
			for j < len(line) && j-i < 9 && '0' <= line[j] && line[j] <= '9' {
				j++
			}
			if j == len(line) || (line[j] != '.' && line[j] != ')') || !blank(j+1) {
				return i, cols
			}
			marker(false, i, j+1)
			i = j + 2
		default:
			return i, cols
		}
	}
	return min(i, len(line)), cols
}

// maxNesting is the largest lineNesting of the lines in line: goldmark, as
// CommonMark, also ends a line at a '\r', which the line index does not.
func maxNesting(line []byte) int {
	n := lineNesting(line)
	for {
		i := bytes.IndexByte(line, '\r')
		if i < 0 {
			return n
		}
		line = line[i+1:]
		n = max(n, lineNesting(line))
	}
}
