package canonical

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
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
	st.calls++
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
			} else { // ParseFloat rounds to nearest-even, as JavaScript does, and overflows to ±Inf (printed null)
				f, _ := strconv.ParseFloat(string(p.data[i:end]), 64)
				p.out = appendNumber(p.out, f)
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
	for {
		var closed bool
		var err error
		m := member{start: uint32(p.pos(i))} // its end is set when the object closes
		// The common case, a key of up to seven plain ASCII bytes and a colon:
		// the first byte a string scanner would stop at is the closing quote.
		w, z := uint64(0), 64
		if i+10 <= len(data) && data[i] == '"' {
			w = binary.LittleEndian.Uint64(data[i+1:])
			z = bits.TrailingZeros64(specialMask(w)) &^ 7
		}
		if z < 64 && byte(w>>z) == '"' && data[i+2+z>>3] == ':' {
			m.prefix, i = bits.ReverseBytes64(w)&^(^uint64(0)>>z), p.space(i+3+z>>3)
		} else if m.prefix, i, err = p.key(i); err != nil {
			return 0, err
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
			if p.pos(i) >= math.MaxUint32 { // members hold uint32 output offsets
				return 0, fmt.Errorf("%w: canonical text larger than 4 GiB", ErrLimit)
			}
			p.reorder(start, i-1, p.members[base:])
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

// reorder closes the object whose braces are at output offset start and
// data[closing], ms being its members, and puts the members in key order
// unless they are in order already, keeping only the last of equal keys,
// as JSON.parse does: they are copied in order past the object's text,
// each with the comma (or brace) before it, and then moved over that text.
func (p *parser) reorder(start, closing int, ms []member) {
	// Objects of one shape (the records of an array) repeat their keys, so
	// the order found for each size is kept for the next in the document.
	o := &p.orders[min(len(ms), len(p.orders)-1)]
	miss := o.prefix[0] ^ ms[0].prefix | uint64(o.size^len(ms)) | uint64(o.call^p.calls) // zero when o is their order
	sorted := true                                                                       // strictly increasing keys
	for k, m := range ms[1:] {
		ms[k].end = m.start - 1 // at the comma
		sorted = sorted && (ms[k].prefix < m.prefix || ms[k].prefix == m.prefix && p.compare(ms[k], m) < 0)
		miss |= o.prefix[(k+1)&15] ^ m.prefix
	}
	ms[len(ms)-1].end = uint32(p.pos(closing))
	if sorted {
		return
	}
	p.flush(closing)
	// Stable, so that equal keys stay in document order: an insertion sort of
	// the indexes on the prefixes alone, quickest for small objects, or a sort
	// in full for many members or keys that share a prefix (duplicates too).
	full := len(ms) >= len(p.orders)
	for k := 0; miss != 0 && !full && k < len(ms); k++ {
		m, j := ms[k], k
		o.prefix[k] = m.prefix
		for ; j > 0 && o.prefix[o.perm[j-1]] > m.prefix; j-- {
			o.perm[j] = o.perm[j-1]
		}
		o.perm[j] = uint8(k)
		full = j > 0 && o.prefix[o.perm[j-1]] == m.prefix
	}
	o.size, o.call = len(ms), p.calls
	if full { // and no order to keep
		o.size = 0
		slices.SortStableFunc(ms, p.compare)
	}
	body := len(p.out)
	out := slices.Grow(p.out, body-start+16) // room for the copies, and a word more
	out[start] = ','                         // for now, so that every member begins with its comma
	for k := range ms {
		m := ms[k]
		if !full {
			m = ms[o.perm[k&15]]
		} else if k+1 < len(ms) && p.compare(ms[k], ms[k+1]) == 0 {
			continue // a later duplicate wins
		}
		if n := len(out); m.end-m.start < 16 { // one word, copied inline: most members are short
			*(*[16]byte)(out[n : n+16]) = *(*[16]byte)(out[m.start-1 : m.start+15])
			out = out[:n+int(m.end-m.start)+1]
		} else {
			out = append(out, out[m.start-1:m.end]...)
		}
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
