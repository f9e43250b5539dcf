package canonical

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io"
	"slices"
	"sync"
)

// flushSize is the output chunk handed to a streaming writer (or hash).
const flushSize = 32 << 10

// Limits on what a state keeps when it goes back to the pool, so one huge
// document does not pin its scratch memory forever.
const (
	maxPooledNodes = 1 << 22
	maxPooledBytes = 1 << 22
)

// member is one object member while its object is being sorted. Its sort key
// is data[ks:ke] or, for keys that needed decoding, arena[ks:ke]; prefix
// holds its first eight bytes, big-endian, remapped so that integer order is
// UTF-16 order (see sortPrefix).
type member struct {
	prefix uint64
	key    uint32 // tape index of the key; the value follows it
	ks, ke uint32
	flags  uint8
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
		p = binary.BigEndian.Uint64(buf[off:])
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

// state is the reusable scratch of one canonicalisation. Not shared between
// goroutines; pooled.
type state struct {
	data    []byte   // document being emitted
	tape    []node   // parsed document
	stack   []frame  // open containers while parsing
	members []member // object members being sorted, as a stack
	arena   []byte   // decoded keys, as a stack
	buf     []byte   // output (or the pending chunk when streaming)
	w       io.Writer
	werr    error
	sha     hash.Hash
	sum     [sha256.Size]byte

	// Go value walking.
	seen map[identity]struct{}
	keys []mapKey
}

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(st *state) {
	// Oversized scratch is dropped piecemeal so the rest stays reusable.
	if cap(st.tape) > maxPooledNodes {
		st.tape = nil
	}
	if cap(st.members) > maxPooledNodes {
		st.members = nil
	}
	if cap(st.buf) > maxPooledBytes {
		st.buf = nil
	}
	if cap(st.arena) > maxPooledBytes {
		st.arena = nil
	}
	if len(st.seen) > 0 || cap(st.keys) > maxPooledNodes {
		st.seen, st.keys = nil, nil
	}
	st.data, st.w, st.werr = nil, nil, nil
	st.tape, st.stack, st.members = st.tape[:0], st.stack[:0], st.members[:0]
	st.arena, st.buf = st.arena[:0], st.buf[:0]
	clear(st.keys[:cap(st.keys)])
	st.keys = st.keys[:0]
	statePool.Put(st)
}

// out hands the pending chunk to the writer when streaming.
func (st *state) out() {
	if st.werr == nil && len(st.buf) > 0 {
		_, st.werr = st.w.Write(st.buf)
	}
	st.buf = st.buf[:0]
}

// maybeFlush streams the pending chunk once it is large enough.
func (st *state) maybeFlush() {
	if st.w != nil && len(st.buf) >= flushSize {
		st.out()
	}
}

// span copies raw canonical bytes to the output, bypassing the chunk buffer
// for large spans when streaming.
func (st *state) span(b []byte) {
	if st.w != nil && len(b) >= flushSize {
		st.out()
		if st.werr == nil {
			_, st.werr = st.w.Write(b)
		}
		return
	}
	st.buf = append(st.buf, b...)
}

// emit writes the canonical form of the value at tape[i] and returns the
// index of the next sibling.
func (st *state) emit(i uint32) uint32 {
	n := st.tape[i]
	switch n.kind {
	case kindNull:
		st.buf = append(st.buf, "null"...)
	case kindTrue:
		st.buf = append(st.buf, "true"...)
	case kindFalse:
		st.buf = append(st.buf, "false"...)
	case kindNumber:
		if n.flags&flagCopy != 0 {
			st.buf = append(st.buf, st.data[n.start:n.end]...)
		} else {
			st.buf = appendNumberText(st.buf, st.data[n.start:n.end])
		}
	case kindString:
		st.emitString(n)
	case kindArray:
		if n.flags&flagClean != 0 {
			st.span(st.data[n.start : st.tape[i+1].start+1])
			return n.end
		}
		buf := append(st.buf, '[')
		data, tape := st.data, st.tape
		for j := i + 2; j < n.end; {
			if j != i+2 {
				buf = append(buf, ',')
			}
			if e := tape[j]; e.flags&flagCopy != 0 && e.end-e.start < flushSize {
				buf = append(buf, data[e.start:e.end]...) // canonical scalar
				j++
				if len(buf) < flushSize {
					continue
				}
			} else {
				st.buf = buf
				j = st.emit(j)
				buf = st.buf
			}
			st.buf = buf
			st.maybeFlush()
			buf = st.buf
		}
		st.buf = append(buf, ']')
		return n.end
	case kindObject:
		if n.flags&flagClean != 0 {
			st.span(st.data[n.start : st.tape[i+1].start+1])
			return n.end
		}
		st.emitObject(i, n.end)
		return n.end
	}
	return i + 1
}

func (st *state) emitString(n node) {
	if n.flags&flagCopy != 0 {
		st.span(st.data[n.start:n.end])
		return
	}
	st.buf = appendCanonicalString(st.buf, st.data[n.start+1:n.end-1])
}

// next returns the index of the sibling after the value at tape[i].
func (st *state) next(i uint32) uint32 {
	if k := st.tape[i].kind; k == kindArray || k == kindObject {
		return st.tape[i].end
	}
	return i + 1
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
	return a.key < b.key
}

// insertionLimit is the object size up to which members are sorted by
// insertion as they are read; larger objects are sorted once at the end.
const insertionLimit = 16

// emitObject writes the object at tape[i] (its subtree ends at end) with its
// members in UTF-16 key order, the last of duplicate keys winning.
func (st *state) emitObject(i, end uint32) {
	base, arenaBase := len(st.members), len(st.arena)
	members := st.members // local copies keep the hot loops in registers
	data, tape := st.data, st.tape
	needSort := false
	for j := i + 2; j < end; {
		kn := tape[j]
		m := member{key: j, ks: kn.start + 1, ke: kn.end - 1}
		switch {
		case kn.flags&(flagEscaped|flagInvalid) != 0:
			ks := len(st.arena)
			st.arena = appendDecodedKey(st.arena, data[m.ks:m.ke])
			m.ks, m.ke, m.flags = uint32(ks), uint32(len(st.arena)), memberArena
			if bytes.IndexByte(st.arena[ks:], 0xed) >= 0 {
				m.flags |= memberSurrogate // maybe; the full comparison decides
			}
			m.prefix = sortPrefix(st.arena, m.ks, m.ke, false)
		case kn.flags&flagASCII != 0:
			m.flags = memberASCII
			m.prefix = sortPrefix(data, m.ks, m.ke, true)
		default:
			m.prefix = sortPrefix(data, m.ks, m.ke, false)
		}
		if v := tape[j+1]; v.kind == kindArray || v.kind == kindObject {
			j = v.end
		} else {
			j += 2
		}
		members = append(members, m)
		ms := members[base:]
		n := len(ms) - 1
		if n == 0 || needSort {
			continue
		}
		if n >= insertionLimit {
			if st.compareMembers(&ms[n-1], &m) >= 0 {
				needSort = true // sorted in one go below
			}
			continue
		}
		// Insert m into the sorted ms[:n]. Document order breaks ties, so m
		// goes after an equal key, which it shadows.
		k := n
		for k > 0 {
			p := &ms[k-1]
			if p.prefix != m.prefix && (p.flags|m.flags)&memberSurrogate == 0 {
				if p.prefix < m.prefix {
					break
				}
				k--
				continue
			}
			c := st.compareMembers(p, &m)
			if c < 0 {
				break
			}
			if c == 0 {
				p.flags |= memberShadowed
				break
			}
			k--
		}
		if k < n {
			copy(ms[k+1:], ms[k:n])
			ms[k] = m
		}
	}
	ms := members[base:]
	if needSort {
		slices.SortFunc(ms, func(a, b member) int {
			switch {
			case a.key == b.key:
				return 0
			case st.less(&a, &b):
				return -1
			}
			return 1
		})
		for k := 1; k < len(ms); k++ {
			if st.compareMembers(&ms[k-1], &ms[k]) == 0 {
				ms[k-1].flags |= memberShadowed
			}
		}
	}
	st.members = members
	st.arena = st.arena[:arenaBase]

	buf := append(st.buf, '{')
	first := true
	for k := base; k < base+len(ms); k++ {
		m := &st.members[k]
		if m.flags&memberShadowed != 0 {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		key := m.key // st.members may grow (and move) while emitting the value
		kn, e := tape[key], tape[key+1]
		if kn.flags&e.flags&flagCopy != 0 && e.start == kn.end+1 && e.end-kn.start < flushSize {
			// Compact `"key":value` with a canonical scalar value: one copy.
			buf = append(buf, data[kn.start:e.end]...)
			if len(buf) < flushSize {
				continue
			}
			st.buf = buf
			st.maybeFlush()
			buf = st.buf
			continue
		}
		if kn.flags&flagCopy != 0 && kn.end-kn.start < flushSize {
			buf = append(buf, data[kn.start:kn.end]...)
		} else {
			st.buf = buf
			st.emitString(kn)
			buf = st.buf
		}
		buf = append(buf, ':')
		if e.flags&flagCopy != 0 && e.end-e.start < flushSize {
			buf = append(buf, data[e.start:e.end]...) // canonical scalar
			if len(buf) < flushSize {
				continue
			}
		} else {
			st.buf = buf
			st.emit(key + 1)
			buf = st.buf
		}
		st.buf = buf
		st.maybeFlush()
		buf = st.buf
	}
	st.buf = append(buf, '}')
	st.members = st.members[:base]
}

// hasher returns the state's reset SHA-256.
func (st *state) hasher() hash.Hash {
	if st.sha == nil {
		st.sha = sha256.New()
	}
	st.sha.Reset()
	return st.sha
}
