package canonical

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// cycleCheckDepth is the nesting level from which containers are checked for
// cycles; shallower values cannot be cyclic without also appearing deeper.
const cycleCheckDepth = 64

// identity names a container instance for cycle detection: a map by its
// pointer, a slice by its type, data pointer and length, a pointer by its
// type and address. The type keeps apart containers that share an address
// without one holding the other (&a and &a[0]; a slice of arrays and a
// slice of the first array's elements), as encoding/json keeps pointers
// apart; a real cycle still comes back to an identity it has entered.
type identity struct {
	ptr uintptr
	len int
	typ reflect.Type
}

// mapKey is one Go map key: its canonical text and the key itself.
type mapKey struct {
	norm string
	orig reflect.Value
	str  string
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	anySliceType      = reflect.TypeFor[[]any]()
)

// enter records a container on the current path; leave must follow.
func (st *state) enter(id identity, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
	}
	if depth < cycleCheckDepth || id.ptr == 0 {
		return nil
	}
	if st.seen == nil {
		st.seen = make(map[identity]struct{})
	}
	if _, ok := st.seen[id]; ok {
		return fmt.Errorf("%w: value refers to itself", ErrCycle)
	}
	st.seen[id] = struct{}{}
	return nil
}

func (st *state) leave(id identity, depth int) {
	if depth >= cycleCheckDepth && id.ptr != 0 {
		delete(st.seen, id)
	}
}

// value writes the canonical form of a Go value at nesting depth.
func (st *state) value(v any, depth int) error {
	switch x := v.(type) {
	case nil:
		st.buf = append(st.buf, "null"...)
	case bool:
		if x {
			st.buf = append(st.buf, "true"...)
		} else {
			st.buf = append(st.buf, "false"...)
		}
	case string:
		st.buf = appendQuotedText(st.buf, x)
	case float64:
		st.buf = appendNumber(st.buf, x)
	case float32:
		st.buf = appendFloat32(st.buf, x)
	case int:
		st.buf = appendInt(st.buf, int64(x))
	case int64:
		st.buf = appendInt(st.buf, x)
	case int32:
		st.buf = appendInt(st.buf, int64(x))
	case uint64:
		st.buf = appendUint(st.buf, x)
	case json.Number:
		return st.number(string(x))
	case json.RawMessage:
		return st.raw(x, depth)
	case []any:
		if x == nil {
			st.buf = append(st.buf, "null"...)
			return nil
		}
		id := identity{len: len(x), typ: anySliceType}
		if len(x) > 0 && depth+1 >= cycleCheckDepth {
			id.ptr = reflect.ValueOf(&x[0]).Pointer() // a pointer: no allocation
		}
		if err := st.enter(id, depth+1); err != nil {
			return err
		}
		st.buf = append(st.buf, '[')
		for i, e := range x {
			if i > 0 {
				st.buf = append(st.buf, ',')
			}
			if err := st.value(e, depth+1); err != nil {
				return err
			}
			st.maybeFlush()
		}
		st.buf = append(st.buf, ']')
		st.leave(id, depth+1)
	case map[string]any:
		if x == nil {
			st.buf = append(st.buf, "null"...)
			return nil
		}
		var id identity
		if depth+1 >= cycleCheckDepth {
			id.ptr = reflect.ValueOf(x).Pointer()
		}
		if err := st.enter(id, depth+1); err != nil {
			return err
		}
		base := len(st.keys)
		for k := range x {
			st.keys = append(st.keys, mapKey{norm: normalizeText(k), str: k})
		}
		keys := sortKeys(st.keys[base:])
		st.buf = append(st.buf, '{')
		for i, k := range keys {
			st.memberKey(i, k.norm)
			if err := st.value(x[k.str], depth+1); err != nil {
				return err
			}
			st.maybeFlush()
		}
		st.endObject(base, id, depth+1)
	default:
		return st.reflectValue(reflect.ValueOf(v), depth)
	}
	return nil
}

// marshalMemo remembers how values of the last type seen are marshalled:
// a container's elements mostly share their type, and the method-set
// lookups cost more than the encoding of a number.
type marshalMemo struct {
	t                 reflect.Type
	addr              bool
	viaAddr, viaValue bool
}

// marshalers reports whether a value of type t (addressable or not) is
// encoded by a MarshalJSON or MarshalText method, called on its address
// (viaAddr) or on the value (viaValue), as encoding/json chooses.
func (st *state) marshalers(t reflect.Type, addr bool) (viaAddr, viaValue bool) {
	m := &st.memo
	if m.t != t || m.addr != addr {
		m.t, m.addr = t, addr
		m.viaAddr = addr && t.Kind() != reflect.Pointer && marshals(reflect.PointerTo(t))
		m.viaValue = !m.viaAddr && marshals(t)
	}
	return m.viaAddr, m.viaValue
}

func marshals(t reflect.Type) bool {
	return t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType)
}

// sortKeys sorts map keys in UTF-16 order of their canonical text and drops
// all but one of keys whose text is equal (distinct Go strings that differ
// only in invalid UTF-8): the greatest Go string wins, so the result does not
// depend on map iteration order.
func sortKeys(keys []mapKey) []mapKey {
	slices.SortFunc(keys, func(a, b mapKey) int {
		if c := compareKeys(a.norm, b.norm); c != 0 {
			return c
		}
		return strings.Compare(a.str, b.str)
	})
	out := keys[:0]
	for i, k := range keys {
		if i+1 < len(keys) && keys[i+1].norm == k.norm {
			continue
		}
		out = append(out, k)
	}
	return out
}

func appendInt(dst []byte, i int64) []byte {
	if i > -maxSafeInteger && i < maxSafeInteger {
		return strconv.AppendInt(dst, i, 10)
	}
	return appendNumber(dst, float64(i))
}

func appendUint(dst []byte, u uint64) []byte {
	if u < maxSafeInteger {
		return strconv.AppendUint(dst, u, 10)
	}
	return appendNumber(dst, float64(u))
}

// appendFloat32 prints a float32 as the number its JSON encoding denotes
// (shortest float32 digits, read back as a double), which is what a
// JavaScript peer receiving that JSON would hold.
func appendFloat32(dst []byte, f float32) []byte {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return appendNumber(dst, float64(f))
	}
	var buf [32]byte
	d, _ := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], float64(f), 'g', -1, 32)), 64)
	return appendNumber(dst, d)
}

// number writes a json.Number, which must be a JSON number literal (the
// empty Number means 0, as in encoding/json).
func (st *state) number(s string) error {
	if s == "" {
		st.buf = append(st.buf, '0')
		return nil
	}
	end, copyEnd, ok := scanNumber([]byte(s), 0)
	if !ok || end != len(s) {
		return fmt.Errorf("%w: json.Number %q is not a JSON number", ErrInvalidJSON, s)
	}
	if copyEnd > 0 {
		st.buf = append(st.buf, s[:copyEnd]...)
	} else {
		st.buf = appendNumberText(st.buf, []byte(s))
	}
	return nil
}

// raw writes an embedded JSON document.
func (st *state) raw(data []byte, depth int) error {
	if data == nil {
		st.buf = append(st.buf, "null"...) // as encoding/json encodes a nil RawMessage
		return nil
	}
	return st.canon(data, MaxDepth-depth, true)
}

// viaJSON writes v through its encoding/json encoding.
func (st *state) viaJSON(v any, depth int) error {
	data, err := marshalJSON(v)
	if err != nil {
		return err
	}
	return st.raw(data, depth)
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
	data, err = json.Marshal(v)
	if err != nil {
		return nil, marshalError(err)
	}
	return data, nil
}

// marshalError types an encoding/json error the way the failing value is
// typed when it is walked here, so that the kind of an error does not
// depend on whether a struct held the value.
func marshalError(err error) error {
	var me *json.MarshalerError
	var uv *json.UnsupportedValueError
	switch {
	case errors.As(err, &me):
		// A RawMessage fails only on its text; a failing marshaler of any
		// other type stays ErrUnsupportedType.
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

func (st *state) reflectValue(v reflect.Value, depth int) error {
	if !v.IsValid() {
		st.buf = append(st.buf, "null"...)
		return nil
	}
	t := v.Type()
	switch t {
	case jsonNumberType:
		return st.number(v.String())
	case rawMessageType:
		return st.raw(v.Bytes(), depth)
	}
	switch viaAddr, viaValue := st.marshalers(t, v.CanAddr()); {
	case viaAddr:
		// encoding/json calls pointer-receiver methods on addressable values
		// (slice elements, fields and array elements reached through them).
		return st.viaJSON(v.Addr().Interface(), depth)
	case viaValue:
		return st.viaJSON(v.Interface(), depth)
	}
	switch t.Kind() {
	case reflect.Bool:
		return st.value(v.Bool(), depth)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		st.buf = appendInt(st.buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		st.buf = appendUint(st.buf, v.Uint())
	case reflect.Float32:
		st.buf = appendFloat32(st.buf, float32(v.Float()))
	case reflect.Float64:
		st.buf = appendNumber(st.buf, v.Float())
	case reflect.String:
		st.buf = appendQuotedText(st.buf, v.String())
	case reflect.Interface:
		if v.IsNil() {
			st.buf = append(st.buf, "null"...)
			return nil
		}
		return st.value(v.Elem().Interface(), depth)
	case reflect.Pointer:
		if v.IsNil() {
			st.buf = append(st.buf, "null"...)
			return nil
		}
		if t.Elem().Kind() == reflect.Struct {
			return st.viaJSON(v.Interface(), depth)
		}
		id := identity{ptr: v.Pointer(), typ: t}
		if err := st.enter(id, depth+1); err != nil {
			return err
		}
		// The element stays addressable, as it is for encoding/json.
		if err := st.reflectElem(v.Elem(), depth+1); err != nil {
			return err
		}
		st.leave(id, depth+1)
	case reflect.Struct:
		if v.CanAddr() {
			// Through its address the fields are addressable, as they are
			// to encoding/json here.
			return st.viaJSON(v.Addr().Interface(), depth)
		}
		return st.viaJSON(v.Interface(), depth)
	case reflect.Slice:
		if v.IsNil() {
			st.buf = append(st.buf, "null"...)
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(jsonMarshalerType) &&
			!reflect.PointerTo(t.Elem()).Implements(textMarshalerType) {
			// encoding/json's []byte encoding: a base64 string.
			st.buf = append(st.buf, '"')
			st.buf = base64.StdEncoding.AppendEncode(st.buf, v.Bytes())
			st.buf = append(st.buf, '"')
			return nil
		}
		id := identity{len: v.Len(), typ: t}
		if v.Len() > 0 {
			id.ptr = v.Pointer()
		}
		return st.sequence(v, id, depth)
	case reflect.Array:
		return st.sequence(v, identity{}, depth)
	case reflect.Map:
		if !supportedKey(t.Key()) {
			return fmt.Errorf("%w: map with %s keys", ErrUnsupportedType, t.Key())
		}
		if v.IsNil() {
			st.buf = append(st.buf, "null"...)
			return nil
		}
		return st.mapValue(v, depth)
	default:
		return fmt.Errorf("%w: %s", ErrUnsupportedType, t)
	}
	return nil
}

func (st *state) sequence(v reflect.Value, id identity, depth int) error {
	if err := st.enter(id, depth+1); err != nil {
		return err
	}
	st.buf = append(st.buf, '[')
	for i := range v.Len() {
		if i > 0 {
			st.buf = append(st.buf, ',')
		}
		if err := st.reflectElem(v.Index(i), depth+1); err != nil {
			return err
		}
		st.maybeFlush()
	}
	st.buf = append(st.buf, ']')
	st.leave(id, depth+1)
	return nil
}

// reflectElem writes a container element, taking the fast path for
// interface elements.
func (st *state) reflectElem(e reflect.Value, depth int) error {
	if e.Kind() == reflect.Interface {
		if e.IsNil() {
			st.buf = append(st.buf, "null"...)
			return nil
		}
		return st.value(e.Elem().Interface(), depth)
	}
	return st.reflectValue(e, depth)
}

func (st *state) mapValue(v reflect.Value, depth int) error {
	id := identity{ptr: v.Pointer()}
	if err := st.enter(id, depth+1); err != nil {
		return err
	}
	base := len(st.keys)
	iter := v.MapRange()
	for iter.Next() {
		k := iter.Key()
		name, err := keyName(k)
		if err != nil {
			return err
		}
		st.keys = append(st.keys, mapKey{norm: normalizeText(name), str: name, orig: k})
	}
	n := len(sortKeys(st.keys[base:]))
	st.buf = append(st.buf, '{')
	for i := range n {
		k := st.keys[base+i] // st.keys may move while emitting values
		st.memberKey(i, k.norm)
		if err := st.reflectElem(v.MapIndex(k.orig), depth+1); err != nil {
			return err
		}
		st.maybeFlush()
	}
	st.endObject(base, id, depth+1)
	return nil
}

// supportedKey reports whether encoding/json encodes maps with keys of type
// t: strings, integers and encoding.TextMarshalers.
func supportedKey(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return t.Implements(textMarshalerType)
}

// keyName returns the object key encoding/json writes for the map key k: a
// string kind's own text (even when the type has MarshalText), else
// MarshalText's text (a nil pointer's is ""), else an integer's decimal
// digits.
func keyName(k reflect.Value) (string, error) {
	switch k.Kind() {
	case reflect.String:
		return k.String(), nil
	case reflect.Pointer:
		if k.IsNil() && k.Type().Implements(textMarshalerType) {
			return "", nil
		}
	case reflect.Interface:
		if k.IsNil() {
			// encoding/json panics on this key.
			return "", fmt.Errorf("%w: nil %s map key", ErrUnsupportedType, k.Type())
		}
	}
	if k.Type().Implements(textMarshalerType) {
		text, err := marshalText(k.Interface().(encoding.TextMarshaler))
		if err != nil {
			return "", fmt.Errorf("%w: map key %s: %w", ErrUnsupportedType, k.Type(), err)
		}
		return string(text), nil
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", fmt.Errorf("%w: map key %s", ErrUnsupportedType, k.Type())
}

// marshalText is m.MarshalText with a panic returned as an error.
func marshalText(m encoding.TextMarshaler) (text []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, err = nil, fmt.Errorf("MarshalText panicked: %v", p)
		}
	}()
	return m.MarshalText()
}

// memberKey writes the key of an object's member i: a comma before every
// member but the first, then the quoted key and a colon.
func (st *state) memberKey(i int, norm string) {
	if i > 0 {
		st.buf = append(st.buf, ',')
	}
	st.buf = appendQuotedText(st.buf, norm)
	st.buf = append(st.buf, ':')
}

// endObject closes an object whose keys were pushed at st.keys[base:]: it
// writes the '}', drops those keys and leaves id.
func (st *state) endObject(base int, id identity, depth int) {
	st.buf = append(st.buf, '}')
	clear(st.keys[base:])
	st.keys = st.keys[:base]
	st.leave(id, depth)
}
