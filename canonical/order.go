package canonical

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
)

// member is one object member while its object is open. Its sort key
// is data[ks:ke] or, for keys that needed decoding, arena[ks:ke]; prefix
// holds its first eight bytes, big-endian, remapped so that integer order is
// UTF-16 order (see sortPrefix).
type member struct {
	prefix     uint64
	ks, ke     uint32 // key text
	start, end uint32 // output span of `"key":value` (end: set at the next key, or at the close)
	flags      uint8
}

const (
	memberArena     uint8 = 1 << iota // key bytes live in the arena
	memberASCII                       // key is plain ASCII: byte order is UTF-16 order
	memberShadowed                    // a later duplicate key wins
	memberSurrogate                   // key holds a lone surrogate: prefix is not decisive
)

// sortPrefix packs the first eight bytes of a key into an integer whose
// order agrees with the UTF-16 order of the keys: UTF-8 byte order is code
// point order, which differs from UTF-16 order only in putting U+E000-U+FFFF
// (lead bytes EE, EF) before astral characters (F0-F4), so those two lead
// bytes are moved above F4. Shorter keys are padded with zero bytes, so equal
// prefixes are not decisive (and neither are prefixes of keys holding lone
// surrogates).
func sortPrefix(buf []byte, off, end uint32, ascii bool) uint64 {
	var p uint64
	n := end - off
	if int(off)+8 <= len(buf) {
		// Load eight bytes (the key and whatever follows) and keep the key's.
		p = binary.BigEndian.Uint64(buf[off : off+8])
		if n < 8 {
			p &= ^uint64(0) << (8 * (8 - n))
		}
	} else {
		for i := uint32(0); i < 8; i++ {
			p <<= 8
			if i < n {
				p |= uint64(buf[off+i])
			}
		}
	}
	if !ascii {
		for shift := 0; shift < 64; shift += 8 {
			if c := byte(p >> shift); c == 0xee || c == 0xef {
				p += uint64(0xf5-0xee) << shift
			}
		}
	}
	return p
}

func (st *state) keyText(m *member) []byte {
	if m.flags&memberArena != 0 {
		return st.arena[m.ks:m.ke]
	}
	return st.data[m.ks:m.ke]
}

func (st *state) compareMembers(a, b *member) int {
	if a.prefix != b.prefix && (a.flags|b.flags)&memberSurrogate == 0 {
		if a.prefix < b.prefix {
			return -1
		}
		return 1
	}
	ka, kb := st.keyText(a), st.keyText(b)
	if a.flags&b.flags&memberASCII != 0 {
		return bytes.Compare(ka, kb)
	}
	return compareKeys(ka, kb)
}

// less orders members by key, duplicates in document order.
func (st *state) less(a, b *member) bool {
	if c := st.compareMembers(a, b); c != 0 {
		return c < 0
	}
	return a.start < b.start
}

// insertionLimit is the object size up to which members are sorted by
// insertion; larger objects use slices.SortFunc.
const insertionLimit = 16

// maxShape is the largest object whose member order is remembered.
const maxShape = 16

// shape is the key order of the last object at one depth that was
// reordered, or that was in order but had keys not guessed (see
// remember). Arrays of records repeat their shapes, so the next object at
// that depth usually has the same key prefixes in the same order and
// reuses the permutation without sorting. A shape is only kept when its
// prefixes are distinct (and so decide the order on their own).
type shape struct {
	n      int
	prefix [maxShape]uint64 // in document order
	perm   [maxShape]uint32 // document index of the k-th member in key order
}

// keyGuess is a key expected at one position of an object at one depth
// (see learnKeys): the key, its closing quote and, for keys of up to six
// bytes, the colon, little-endian in the bytes of mask (notWord holds
// their complement, so that the zero guess matches nothing); the key's
// length and sort prefix.
type keyGuess struct {
	notWord, mask, prefix uint64
	size                  int
	colon                 bool // the colon is part of the match
}

// learnKeys (called by remember) records the keys of ms, an object at the given depth, as the
// keys to expect at their positions in the next object at that depth:
// arrays of records repeat their keys, and a key of up to seven plain
// ASCII bytes is then matched whole, with its closing quote and, when
// there is room, the colon, by one masked eight-byte compare. A guess is
// only ever taken after the document's bytes matched it, so a stale one
// costs a compare, never a wrong member.
func (st *state) learnKeys(ms []member, depth int) {
	if depth >= len(st.shapes) {
		return
	}
	gs := st.guesses[depth*maxShape : (depth+1)*maxShape]
	for k := range min(len(ms), len(gs)) {
		m := &ms[k]
		g := &gs[k]
		z := m.ke - m.ks
		if m.flags != memberASCII || z >= 8 {
			*g = keyGuess{} // matches nothing
			continue
		}
		// The prefix holds the key's bytes, high first, zero-padded.
		word := bits.ReverseBytes64(m.prefix) | '"'<<(8*z)
		g.colon = z < 7
		if g.colon {
			word |= ':' << (8 * (z + 1))
		}
		g.notWord = ^word
		g.mask = ^uint64(0) >> (8 * (6 - min(z, 6)))
		g.prefix, g.size = m.prefix, int(z)
	}
}

// learnSorted remembers ms, an object at the given depth whose keys are in
// order, as that depth's shape in the order they are (see remember).
// Objects in order are not sorted, so this is their only way into the
// shape memory.
func (st *state) learnSorted(ms []member, depth int) {
	if len(ms) > maxShape || depth >= len(st.shapes) {
		return
	}
	for k := range ms {
		if ms[k].flags&memberSurrogate != 0 || k > 0 && ms[k].prefix <= ms[k-1].prefix {
			return // prefixes that do not decide the order are no shape
		}
	}
	st.remember(ms, st.identity(len(ms)), depth)
}

// remember stores ms, an object at the given depth with distinct key
// prefixes, in the order perm as that depth's shape, and its keys as the
// guesses for the next object there. The two are only ever learned
// together here: an object whose keys all matched the guesses therefore
// has the shape's keys, and takes its order (see tokens).
func (st *state) remember(ms []member, perm []uint32, depth int) {
	sh := &st.shapes[depth]
	sh.n = len(ms)
	for k := range ms {
		sh.prefix[k] = ms[k].prefix
	}
	copy(sh.perm[:], perm)
	st.learnKeys(ms, depth)
}

// identity returns the permutation 0, 1, …, n-1 in st.perm (valid until
// the next call of identity or order).
func (st *state) identity(n int) []uint32 {
	perm := st.perm[:0]
	for k := range n {
		perm = append(perm, uint32(k))
	}
	st.perm = perm
	return perm
}

// order returns the members ms of an object at the given depth in key
// order, ties (duplicate keys) in document order, as indices into ms (valid
// until the next call), and marks all but the last of equal keys as
// shadowed.
func (st *state) order(ms []member, depth int) []uint32 {
	n := len(ms)
	var union uint8
	for k := range ms {
		union |= ms[k].flags
	}
	var sh *shape
	if n <= maxShape && depth < len(st.shapes) && union&memberSurrogate == 0 {
		sh = &st.shapes[depth]
		if sh.n == n {
			hit := true
			for k := range ms {
				if ms[k].prefix != sh.prefix[k] {
					hit = false
					break
				}
			}
			if hit {
				return sh.perm[:n:n]
			}
		}
	}
	perm := st.identity(n)
	switch {
	case n > insertionLimit:
		slices.SortFunc(perm, func(a, b uint32) int {
			switch {
			case a == b:
				return 0
			case st.less(&ms[a], &ms[b]):
				return -1
			}
			return 1 // distinct members are never equal: ties go by position
		})
	case union&memberSurrogate == 0:
		// Prefixes decide unless equal.
		for k := 1; k < n; k++ {
			x := perm[k]
			m := &ms[x]
			j := k
			for ; j > 0; j-- {
				p := &ms[perm[j-1]]
				if p.prefix < m.prefix || (p.prefix == m.prefix && !st.less(m, p)) {
					break
				}
				perm[j] = perm[j-1]
			}
			perm[j] = x
		}
	default:
		for k := 1; k < n; k++ {
			x := perm[k]
			j := k
			for ; j > 0 && st.less(&ms[x], &ms[perm[j-1]]); j-- {
				perm[j] = perm[j-1]
			}
			perm[j] = x
		}
	}
	distinct := true
	for k := 1; k < n; k++ {
		a, b := &ms[perm[k-1]], &ms[perm[k]]
		if a.prefix == b.prefix {
			distinct = false
			if st.compareMembers(a, b) == 0 {
				a.flags |= memberShadowed
			}
		}
	}
	if sh != nil && distinct {
		st.remember(ms, perm, depth)
	}
	return perm
}

// appendOrdered appends the ordered, unshadowed members ms joined by commas;
// a member's text is src[start+off:end+off].
func appendOrdered(buf, src []byte, off int, ms []member, perm []uint32) []byte {
	first := true
	for _, k := range perm {
		m := &ms[k]
		if m.flags&memberShadowed != 0 {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, src[int(m.start)+off:int(m.end)+off]...)
	}
	return buf
}

// writeOrdered writes buf up to and including the opening brace at
// buf[start] and then the ordered members ms (whose text is in buf) to the
// writer, and returns buf emptied.
func (st *state) writeOrdered(buf []byte, start int, ms []member, perm []uint32) []byte {
	// One write per member: its comma is taken along from buf when it has
	// one there.
	st.write(buf[:start+1])
	last := len(perm) - 1 // the last member in key order is never shadowed
	st.comma[0] = ','
	for j, k := range perm {
		m := &ms[k]
		switch {
		case m.flags&memberShadowed != 0:
		case j == last:
			st.write(buf[m.start:m.end])
		case int(m.end) < len(buf):
			st.write(buf[m.start : m.end+1])
		default:
			st.write(buf[m.start:m.end])
			st.write(st.comma[:])
		}
	}
	return buf[:0]
}
