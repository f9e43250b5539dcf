package canonical

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
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
// Checksum. The canonical text is streamed into the hash; only the members
// of objects whose keys are out of order wait in memory until their object
// closes. When a large document is split between two goroutines (see the
// package documentation), the worker's share of the text, up to about two
// thirds of the document, also waits in memory until the call ends.
func ChecksumJSON(tool string, raw []byte) (string, error) {
	sum, _, err := checksumJSON(tool, raw, splitAuto, nil)
	return sum, err
}

// splitReport says how a split went: whether the worker's output was used,
// and whether the root object was hashed on a guessed member order (and
// the guess was wrong).
type splitReport struct{ adopted, speculated, missed bool }

// checksumJSON is ChecksumJSON with the split guess of canonAt; t, when
// not nil, steers the split and records how the guess went (tests).
func checksumJSON(tool string, raw []byte, at int, t *splitTest) (sum string, rep splitReport, err error) {
	st := getState()
	defer putState(st)
	st.test = t
	st.w = st.hasher()
	st.buf = append(st.buf, `{"args":`...)
	rep.adopted, err = st.canonAt(raw, MaxDepth-1, true, at)
	if t != nil {
		rep.speculated, rep.missed = t.specStarted, t.specMissed
	}
	if err != nil {
		return "", rep, err
	}
	sum, err = st.finishChecksum(tool)
	return sum, rep, err
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
