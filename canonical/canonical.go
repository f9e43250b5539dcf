package canonical

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"io"
	"sync"
)

// Errors returned by the package; test with errors.Is.
var (
	ErrInvalidJSON     = errors.New("canonical: invalid JSON")
	ErrUnsupportedType = errors.New("canonical: unsupported type")
	ErrCycle           = errors.New("canonical: cycle")
	// ErrLimit reports a document nested deeper than MaxDepth or larger
	// than 4 GiB.
	ErrLimit = errors.New("canonical: limit exceeded")
)

// MaxDepth is the deepest nesting of arrays, objects (and, for Go values,
// pointers) accepted. The JavaScript reference's recursive canonicalStringify
// already fails with a RangeError a few thousand levels deep, so any value it
// can hash is within this limit.
const MaxDepth = 10000

// StringifyJSON returns the canonical text of a raw JSON document: what
// canonicalStringify(JSON.parse(text)) returns in JavaScript, where text is
// data decoded by a WHATWG UTF-8 decoder (each maximal invalid sequence
// becomes one U+FFFD).
func StringifyJSON(data []byte) (string, error) {
	st := getState()
	defer putState(st)
	if err := st.canon(data, MaxDepth, false); err != nil {
		return "", err
	}
	return string(st.buf), nil
}

// AppendJSON appends the canonical text of the raw JSON document data to dst.
// On error dst is returned unchanged.
func AppendJSON(dst, data []byte) ([]byte, error) {
	st := getState()
	defer putState(st)
	// Built aside, so that on error not even dst's spare capacity is touched.
	if err := st.canon(data, MaxDepth, false); err != nil {
		return dst, err
	}
	return append(dst, st.buf...), nil
}

// WriteJSON writes the canonical text of the raw JSON document data to w in
// chunks. The document is validated before the first write, so nothing is
// written when it is invalid (the text is therefore built in memory first).
func WriteJSON(w io.Writer, data []byte) error {
	st := getState()
	defer putState(st)
	if err := st.canon(data, MaxDepth, false); err != nil {
		return err
	}
	st.w = w
	for out := st.buf; len(out) > 0 && st.werr == nil; {
		chunk := out[:min(len(out), flushSize)]
		st.write(chunk)
		out = out[len(chunk):]
	}
	return st.werr
}

// Stringify returns the canonical text of a Go value: that of the JSON
// encoding/json writes for it, so invalid UTF-8 in its strings becomes one
// U+FFFD per byte. See the package documentation for how Go types map to
// JSON.
func Stringify(v any) (string, error) {
	st := getState()
	defer putState(st)
	if err := st.value(v, 0); err != nil {
		return "", err
	}
	return string(st.buf), nil
}

// Checksum returns the lowercase hex SHA-256 of the canonical text of
// {"tool": tool, "args": args}; args of type json.RawMessage or []byte is raw JSON.
// Any other args is a Go value as for [Stringify]; in particular a string is
// a JSON string value, not JSON text (use [ChecksumJSON] for text). The
// tool name is a Go string: invalid UTF-8 in it becomes one U+FFFD per
// byte. The checksum identifies equal calls, not distinct ones: see the
// package documentation for values that share a checksum.
func Checksum(tool string, args any) (string, error) {
	switch a := args.(type) {
	case json.RawMessage:
		return ChecksumJSON(tool, a)
	case []byte:
		return ChecksumJSON(tool, a)
	}
	st := getState()
	defer putState(st)
	st.w = st.hasher()
	st.buf = append(st.buf, `{"args":`...)
	if err := st.value(args, 1); err != nil {
		return "", err
	}
	return st.finishChecksum(tool)
}

// ChecksumJSON is Checksum for arguments given as raw JSON text, read as a
// WHATWG UTF-8 decoder reads bytes; the tool name is a Go string, as for
// Checksum. The canonical text is streamed into the hash; only what an open
// object may still reorder waits in memory until that object closes.
func ChecksumJSON(tool string, raw []byte) (string, error) {
	st := getState()
	defer putState(st)
	st.w = st.hasher()
	st.buf = append(st.buf, `{"args":`...)
	if err := st.canon(raw, MaxDepth-1, true); err != nil {
		return "", err
	}
	return st.finishChecksum(tool)
}

// finishChecksum appends the tool member ("args" < "tool", so it comes
// last), flushes and returns the hex digest.
func (st *state) finishChecksum(tool string) (string, error) {
	st.buf = append(st.buf, `,"tool":`...)
	st.buf = appendQuotedText(st.buf, tool)
	st.buf = append(st.buf, '}')
	st.out()
	if st.werr != nil {
		return "", st.werr // a hash never fails; kept for completeness
	}
	var hexSum [2 * sha256.Size]byte
	hex.Encode(hexSum[:], st.sha.Sum(st.sum[:0]))
	return string(hexSum[:]), nil
}

// flushSize is the output chunk handed to a streaming writer (or hash).
const flushSize = 64 << 10

// maxPooled bounds the scratch a state keeps when it goes back to the
// pool, so that one huge document does not pin its memory.
const maxPooled = 1 << 25

// state is the reusable scratch of one call. It is pooled, and never shared
// between goroutines.
type state struct {
	buf     []byte   // output, or the pending chunk when streaming
	members []member // members of the open objects, as a stack
	arena   []byte   // decoded keys of the open objects, as a stack
	tmp     []byte   // scratch for reordering members
	perm    []uint32 // member order of the object being reordered
	w       io.Writer
	werr    error
	sha     hash.Hash
	sum     [sha256.Size]byte

	// Go value walking.
	seen map[identity]struct{}
	keys []mapKey
	memo marshalMemo
}

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(st *state) {
	if cap(st.buf) > maxPooled || cap(st.tmp) > maxPooled || cap(st.arena) > maxPooled || cap(st.members) > maxPooled/16 {
		st.buf, st.tmp, st.arena, st.members, st.perm = nil, nil, nil, nil, nil
	}
	if len(st.seen) > 0 {
		st.seen = nil
	}
	clear(st.keys[:cap(st.keys)])
	st.buf, st.tmp, st.arena, st.members, st.keys = st.buf[:0], st.tmp[:0], st.arena[:0], st.members[:0], st.keys[:0]
	st.w, st.werr = nil, nil
	statePool.Put(st)
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

// out hands the pending chunk to the writer.
func (st *state) out() {
	st.write(st.buf)
	st.buf = st.buf[:0]
}

// maybeFlush streams the pending chunk once it is large enough.
func (st *state) maybeFlush() {
	if st.w != nil && len(st.buf) >= flushSize {
		st.out()
	}
}
