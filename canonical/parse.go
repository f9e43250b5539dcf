package canonical

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// parser canonicalises one raw JSON document in a single left-to-right
// pass, validating it as it goes.
//
// Output is produced lazily: data[from:i], where i is the read position,
// is input that is already canonical and has not been copied yet, so runs
// of canonical text (whole sorted containers, most strings and numbers)
// cost one copy each. Only what differs (whitespace, escapes, numbers
// JavaScript prints otherwise) breaks a run. An object whose keys arrive
// out of order is put in order when it closes: its members already sit in
// the output, and are moved as spans.
type parser struct {
	st       *state
	data     []byte
	out      []byte // canonical text so far
	from     int    // start of the pending run of canonical input
	maxDepth int
	objects  int  // open objects: while one is, its members may still move
	stream   bool // finished output goes to st.w as soon as no object is open
}

// canon validates data as one JSON text (JSON.parse grammar: surrounding
// whitespace allowed, nothing else) and appends its canonical text to
// st.buf. maxDepth bounds the nesting of containers. With stream set and
// st.w not nil, finished output may be written to st.w instead. On error
// st.buf holds partial output: callers discard it.
func (st *state) canon(data []byte, maxDepth int, stream bool) error {
	if uint64(len(data)) >= math.MaxUint32 {
		return fmt.Errorf("%w: document larger than 4 GiB", ErrLimit)
	}
	p := parser{st: st, data: data, out: st.buf, maxDepth: maxDepth, stream: stream && st.w != nil}
	p.out = slices.Grow(p.out, len(data)+len(data)/16+64) // about the final size, at once
	i := skipSpace(data, 0)
	p.from = i
	i, err := p.value(i, 0)
	if err != nil {
		return err
	}
	if end := skipSpace(data, i); end != len(data) {
		return syntaxError(data, end, "expecting end of input")
	}
	st.buf = append(p.out, data[p.from:i]...)
	return nil
}

// pos is the output offset data[i] will have once the pending run is copied.
func (p *parser) pos(i int) int { return len(p.out) + i - p.from }

// rewrite copies the pending run up to data[i], where text the caller
// rewrites begins; the caller then appends it and sets from past it.
func (p *parser) rewrite(i int) { p.out = append(p.out, p.data[p.from:i]...) }

// space skips the whitespace at data[i], which is not copied.
func (p *parser) space(i int) int {
	if i < len(p.data) && p.data[i] <= ' ' {
		p.rewrite(i)
		i = skipSpace(p.data, i)
		p.from = i
	}
	return i
}

// value canonicalises the value at data[i], inside depth containers, and
// returns the index just past it.
func (p *parser) value(i, depth int) (int, error) {
	data := p.data
	if i >= len(data) {
		return 0, syntaxError(data, i, "expecting a value")
	}
	switch c := data[i]; {
	case c == '"':
		return p.str(i)
	case c == '[':
		return p.array(i, depth+1)
	case c == '{':
		return p.object(i, depth+1)
	case c == '-' || c >= '0' && c <= '9':
		return p.number(i)
	}
	return literal(data, i)
}

// literal reads true, false or null.
func literal(data []byte, i int) (int, error) {
	if w := string(data[i:min(i+4, len(data))]); w == "true" || w == "null" {
		return i + 4, nil
	}
	if string(data[i:min(i+5, len(data))]) == "false" {
		return i + 5, nil
	}
	return 0, syntaxError(data, i, "expecting a value")
}

func (p *parser) str(i int) (int, error) {
	end, flags, err := scanString(p.data, i)
	if err != nil {
		return 0, err
	}
	if flags&flagCopy == 0 {
		p.rewrite(i)
		p.out = appendCanonicalString(p.out, p.data[i+1:end-1])
		p.from = end
	}
	return end, nil
}

func (p *parser) number(i int) (int, error) {
	if end := plainNumber(p.data, i); end > 0 {
		return end, nil
	}
	end, copyEnd, ok := scanNumber(p.data, i)
	if !ok {
		return 0, syntaxError(p.data, end, "malformed number")
	}
	if copyEnd != end {
		p.rewrite(i)
		if copyEnd > 0 {
			p.out = append(p.out, p.data[i:copyEnd]...)
		} else {
			p.out = appendNumberText(p.out, p.data[i:end])
		}
		p.from = end
	}
	return end, nil
}

// plainNumber returns the end of the number at data[i] when it is one
// that JavaScript prints as written and that needs no closer look (an
// integer or a decimal of up to 15 significant digits, no exponent, no
// leading zero, no trailing fraction zero), and 0 otherwise.
func plainNumber(data []byte, i int) int {
	d := i
	if data[d] == '-' {
		d++
	}
	if d >= len(data) || data[d] < '1' || data[d] > '9' {
		return 0
	}
	end := skipDigits(data, d+1)
	digits := end - d
	if end < len(data) && data[end] == '.' {
		end = skipDigits(data, end+1)
		if data[end-1] == '.' || data[end-1] == '0' {
			return 0
		}
		digits = end - d - 1
	}
	if digits > 15 || end < len(data) && data[end]|0x20 == 'e' {
		return 0
	}
	return end
}

func errDepth() error {
	return fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
}

// array canonicalises the array opening at data[i].
func (p *parser) array(i, depth int) (int, error) {
	if depth > p.maxDepth {
		return 0, errDepth()
	}
	i = p.space(i + 1)
	if i < len(p.data) && p.data[i] == ']' {
		return i + 1, nil
	}
	for {
		var closed bool
		var err error
		if i, err = p.value(i, depth); err != nil {
			return 0, err
		}
		if i, closed, err = p.next(i, ']'); err != nil || closed {
			return i, err
		}
		if p.stream && p.objects == 0 && p.pos(i) >= flushSize {
			p.flush(i)
		}
	}
}

// next reads what follows an element of a container: a comma (and the
// whitespace after it) or the container's closer, and returns the index
// past them.
func (p *parser) next(i int, closer byte) (next int, closed bool, err error) {
	data := p.data
	i = p.space(i)
	switch {
	case i >= len(data):
		return 0, false, syntaxError(data, i, "unterminated container")
	case data[i] == ',':
		return p.space(i + 1), false, nil
	case data[i] == closer:
		return i + 1, true, nil
	}
	return 0, false, separatorError(data, i, closer)
}

func separatorError(data []byte, i int, closer byte) error {
	return syntaxError(data, i, fmt.Sprintf("expecting ',' or '%c'", closer))
}

// flush hands the finished output up to data[i] to the writer.
func (p *parser) flush(i int) {
	p.st.write(p.out)
	p.st.write(p.data[p.from:i])
	p.out, p.from = p.out[:0], i
}

// object canonicalises the object opening at data[i].
func (p *parser) object(i, depth int) (int, error) {
	if depth > p.maxDepth {
		return 0, errDepth()
	}
	st, data := p.st, p.data
	start := p.pos(i) // of the opening brace
	base, arenaBase := len(st.members), len(st.arena)
	i = p.space(i + 1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	p.objects++
	sorted := true // members so far in strictly increasing key order
	for {
		var closed bool
		var err error
		if i, err = p.key(i); err != nil {
			return 0, err
		}
		if n := len(st.members); n-1 > base {
			prev, m := &st.members[n-2], &st.members[n-1]
			prev.end = m.start - 1 // at the comma
			sorted = sorted && p.before(prev, m)
		}
		if i = p.space(i); i >= len(data) || data[i] != ':' {
			return 0, syntaxError(data, i, "expecting ':'")
		}
		if i, err = p.value(p.space(i+1), depth); err != nil {
			return 0, err
		}
		if i, closed, err = p.next(i, '}'); err != nil {
			return 0, err
		}
		if closed {
			ms := st.members[base:]
			ms[len(ms)-1].end = uint32(p.pos(i - 1))
			if !sorted {
				p.reorder(start, i-1, ms)
			}
			st.members, st.arena = st.members[:base], st.arena[:arenaBase]
			p.objects--
			return i, nil
		}
	}
}

// key reads the member key at data[i] and pushes its member (its end is
// set later); it returns the index past the key.
func (p *parser) key(i int) (int, error) {
	st, data := p.st, p.data
	if i >= len(data) || data[i] != '"' {
		return 0, syntaxError(data, i, "expecting a string key")
	}
	// The member is filled in place: reslicing stores only a length, where
	// appending a built member stores the slice (a write barrier) and the
	// whole struct.
	if len(st.members) == cap(st.members) {
		st.members = slices.Grow(st.members, 1)
	}
	st.members = st.members[:len(st.members)+1]
	m := &st.members[len(st.members)-1]
	m.start, m.ks, m.end = uint32(p.pos(i)), uint32(i+1), 0
	if i+9 <= len(data) {
		// A key of up to seven plain ASCII bytes, the common case: the
		// first byte a string scanner would stop at is the closing quote.
		w := loadWord(data, i+1)
		if z := bits.TrailingZeros64(specialMask(w)) &^ 7; z < 64 && byte(w>>z) == '"' {
			m.ke, m.flags = m.ks+uint32(z>>3), memberASCII
			m.prefix = bits.ReverseBytes64(w) &^ (^uint64(0) >> z)
			return int(m.ke) + 1, nil
		}
	}
	end, flags, err := scanString(data, i)
	if err != nil {
		return 0, err
	}
	m.ke = uint32(end - 1)
	switch {
	case flags&(flagEscaped|flagInvalid) != 0:
		// Compared by its decoded text, which lives in the arena.
		ks := len(st.arena)
		st.arena = appendDecodedKey(st.arena, data[i+1:end-1])
		m.ks, m.ke, m.flags = uint32(ks), uint32(len(st.arena)), memberArena
		if bytes.IndexByte(st.arena[ks:], 0xed) >= 0 {
			m.flags |= memberSurrogate // maybe; the full comparison decides
		}
		m.prefix = sortPrefix(st.arena, m.ks, m.ke, false)
	case flags&flagASCII != 0:
		m.flags = memberASCII
		m.prefix = sortPrefix(data, m.ks, m.ke, true)
	default:
		m.flags = 0
		m.prefix = sortPrefix(data, m.ks, m.ke, false)
	}
	if flags&flagCopy == 0 {
		p.rewrite(i)
		p.out = appendCanonicalString(p.out, data[i+1:end-1])
		p.from = end
	}
	return end, nil
}

// reorder puts the members ms of the object whose braces are at output
// offset start and data[closing] in key order.
func (p *parser) reorder(start, closing int, ms []member) {
	perm := p.order(ms)
	st := p.st
	switch {
	case p.stream && p.objects == 1:
		// No enclosing object can move this one: it goes straight to the
		// writer, member by member.
		p.rewrite(closing)
		p.out = st.writeOrdered(p.out, start, ms, perm)
	case start >= len(p.out):
		// The whole object is still pending input: its members are
		// copied from there once, in order.
		off := p.from - len(p.out) // data index of an output offset
		p.out = append(p.out, p.data[p.from:start+off+1]...)
		p.out = appendOrdered(p.out, p.data, off, ms, perm)
	default:
		p.rewrite(closing)
		st.tmp = append(st.tmp[:0], p.out[start+1:]...)
		p.out = appendOrdered(p.out[:start+1], st.tmp, -(start + 1), ms, perm)
	}
	p.from = closing // the brace is still to be copied
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

func syntaxError(data []byte, i int, what string) error {
	if i >= len(data) {
		return fmt.Errorf("%w: unexpected end of input (%s)", ErrInvalidJSON, what)
	}
	return fmt.Errorf("%w: unexpected %q at offset %d (%s)", ErrInvalidJSON, data[i], i, what)
}

// lanes01 and lanes80 are one byte value repeated in every lane of a uint64.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// specialMask flags, in the high bit of each lane, the bytes of x that a
// JSON string scanner must look at: '"', '\\', control characters and
// non-ASCII bytes. Borrows only propagate upwards, so the lowest flagged lane
// is always a real hit (higher lanes may be false positives).
func specialMask(x uint64) uint64 {
	q := x ^ (0x22 * lanes01)
	b := x ^ (0x5c * lanes01)
	return (((x-0x20*lanes01)|(q-lanes01)|(b-lanes01))&^x | x) & lanes80
}

// loadWord reads eight bytes at data[i:] little-endian (the caller ensures
// they exist).
func loadWord(data []byte, i int) uint64 { return binary.LittleEndian.Uint64(data[i : i+8]) }
