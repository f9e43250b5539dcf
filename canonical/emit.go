package canonical

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"io"
	"sync"
)

// flushSize is the output chunk handed to a streaming writer (or hash).
const flushSize = 64 << 10

// Limits on what a state keeps when it goes back to the pool, so one huge
// document does not pin its scratch memory forever.
const (
	maxPooledNodes = 1 << 20
	maxPooledBytes = 1 << 25 // output of documents up to 32 MiB stays pooled
)

// member is one object member while its object is open. Its sort key
// is data[ks:ke] or, for keys that needed decoding, arena[ks:ke]; prefix
// holds its first eight bytes, big-endian, remapped so that integer order is
// UTF-16 order (see sortPrefix).
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
	data    []byte   // document being canonicalised
	stack   []frame  // open containers
	members []member // members of open objects, as a stack
	arena   []byte   // decoded keys of open objects, as a stack
	buf     []byte   // output (or the pending chunk when streaming)
	tmp     []byte   // scratch for reordering members
	perm    []uint32 // member order of the object being reordered
	comma   [1]byte
	shapes  [8]shape // member order of the last reordered object per depth
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
	if cap(st.members) > maxPooledNodes {
		st.members = nil
	}
	if cap(st.perm) > maxPooledNodes {
		st.perm = nil
	}
	if cap(st.buf) > maxPooledBytes {
		st.buf = nil
	}
	if cap(st.tmp) > maxPooledBytes {
		st.tmp = nil
	}
	if cap(st.arena) > maxPooledBytes {
		st.arena = nil
	}
	if len(st.seen) > 0 || cap(st.keys) > maxPooledNodes {
		st.seen, st.keys = nil, nil
	}
	st.data, st.w, st.werr = nil, nil, nil
	st.stack, st.members = st.stack[:0], st.members[:0]
	st.arena, st.buf, st.tmp = st.arena[:0], st.buf[:0], st.tmp[:0]
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

// hasher returns the state's reset SHA-256.
func (st *state) hasher() hash.Hash {
	if st.sha == nil {
		st.sha = sha256.New()
	}
	st.sha.Reset()
	return st.sha
}
