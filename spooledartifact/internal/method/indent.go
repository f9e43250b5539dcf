package method

import "github.com/ebbforge/adk/internal/quoted"

// IndentJSON appends to dst the JSON src indented two spaces as
// json.Indent(buf, src, prefix, "  ") renders it, but at most limit bytes
// of it, and returns the extended buffer and the length of the whole
// rendering, counted without building it. With CapAnswerOf, a kind renders
// a JSON answer only up to its cap: indenting repeats the indent on every
// line, so the whole rendering is about the size of src times its depth
// (1 MiB nested 999 deep rendered to gigabytes before it was cut to 64
// KiB). src is not validated (the kinds pass JSON they have validated):
// other input is laid out as far as it reads like JSON, without error.
func IndentJSON(dst, src []byte, prefix string, limit int) ([]byte, int) {
	const indent = "  "
	w := cappedWriter{buf: dst, room: max(limit, 0)}
	// As json.Indent: blanks are dropped but for those after the
	// top-level value, an empty array or object stays [] or {}, and an
	// element starts a line with prefix and one indent per level.
	depth, open := 0, 0
	needIndent, started := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			if open == 0 && started {
				w.byte(c)
			}
			continue
		}
		started = true
		if needIndent && c != ']' && c != '}' {
			needIndent = false
			depth++
			w.newline(prefix, indent, depth)
		}
		switch c {
		case '"':
			end := min(quoted.End(src, i), len(src)-1) // an unclosed string runs to the end
			w.write(src[i : end+1])
			i = end
		case '[', '{':
			open++
			needIndent = true
			w.byte(c)
		case ']', '}':
			open--
			if needIndent {
				needIndent = false // [] and {}
			} else {
				depth = max(depth-1, 0)
				w.newline(prefix, indent, depth)
			}
			w.byte(c)
		case ',':
			w.byte(c)
			w.newline(prefix, indent, depth)
		case ':':
			w.byte(c)
			w.byte(' ')
		default:
			w.byte(c)
		}
	}
	return w.buf, w.total
}

// cappedWriter appends up to room bytes to buf and counts all it is given.
type cappedWriter struct {
	buf   []byte
	room  int
	total int
}

func (w *cappedWriter) write(p []byte) {
	w.total += len(p)
	if k := min(len(p), w.room); k > 0 {
		w.buf = append(w.buf, p[:k]...)
		w.room -= k
	}
}

func (w *cappedWriter) str(s string) {
	w.total += len(s)
	if k := min(len(s), w.room); k > 0 {
		w.buf = append(w.buf, s[:k]...)
		w.room -= k
	}
}

func (w *cappedWriter) byte(c byte) {
	w.total++
	if w.room > 0 {
		w.buf = append(w.buf, c)
		w.room--
	}
}

func (w *cappedWriter) newline(prefix, indent string, depth int) {
	w.byte('\n')
	w.str(prefix)
	for d := range depth {
		if w.room == 0 { // only count the rest
			w.total += (depth - d) * len(indent)
			return
		}
		w.str(indent)
	}
}
