package canonical

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
)

// member is one member of an open object. Its key is data[ks:ke] or, for
// keys that needed decoding, arena[ks:ke]; prefix packs its first eight
// bytes so that integer order is UTF-16 order (see sortPrefix).
type member struct {
	prefix     uint64
	ks, ke     uint32 // key text
	start, end uint32 // output span of `"key":value`
	flags      uint8
}

const (
	memberArena     uint8 = 1 << iota // key bytes live in the arena
	memberASCII                       // key is plain ASCII: byte order is UTF-16 order
	memberShadowed                    // a later duplicate key wins
	memberSurrogate                   // key may hold a lone surrogate: prefix is not decisive
)

// sortPrefix packs the first eight bytes of the key buf[ks:ke],
// big-endian, into an integer whose order agrees with the UTF-16 order of
// keys. UTF-8 byte order is code point order, which differs from UTF-16
// order only in putting U+E000-U+FFFF (lead bytes EE, EF) before astral
// characters (F0-F4), so those two lead bytes are moved above F4. Shorter
// keys are padded with zero bytes, so equal prefixes do not decide.
func sortPrefix(buf []byte, ks, ke uint32, ascii bool) uint64 {
	var p uint64
	n := min(ke-ks, 8)
	if int(ks)+8 <= len(buf) {
		// The key and whatever follows it, cut to the key.
		p = binary.BigEndian.Uint64(buf[ks:]) &^ (^uint64(0) >> (8 * n))
	} else {
		for k := range n {
			p |= uint64(buf[ks+k]) << (56 - 8*k)
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

func (p *parser) keyText(m *member) []byte {
	if m.flags&memberArena != 0 {
		return p.st.arena[m.ks:m.ke]
	}
	return p.data[m.ks:m.ke]
}

// compareMembers orders two members by key, in UTF-16 code units.
func (p *parser) compareMembers(a, b *member) int {
	if a.prefix != b.prefix && (a.flags|b.flags)&memberSurrogate == 0 {
		return cmp.Compare(a.prefix, b.prefix)
	}
	ka, kb := p.keyText(a), p.keyText(b)
	if a.flags&b.flags&memberASCII != 0 {
		return bytes.Compare(ka, kb)
	}
	return compareKeys(ka, kb)
}

// before reports whether member a's key sorts strictly before b's. The
// prefixes decide unless they are equal or a key may hold a surrogate.
func (p *parser) before(a, b *member) bool {
	if a.prefix != b.prefix && (a.flags|b.flags)&memberSurrogate == 0 {
		return a.prefix < b.prefix
	}
	return p.compareMembers(a, b) < 0
}

// order returns the members ms of an object in key order, duplicate keys
// in document order, as indices into ms (valid until the next call), and
// marks all but the last of equal keys as shadowed.
func (p *parser) order(ms []member) []uint32 {
	perm := p.st.perm[:0]
	for k := range ms {
		perm = append(perm, uint32(k))
	}
	p.st.perm = perm
	// Stable sorts: duplicate keys stay in document order.
	if len(perm) > 16 {
		slices.SortStableFunc(perm, func(a, b uint32) int { return p.compareMembers(&ms[a], &ms[b]) })
	} else {
		// Insertion sort. Unless a key may hold a surrogate, distinct
		// prefixes decide without looking at the keys.
		plain := true
		for k := range ms {
			plain = plain && ms[k].flags&memberSurrogate == 0
		}
		for k := 1; k < len(perm); k++ {
			x, j := perm[k], k
			m := &ms[x]
			for ; j > 0; j-- {
				q := &ms[perm[j-1]]
				if plain && q.prefix != m.prefix {
					if q.prefix < m.prefix {
						break
					}
				} else if p.compareMembers(q, m) <= 0 {
					break
				}
				perm[j] = perm[j-1]
			}
			perm[j] = x
		}
	}
	for k := 1; k < len(perm); k++ {
		if a := &ms[perm[k-1]]; p.compareMembers(a, &ms[perm[k]]) == 0 {
			a.flags |= memberShadowed
		}
	}
	return perm
}

// appendOrdered appends the ordered, unshadowed members ms joined by
// commas; a member's text is src[start+off:end+off].
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
	st.write(buf[:start+1])
	first := true
	for _, k := range perm {
		m := &ms[k]
		if m.flags&memberShadowed != 0 {
			continue
		}
		if !first {
			st.write(comma)
		}
		first = false
		st.write(buf[m.start:m.end])
	}
	return buf[:0]
}

var comma = []byte{','}
