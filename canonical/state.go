package canonical

import (
	"crypto/sha256"
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
	shapes  [8]shape               // member order of the last object remembered per depth (see remember)
	guesses [8 * maxShape]keyGuess // its keys, by depth and position, to expect in the next
	pass    pass                   // run's state for the split

	// Speculative streaming of the root object (see speculate): spec is
	// what was hashed before the member starting at output offset
	// specMember, whose text is hashed up to specEnd.
	spec       []byte
	specMember int
	specEnd    int
	guess      []member // scratch for the guessed member order
	hole       []byte   // output at buf[holeAt:], still in the worker's buffer
	holeAt     int
	test       *splitTest // tests steering and watching the split; nil otherwise
	w          io.Writer
	werr       error
	sha        hash.Hash
	sum        [sha256.Size]byte

	// Go value walking.
	seen map[identity]struct{}
	keys []mapKey
	memo marshalMemo
}

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(st *state) {
	// Oversized scratch is dropped piecemeal so the rest stays reusable.
	st.members = bounded(st.members, maxPooledNodes)
	st.perm = bounded(st.perm, maxPooledNodes)
	st.guess = bounded(st.guess, maxPooledNodes)
	st.buf = bounded(st.buf, maxPooledBytes)
	st.tmp = bounded(st.tmp, maxPooledBytes)
	st.spec = bounded(st.spec, maxPooledBytes)
	st.arena = bounded(st.arena, maxPooledBytes)
	if len(st.seen) > 0 || cap(st.keys) > maxPooledNodes {
		st.seen, st.keys = nil, nil
	}
	st.data, st.w, st.werr, st.test, st.pass = nil, nil, nil, nil, pass{}
	st.stack, st.members = st.stack[:0], st.members[:0]
	st.arena, st.buf, st.tmp, st.spec = st.arena[:0], st.buf[:0], st.tmp[:0], st.spec[:0]
	clear(st.keys[:cap(st.keys)])
	st.keys = st.keys[:0]
	statePool.Put(st)
}

// bounded returns s, or nil when its capacity exceeds limit elements.
func bounded[T any](s []T, limit int) []T {
	if cap(s) > limit {
		return nil
	}
	return s
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

// hasher returns the state's reset SHA-256.
func (st *state) hasher() hash.Hash {
	if st.sha == nil {
		st.sha = sha256.New()
	}
	st.sha.Reset()
	return st.sha
}

// write hands p to the writer, remembering its first error.
func (st *state) write(p []byte) {
	if st.werr == nil && len(p) > 0 {
		_, st.werr = st.w.Write(p)
	}
}
