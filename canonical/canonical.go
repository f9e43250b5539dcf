package canonical

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// Errors returned by the package; test with errors.Is.
var (
	ErrInvalidJSON     = errors.New("canonical: invalid JSON")
	ErrUnsupportedType = errors.New("canonical: unsupported type")
	ErrCycle           = errors.New("canonical: cycle")
	// ErrLimit reports a document nested deeper than MaxDepth, or larger
	// than 4 GiB as given or as canonical text.
	ErrLimit = errors.New("canonical: limit exceeded")
)

// MaxDepth is the deepest nesting of arrays and objects accepted. The
// JavaScript reference's recursive canonicalStringify already fails with a
// RangeError a few thousand levels deep, so any value it can hash is within
// this limit.
const MaxDepth = 10000

// StringifyJSON returns the canonical text of a raw JSON document: what
// canonicalStringify(JSON.parse(text)) returns in JavaScript, where text is
// data decoded by a WHATWG UTF-8 decoder (each maximal invalid sequence
// becomes one U+FFFD).
func StringifyJSON(data []byte) (string, error) {
	st := getState()
	defer putState(st)
	out, err := st.canon(st.buf[:0], data, MaxDepth)
	st.buf = out
	return string(out), err // "" on error
}

// AppendJSON appends the canonical text of the raw JSON document data to dst.
// On error dst is returned unchanged.
func AppendJSON(dst, data []byte) ([]byte, error) {
	st := getState()
	defer putState(st)
	out, err := st.canon(st.buf[:0], data, MaxDepth) // pooled: reordering writes past the text
	if st.buf = out; err != nil {
		return dst, err
	}
	return append(dst, out...), nil
}

// WriteJSON writes the canonical text of the raw JSON document data to w.
// The document is validated before the write, so nothing is written when it
// is invalid (the text is therefore built in memory first).
func WriteJSON(w io.Writer, data []byte) error {
	st := getState()
	defer putState(st)
	out, err := st.canon(st.buf[:0], data, MaxDepth)
	if st.buf = out; err == nil {
		_, err = w.Write(out)
	}
	return err
}

// Stringify returns the canonical text of a Go value: that of the JSON
// encoding/json writes for it, so invalid UTF-8 in its strings becomes one
// U+FFFD per byte. See the package documentation for how Go types map to
// JSON.
func Stringify(v any) (string, error) {
	st := getState()
	defer putState(st)
	enc, err := st.encode(st.enc[:0], v, 0)
	if st.enc = enc; err != nil {
		return "", err
	}
	return StringifyJSON(enc)
}

// Checksum returns the lowercase hex SHA-256 of the canonical text of
// {"tool": tool, "args": args}; args of type json.RawMessage or []byte is raw JSON.
// Any other args is a Go value as for [Stringify]; in particular a string is
// a JSON string value, not JSON text (use [ChecksumJSON] for text). The
// tool name is a Go string: invalid UTF-8 in it becomes one U+FFFD per
// byte.
func Checksum(tool string, args any) (string, error) {
	switch a := args.(type) {
	case json.RawMessage:
		return ChecksumJSON(tool, a)
	case []byte:
		return ChecksumJSON(tool, a)
	}
	st := getState()
	defer putState(st)
	enc, err := st.encode(st.enc[:0], args, 1) // args sits inside the {tool,args} object
	if st.enc = enc; err != nil {
		return "", err
	}
	return ChecksumJSON(tool, enc)
}

// ChecksumJSON is Checksum for arguments given as raw JSON text, read as a
// WHATWG UTF-8 decoder reads bytes; the tool name is a Go string, as for
// Checksum.
func ChecksumJSON(tool string, raw []byte) (string, error) {
	st := getState()
	defer putState(st)
	// "args" sorts before "tool", so the members are written in that order.
	out, err := st.canon(append(st.buf[:0], `{"args":`...), raw, MaxDepth-1)
	if err != nil {
		return "", err
	}
	out = append(appendQuotedText(append(out, `,"tool":`...), tool), '}')
	st.buf = out
	sum := sha256.Sum256(out)
	var digest [2 * sha256.Size]byte
	hex.Encode(digest[:], sum[:])
	return string(digest[:]), nil
}

// state is the reusable scratch of one call. It is pooled, and never shared
// between goroutines.
type state struct {
	buf     []byte       // canonical output
	enc     []byte       // JSON text of a Go value, before canonicalisation
	arena   []byte       // scratch for decoded sort keys
	members []member     // members of the open objects, as a stack
	keys    []string     // keys of the Go maps being encoded, as a stack
	path    []identity   // Go containers being encoded, outermost first
	calls   int          // canon calls so far: a key order found serves its own call only (it would hold across calls; kept apart, a call's speed never depends on the calls before it)
	orders  [17]struct { // by size, from 1: the key order last found (16 also serves larger objects, never kept)
		size, call int        // the number of members (0 for none), the call that found it
		prefix     [16]uint64 // their prefixes in document order
		perm       [16]uint8  // their indexes in key order
	}
}

// maxPooled bounds the scratch a state keeps when it goes back to the
// pool, so that one huge document does not pin its memory.
const maxPooled = 1 << 25

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(st *state) {
	if cap(st.buf)+cap(st.enc)+cap(st.arena)+16*cap(st.members) > maxPooled {
		*st = state{}
	}
	clear(st.keys[:cap(st.keys)]) // drop the strings
	st.keys, st.path = st.keys[:0], st.path[:0]
	statePool.Put(st)
}
