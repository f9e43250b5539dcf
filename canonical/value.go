package canonical

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// encode appends JSON text for the Go value v, nested depth containers
// deep: the text encoding/json writes for it, except that NaN and ±Inf
// print null. The dynamic shapes JSON decodes into ([]any, map[string]any,
// scalars, json.Number, json.RawMessage) are walked here, so that they need
// no reflection; anything else is encoding/json's. The text is then
// canonicalised like any other.
func (st *state) encode(dst []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return appendQuotedText(dst, x), nil
	case float64:
		return appendNumber(dst, x), nil
	case float32:
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return append(dst, "null"...), nil
		}
		// The shortest float32 digits, which JSON readers take as a double.
		return strconv.AppendFloat(dst, float64(x), 'g', -1, 32), nil
	case json.Number:
		if x == "" {
			return append(dst, '0'), nil // as encoding/json writes it
		}
		if end, _, ok := scanNumber([]byte(x), 0); !ok || end != len(x) {
			return dst, fmt.Errorf("%w: json.Number %q is not a JSON number", ErrInvalidJSON, x)
		}
		return append(dst, x...), nil
	case json.RawMessage:
		if x == nil {
			return append(dst, "null"...), nil // as encoding/json writes it
		}
		return st.canon(dst, x, MaxDepth) // validated alone, so that "1,2" cannot pass as two elements
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		id := identity{n: len(x)}
		if len(x) > 0 {
			id.ptr = reflect.ValueOf(&x[0]).Pointer()
		}
		if err := st.enter(id, depth+1); err != nil {
			return dst, err
		}
		dst = append(dst, '[')
		for k, e := range x {
			if k > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = st.encode(dst, e, depth+1); err != nil {
				return dst, err
			}
		}
		st.path = st.path[:len(st.path)-1]
		return append(dst, ']'), nil
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		if err := st.enter(identity{reflect.ValueOf(x).Pointer(), -1}, depth+1); err != nil {
			return dst, err
		}
		// In encoding/json's order, so that of keys that print alike
		// (differing only in invalid UTF-8) the greatest wins, whatever
		// the map's iteration order.
		base := len(st.keys)
		for k := range x {
			st.keys = append(st.keys, k)
		}
		end := len(st.keys)
		slices.Sort(st.keys[base:])
		dst = append(dst, '{')
		for k := base; k < end; k++ {
			if k > base {
				dst = append(dst, ',')
			}
			key := st.keys[k] // st.keys may move while values are encoded
			dst = append(appendQuotedText(dst, key), ':')
			var err error
			if dst, err = st.encode(dst, x[key], depth+1); err != nil {
				return dst, err
			}
		}
		clear(st.keys[base:end])
		st.keys, st.path = st.keys[:base], st.path[:len(st.path)-1]
		return append(dst, '}'), nil
	}
	data, err := marshalJSON(v)
	return append(dst, data...), err
}

// identity names a container on the path: a slice by its data pointer and
// length, a map by its pointer (and length -1).
type identity struct {
	ptr uintptr
	n   int
}

// enter pushes a container at depth onto the path. Past MaxDepth the
// value is either too deep or holds itself: a container met twice on the
// path tells which.
func (st *state) enter(id identity, depth int) error {
	if depth <= MaxDepth {
		st.path = append(st.path, id)
		return nil
	}
	seen := make(map[identity]bool, len(st.path))
	for _, id := range st.path {
		if seen[id] && id.ptr != 0 {
			return fmt.Errorf("%w: value refers to itself", ErrCycle)
		}
		seen[id] = true
	}
	return fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
}

// marshalJSON is json.Marshal with its errors typed (marshalError) and its
// panics returned as ErrUnsupportedType: encoding/json panics on some
// values (a nil interface map key), and so may a user's MarshalJSON or
// MarshalText; neither may crash the caller of a checksum.
func marshalJSON(v any) (data []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			data, err = nil, fmt.Errorf("%w: encoding %T panicked: %v", ErrUnsupportedType, v, p)
		}
	}()
	if data, err = json.Marshal(v); err != nil {
		return nil, marshalError(err)
	}
	return data, nil
}

// marshalError types an encoding/json error by what failed: a RawMessage's
// or json.Number's text is invalid JSON (or too deep), a value holding
// itself is a cycle, anything else is an unsupported type.
func marshalError(err error) error {
	var me *json.MarshalerError
	var uv *json.UnsupportedValueError
	switch {
	case errors.As(err, &me):
		if me.Type == rawMessageType || me.Type == reflect.PointerTo(rawMessageType) {
			if strings.Contains(me.Err.Error(), "exceeded max depth") {
				return fmt.Errorf("%w: %w", ErrLimit, err)
			}
			return fmt.Errorf("%w: %w", ErrInvalidJSON, err)
		}
	case errors.As(err, &uv):
		switch uv.Value.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice:
			return fmt.Errorf("%w: %w", ErrCycle, err)
		}
	case strings.HasPrefix(err.Error(), "json: invalid number literal "):
		// encoding/json reports a malformed json.Number with an untyped
		// error, so its text is all there is to recognise it by.
		return fmt.Errorf("%w: %w", ErrInvalidJSON, err)
	}
	return fmt.Errorf("%w: %w", ErrUnsupportedType, err)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()
