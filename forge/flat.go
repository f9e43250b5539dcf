package forge

import (
	"bytes"
	"math"
	"math/big"
	"slices"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// flatObject decides validity, on the fast path, for the commonest tool
// schema: the one derived from a struct of plain fields, an object whose
// properties are scalars of given types (string, integer, number, boolean,
// null), some of them required, with integer or number bounds, unknown keys
// refused or allowed. For decoded arguments (float64 numbers, as
// decodeObject makes them) that is a type switch per member, where the
// compiled validator sets up a scope and a map per member and parses every
// integer with math/big.
//
// It only ever says "valid": when it returns false (a value of another Go
// type, a missing key, a type or bound not met) the compiled validator
// decides and words the failures. A schema with any keyword outside the
// few it knows, annotations aside, has no flatObject. FuzzFlatObject holds
// it to the library on arbitrary schemas and arguments.
type flatObject struct {
	// props lists the properties; valid looks each up in the arguments
	// rather than ranging over them, which costs more in a small map.
	props []flatProp
	// required lists the required names that are not properties.
	required []string
	open     bool // unknown keys allowed
}

// flatProp is one property's schema: the JSON types it allows and its
// bounds, each exactly a float64 (nil: none).
type flatProp struct {
	name     string
	required bool
	types    flatTypes
	min, max *float64
}

type flatTypes uint8

const (
	flatString flatTypes = 1 << iota
	flatInteger
	flatNumber
	flatBoolean
	flatNull
)

var flatTypeNames = map[string]flatTypes{"string": flatString, "integer": flatInteger, "number": flatNumber,
	"boolean": flatBoolean, "null": flatNull}

// annotation lists keywords that never decide validity in draft 2020-12.
var annotation = map[string]bool{"title": true, "description": true, "$comment": true, "default": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true}

// newFlatObject returns the flatObject of the schema document doc, or nil
// when doc is not of that shape (the compiled validator then decides every
// call). doc has compiled: it is valid JSON. A document with \u escapes or
// invalid UTF-8 has none: gjson and encoding/json may read its names
// differently there.
func newFlatObject(doc []byte) *flatObject {
	if bytes.Contains(doc, []byte(`\u`)) || !utf8.Valid(doc) {
		return nil
	}
	root := gjson.ParseBytes(doc)
	if !root.IsObject() {
		return nil
	}
	f := &flatObject{open: true}
	var required []string
	ok := eachOnce(root, func(key string, val gjson.Result) bool {
		switch {
		case annotation[key]:
			return true
		case key == "type":
			return val.Type == gjson.String && val.Str == "object"
		case key == "additionalProperties":
			f.open = val.Type == gjson.True
			return val.IsBool()
		case key == "required":
			if !val.IsArray() {
				return false
			}
			for _, r := range val.Array() {
				if r.Type != gjson.String {
					return false
				}
				required = append(required, r.Str)
			}
			return true
		case key == "properties":
			return val.IsObject() && eachOnce(val, func(name string, sub gjson.Result) bool {
				p, ok := newFlatProp(sub)
				p.name = name
				f.props = append(f.props, p)
				return ok
			})
		}
		return false
	})
	if !ok {
		return nil
	}
	for _, r := range required {
		i := slices.IndexFunc(f.props, func(p flatProp) bool { return p.name == r })
		if i < 0 {
			f.required = append(f.required, r)
		} else {
			f.props[i].required = true
		}
	}
	return f
}

// newFlatProp reads a property's schema; ok is false when it is not of the
// flat shape.
func newFlatProp(s gjson.Result) (p flatProp, ok bool) {
	if !s.IsObject() {
		return p, false
	}
	ok = eachOnce(s, func(key string, val gjson.Result) bool {
		switch {
		case annotation[key]:
			return true
		case key == "type":
			names := []gjson.Result{val}
			if val.IsArray() {
				names = val.Array()
			}
			for _, n := range names {
				t := flatTypeNames[n.Str]
				if n.Type != gjson.String || t == 0 {
					return false
				}
				p.types |= t
			}
			return true
		case key == "minimum":
			p.min = exactFloat(val)
			return p.min != nil
		case key == "maximum":
			p.max = exactFloat(val)
			return p.max != nil
		}
		return false
	})
	return p, ok && p.types != 0
}

// exactFloat is the number literal v as a float64 when that is its exact
// value (the compiled validator compares bounds exactly), or nil.
func exactFloat(v gjson.Result) *float64 {
	if v.Type != gjson.Number {
		return nil
	}
	r, ok := new(big.Rat).SetString(v.Raw)
	if !ok {
		return nil
	}
	f, exact := r.Float64()
	if !exact {
		return nil
	}
	return &f
}

// eachOnce calls fn for each member of the object o until it returns false;
// a key seen twice (which decoders read differently) is false too.
func eachOnce(o gjson.Result, fn func(key string, val gjson.Result) bool) bool {
	seen := map[string]bool{}
	ok := true
	o.ForEach(func(k, v gjson.Result) bool {
		if seen[k.Str] {
			ok = false
			return false
		}
		seen[k.Str] = true
		ok = fn(k.Str, v)
		return ok
	})
	return ok
}

// valid reports whether args is valid; false means "not known to be".
func (f *flatObject) valid(args map[string]any) bool {
	found := 0 // arguments that are properties
	for _, p := range f.props {
		v, ok := args[p.name]
		if !ok {
			if p.required {
				return false
			}
			continue
		}
		found++
		if !p.accepts(v) {
			return false
		}
	}
	if found != len(args) && !f.open {
		return false
	}
	for _, r := range f.required {
		if _, ok := args[r]; !ok {
			return false
		}
	}
	return true
}

func (p flatProp) accepts(v any) bool {
	switch v := v.(type) {
	case string:
		return p.types&flatString != 0
	case bool:
		return p.types&flatBoolean != 0
	case nil:
		return p.types&flatNull != 0
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
		// A float64 is an integer for the library when the shortest
		// decimal spelling of it is; that is when it has no fraction.
		if p.types&flatNumber == 0 && (p.types&flatInteger == 0 || v != math.Trunc(v)) {
			return false
		}
		// The shortest spelling of v rounds to v, so it is on the same
		// side of a bound that is exactly a float64 as v is.
		return (p.min == nil || v >= *p.min) && (p.max == nil || v <= *p.max)
	}
	return false
}
