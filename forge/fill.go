package forge

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
)

// structFill sets a typed tool's argument struct from the arguments already
// decoded for validation, sparing the second parse of the raw document that
// encoding/json would do. It covers only structs of plain fields (strings,
// booleans, integers, float64) with plain json names, and only values it
// sets exactly as encoding/json would from the same document: anything else
// (a key that is not exactly a field's json name, a number that is not an
// exact integer of the field's range, a value of another type) makes fill
// report false and the caller decode the raw document as before, which also
// words any error.
type structFill struct {
	// fields lists the fields; fill looks each up in the arguments rather
	// than ranging over them, which costs more in a small map.
	fields []fillField
}

type fillField struct {
	name  string // the json name
	index int
	kind  reflect.Kind
}

// newStructFill returns the structFill of t, or nil when t is not a struct
// of plain fields.
func newStructFill(t reflect.Type) *structFill {
	if t.Kind() != reflect.Struct || decodesItself(t) {
		return nil
	}
	f := &structFill{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue
		}
		name := sf.Name
		if tag, ok := sf.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			n, opts, _ := strings.Cut(tag, ",")
			if strings.Contains(opts, "string") {
				return nil
			}
			if n != "" {
				name = n
			}
		}
		// json.Number is a string that encoding/json only fills from a
		// number literal, or a string holding one.
		if !plainName(name) || decodesItself(sf.Type) || sf.Type == reflect.TypeFor[json.Number]() {
			return nil
		}
		switch k := sf.Type.Kind(); k {
		case reflect.String, reflect.Bool, reflect.Float64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if slices.ContainsFunc(f.fields, func(ff fillField) bool { return ff.name == name }) {
				return nil
			}
			f.fields = append(f.fields, fillField{name: name, index: i, kind: k})
		default:
			return nil
		}
	}
	return f
}

// plainName reports whether encoding/json takes name, a tag's name, as
// written: letters, digits, '_' and '-' only.
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
		default:
			return false
		}
	}
	return true
}

// maxExactInt bounds the integers a float64 holds without doubt: below it
// every integer is exact, and no literal rounded onto it.
const maxExactInt = 1 << 53

// fill sets *dst (a pointer to the struct) from args, decoded from raw, with
// any root defaults filled in; false when it could not, leaving *dst partly
// set. raw must have no literal that float64 may round (mayRoundNumber):
// args then hold every number exactly as written, and an integral float64 is
// an integer literal's value. A default in args is the decoded value whose
// re-encoding the slower path decodes over the struct: the same value.
func (f *structFill) fill(dst reflect.Value, raw []byte, args map[string]any) bool {
	if mayRoundNumber(raw) {
		return false
	}
	s := dst.Elem()
	found := 0 // arguments that are fields
	for _, ff := range f.fields {
		v, ok := args[ff.name]
		if !ok {
			continue
		}
		found++
		if v == nil {
			// null leaves a plain field as it is, which is not zero
			// when the key came before too ({"n":1,"n":null}): rare
			// enough to leave to encoding/json.
			return false
		}
		fv := s.Field(ff.index)
		switch ff.kind {
		case reflect.String:
			x, ok := v.(string)
			if !ok {
				return false
			}
			fv.SetString(x)
		case reflect.Bool:
			x, ok := v.(bool)
			if !ok {
				return false
			}
			fv.SetBool(x)
		case reflect.Float64:
			x, ok := v.(float64)
			if !ok {
				return false
			}
			fv.SetFloat(x)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			x, ok := v.(float64)
			if !ok || x != math.Trunc(x) || math.Abs(x) >= maxExactInt || fv.OverflowInt(int64(x)) {
				return false
			}
			fv.SetInt(int64(x))
		default: // unsigned
			x, ok := v.(float64)
			if !ok || x != math.Trunc(x) || x < 0 || x >= maxExactInt || fv.OverflowUint(uint64(x)) {
				return false
			}
			fv.SetUint(uint64(x))
		}
	}
	return found == len(args) // else a key that is no field's name exactly
}
