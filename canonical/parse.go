package canonical

import (
	"bytes"
	"cmp"
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
	*state
	data     []byte
	out      []byte // canonical text so far
	from     int    // start of the pending run of canonical input
	maxDepth int
}

// member is one member of an open object: the output span of `"key":value`
// and the first eight bytes of its key's sort key, big-endian and
// zero-padded, so that unequal prefixes order keys without a look at them.
type member struct {
	prefix     uint64
	start, end uint32
}

// canon validates data as one JSON text (JSON.parse grammar: surrounding
// whitespace allowed, nothing else) and appends its canonical text to dst.
// maxDepth bounds the nesting of containers. On error dst is returned.
func (st *state) canon(dst, data []byte, maxDepth int) ([]byte, error) {
	if uint64(len(data)) >= math.MaxUint32 {
		return dst, fmt.Errorf("%w: document larger than 4 GiB", ErrLimit)
	}
	p := parser{state: st, data: data, maxDepth: maxDepth}
	p.out = slices.Grow(dst, len(data)+len(data)/16+64) // about the final size, at once
	i := skipSpace(data, 0)
	p.from = i
	i, err := p.value(i, 0)
	if end := skipSpace(data, i); err == nil && end != len(data) {
		err = syntaxError(data, end, "expecting end of input")
	}
	if err != nil {
		return p.out[:len(dst)], err
	}
	return append(p.out, data[p.from:i]...), nil
}

// pos is the output offset data[i] will have once the pending run is copied.
func (p *parser) pos(i int) int { return len(p.out) + i - p.from }

// flush copies the pending run up to data[i], where text the caller
// rewrites begins; the caller then appends it and sets from past it.
func (p *parser) flush(i int) { p.out = append(p.out, p.data[p.from:i]...) }

// space skips the whitespace at data[i], which is not copied; dropSpace
// does it, out of line so that the many callers of space stay small.
func (p *parser) space(i int) int {
	if i < len(p.data) && p.data[i] <= ' ' {
		return p.dropSpace(i)
	}
	return i
}

//go:noinline
func (p *parser) dropSpace(i int) int {
	p.flush(i)
	p.from = skipSpace(p.data, i)
	return p.from
}

// value canonicalises the value at data[i], inside depth containers, and
// returns the index just past it.
func (p *parser) value(i, depth int) (int, error) {
	if i >= len(p.data) {
		return 0, syntaxError(p.data, i, "expecting a value")
	}
	switch c := p.data[i]; {
	case c == '"':
		end, flags, err := scanString(p.data, i)
		if flags&flagRewrite != 0 {
			p.rewriteString(i, end)
		}
		return end, err
	case c == '[' || c == '{':
		if depth >= p.maxDepth {
			return 0, fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
		}
		if c == '[' {
			return p.array(i, depth+1)
		}
		return p.object(i, depth+1)
	case c == '-' || c >= '0' && c <= '9':
		end, keep, ok := scanNumber(p.data, i)
		if !ok {
			return 0, syntaxError(p.data, end, "malformed number")
		}
		if keep != end { // JavaScript prints it otherwise
			p.flush(i)
			if keep > 0 {
				p.out = append(p.out, p.data[i:keep]...)
			} else {
				p.out = appendNumberText(p.out, p.data[i:end])
			}
			p.from = end
		}
		return end, nil
	}
	lit := literals[p.data[i]]
	if lit == "" || len(p.data)-i < len(lit) || string(p.data[i:i+len(lit)]) != lit {
		return 0, syntaxError(p.data, i, "expecting a value")
	}
	return i + len(lit), nil
}

func (p *parser) rewriteString(i, end int) {
	p.flush(i)
	p.out = appendCanonicalString(p.out, p.data[i+1:end-1])
	p.from = end
}

// array canonicalises the array opening at data[i].
func (p *parser) array(i, depth int) (int, error) {
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
	}
}

// next reads what follows an element of a container: a comma (and the
// whitespace after it) or the container's closer, and returns the index
// past them.
func (p *parser) next(i int, closer byte) (next int, closed bool, err error) {
	i = p.space(i)
	switch {
	case i >= len(p.data):
		return 0, false, syntaxError(p.data, i, "unterminated container")
	case p.data[i] == ',':
		return p.space(i + 1), false, nil
	case p.data[i] == closer:
		return i + 1, true, nil
	}
	return 0, false, syntaxError(p.data, i, fmt.Sprintf("expecting ',' or '%c'", closer))
}

// object canonicalises the object opening at data[i].
func (p *parser) object(i, depth int) (int, error) {
	data := p.data
	start, base := p.pos(i), len(p.members) // the brace's output offset, the first member's index
	i = p.space(i + 1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	sorted := true // members so far in strictly increasing key order
	for {
		var closed bool
		var err error
		m := member{start: uint32(p.pos(i))} // its end is set later
		if m.prefix, i, err = p.key(i); err != nil {
			return 0, err
		}
		if n := len(p.members); n > base {
			prev := &p.members[n-1]
			prev.end = m.start - 1 // at the comma
			sorted = sorted && (prev.prefix < m.prefix || prev.prefix == m.prefix && p.compare(*prev, m) < 0)
		}
		p.members = append(p.members, m)
		if i, err = p.value(i, depth); err != nil {
			return 0, err
		}
		if i < len(data) && data[i] == ',' { // compact text, spared a call to next
			i = p.space(i + 1)
			continue
		}
		if i, closed, err = p.next(i, '}'); err != nil {
			return 0, err
		}
		if closed {
			ms := p.members[base:]
			ms[len(ms)-1].end = uint32(p.pos(i - 1))
			if !sorted {
				p.reorder(start, i-1, ms)
			}
			p.members = p.members[:base]
			return i, nil
		}
	}
}

// key reads the member key at data[i] and the colon after it; it returns
// the first eight bytes of its sort key (see member) and the index of the
// value.
func (p *parser) key(i int) (prefix uint64, next int, err error) {
	data := p.data
	if i >= len(data) || data[i] != '"' {
		return 0, 0, syntaxError(data, i, "expecting a string key")
	}
	if i+10 <= len(data) {
		// A key of up to seven plain ASCII bytes and then the colon, the
		// common case: the first byte a string scanner would stop at is
		// the closing quote.
		w := binary.LittleEndian.Uint64(data[i+1:])
		if z := bits.TrailingZeros64(specialMask(w)) &^ 7; z < 64 && byte(w>>z) == '"' && data[i+2+z>>3] == ':' {
			return bits.ReverseBytes64(w) &^ (^uint64(0) >> z), p.space(i + 3 + z>>3), nil
		}
	}
	end, flags, err := scanString(data, i)
	if err != nil {
		return 0, 0, err
	}
	key := data[i+1 : end-1]
	if flags&flagDecode != 0 { // the raw text is not the sort key
		p.arena = appendSortKey(p.arena[:0], key)
		key = p.arena
	}
	var w [8]byte // zero-padded
	copy(w[:], key)
	if flags&flagRewrite != 0 {
		p.rewriteString(i, end)
	}
	if i = p.space(end); i >= len(data) || data[i] != ':' {
		return 0, 0, syntaxError(data, i, "expecting ':'")
	}
	return binary.BigEndian.Uint64(w[:]), p.space(i + 1), nil
}

// keyAt returns the body of the key at output offset x, found in the
// output or, when not copied yet, in the input.
func (p *parser) keyAt(x uint32) []byte {
	text := p.out[min(int(x), len(p.out)):]
	if int(x) >= len(p.out) {
		text = p.data[int(x)-len(p.out)+p.from:]
	}
	end, _, _ := scanString(text, 0) // validated already
	return text[1 : end-1]
}

// compare orders two members by key. Keys that share a prefix are
// compared by their sort keys, decoded anew from their text (canonical or
// raw, it decodes alike): such ties are rare.
func (p *parser) compare(a, b member) int {
	if a.prefix != b.prefix {
		return cmp.Compare(a.prefix, b.prefix)
	}
	p.arena = appendSortKey(p.arena[:0], p.keyAt(a.start))
	n := len(p.arena)
	p.arena = appendSortKey(p.arena, p.keyAt(b.start))
	return bytes.Compare(p.arena[:n], p.arena[n:])
}

// reorder puts the members ms of the object whose braces are at output
// offset start and data[closing] in key order, keeping only the last of
// equal keys, as JSON.parse does: the members are appended in order past
// the object's text, each with the comma (or brace) before it, and then
// moved over that text.
func (p *parser) reorder(start, closing int, ms []member) {
	p.flush(closing)
	// Stable, so that equal keys stay in document order. Most objects are
	// small, and an insertion sort on the prefixes alone is quickest for
	// them; keys that share a prefix (and duplicates among them) are then
	// put in order in full.
	ties := len(ms) > 16 // too many for an insertion sort
	for k := 1; k < len(ms) && len(ms) <= 16; k++ {
		m, j := ms[k], k
		for ; j > 0 && ms[j-1].prefix > m.prefix; j-- {
			ms[j] = ms[j-1]
		}
		ms[j] = m
		ties = ties || j > 0 && ms[j-1].prefix == m.prefix
	}
	if ties {
		slices.SortStableFunc(ms, p.compare)
	}
	body := len(p.out)
	out, src := p.out, p.out // src keeps the text should out move
	src[start] = ','         // for now, so that every member begins with its comma
	for k := range ms {
		if ties && k+1 < len(ms) && p.compare(ms[k], ms[k+1]) == 0 {
			continue // a later duplicate wins
		}
		out = append(out, src[ms[k].start-1:ms[k].end]...)
	}
	p.out = out[:start+1+copy(out[start+1:], out[body+1:])]
	p.out[start] = '{'
	p.from = closing // the brace is still to be copied
}

var literals = [256]string{'t': "true", 'f': "false", 'n': "null"}

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
