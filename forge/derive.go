package forge

import (
	"encoding"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
)

// A typed tool validates arguments against the schema jsonschema.For
// derives from its argument type, then decodes them with encoding/json. The
// two must read the same JSON the same way, or arguments that pass the
// schema reach the handler as something else. This file holds them
// together: type schemas for the standard types the library gets wrong,
// refusal of struct shapes the library cannot be told about, and, where the
// schema lets unknown keys through, refusal of keys encoding/json would
// match to a field without regard to case.

// typeSchemas override the library's schemas for types encoding/json
// decodes by their own rules.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	// A JSON number (the library says string, which encoding/json only
	// takes quoted).
	reflect.TypeFor[json.Number](): {Type: "number"},
	// Any JSON value (the library says an array of bytes).
	reflect.TypeFor[json.RawMessage](): anyValue,
	// An integer: big.Int decodes a JSON number (the library says string).
	reflect.TypeFor[big.Int](): {Type: "integer"},
}

// anyValue is any JSON value, spelled as every type rather than {} so that
// for a pointer, to which the library adds "null", it stays any value.
var anyValue = &jsonschema.Schema{Types: []string{"null", "boolean", "object", "array", "number", "string"}}

// libraryTypeSchemas are the types that decode themselves whose schema the
// library already gets right (its initialSchemaMap: strings).
var libraryTypeSchemas = map[reflect.Type]bool{
	reflect.TypeFor[time.Time](): true, reflect.TypeFor[slog.Level](): true,
	reflect.TypeFor[big.Rat](): true, reflect.TypeFor[big.Float](): true,
}

// deriveSchema is jsonschema.For with forge's type schemas, plus, for every
// type A reaches that decodes itself, the schema of what its method takes:
// a string for UnmarshalText alone, any value for UnmarshalJSON (the
// method's own error then names the field). The library would describe
// such a type by its fields, which encoding/json never looks at.
func deriveSchema[A any]() (*jsonschema.Schema, error) {
	ts := maps.Clone(typeSchemas)
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] || ts[t] != nil || libraryTypeSchemas[t] {
			return
		}
		seen[t] = true
		// Before looking inside: a slice or map type may decode itself too.
		if t.Kind() != reflect.Pointer && decodesItself(t) {
			if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
				ts[t] = anyValue
			} else {
				ts[t] = &jsonschema.Schema{Type: "string"}
			}
			return
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(t.Elem())
		case reflect.Struct:
			for _, f := range jsonFields(t) {
				walk(f.typ)
			}
		}
	}
	// The arguments type itself keeps its fields' schema even when it
	// decodes itself (an UnmarshalJSON that fills in defaults, say): the
	// root must describe an object, and its fields are what it reads.
	root := reflect.TypeFor[A]()
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	seen[root] = true
	if root.Kind() == reflect.Struct {
		for _, f := range jsonFields(root) {
			walk(f.typ)
		}
	}
	return jsonschema.For[A](&jsonschema.ForOptions{TypeSchemas: ts})
}

// jsonField is a struct field as encoding/json decodes it.
type jsonField struct {
	name   string
	index  []int
	tagged bool // the name comes from the json tag
	quoted bool // the ",string" option applies
	typ    reflect.Type
}

// jsonFields lists the fields encoding/json decodes into for the struct
// type t, by name: encoding/json's typeFields, without its encoders.
func jsonFields(t reflect.Type) map[string]jsonField {
	type queued struct {
		typ   reflect.Type
		index []int
	}
	var fields []jsonField
	next := []queued{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validJSONTag(name) {
					name = ""
				}
				index := append(slices.Clip(f.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				quoted := false
				if slices.Contains(strings.Split(opts, ","), "string") {
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						quoted = true
					}
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{name: name, index: index, tagged: name != "", quoted: quoted, typ: sf.Type}
					if f.name == "" {
						f.name = sf.Name
					}
					fields = append(fields, f)
					if count[f.typ] > 1 {
						fields = append(fields, f) // annihilated below, as in encoding/json
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{typ: ft, index: index})
				}
			}
		}
	}
	slices.SortStableFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := map[string]jsonField{}
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		// The shallowest field wins, tagged first; a tie hides them all.
		if j-i == 1 || len(fields[i].index) != len(fields[i+1].index) || fields[i].tagged != fields[i+1].tagged {
			out[fields[i].name] = fields[i]
		}
		i = j
	}
	return out
}

// validJSONTag is encoding/json's isValidTag.
func validJSONTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// schemaFields lists, by property name, the fields jsonschema.For sees
// for each property of the struct type t, in order: it walks
// reflect.VisibleFields, skips embedded fields themselves (their promoted
// fields are visible), names fields as their json tag says, and the last
// field of a name gives the property its schema.
func schemaFields(t reflect.Type) map[string][][]int {
	out := map[string][][]int{}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, found := strings.Cut(tag, ",")
			if n == "-" && !found {
				continue
			}
			if n != "" {
				name = n
			}
		}
		out[name] = append(out[name], f.Index)
	}
	return out
}

// decodesItself reports whether encoding/json hands t's JSON to a method
// of t, whose own fields then do not matter.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(reflect.TypeFor[json.Unmarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

// disagreements lists, for t and every struct type its fields reach, the
// fields on which the derived schema and encoding/json part ways, each in
// words that name the field and say what to change.
func disagreements(t reflect.Type) []string {
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for {
			if typeSchemas[t] != nil || decodesItself(t) {
				return
			}
			switch t.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
				t = t.Elem()
				continue
			}
			break
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		js, ss := jsonFields(t), schemaFields(t)
		for _, name := range slices.Sorted(maps.Keys(ss)) {
			idx := ss[name]
			if len(idx) < 2 {
				continue
			}
			// The library keeps the last field's schema and lists the
			// name as required once per field: never what encoding/json,
			// which keeps the shallowest field or none, decodes.
			paths := make([]string, len(idx))
			for i, x := range idx {
				paths[i] = fieldPath(t, x)
			}
			decodes := "none of them"
			if f, ok := js[name]; ok {
				decodes = fieldPath(t, f.index)
			}
			out = append(out, fmt.Sprintf("fields %s share the json name %q, which the derived schema cannot tell apart "+
				"(encoding/json decodes %s); give them distinct json names", strings.Join(paths, " and "), name, decodes))
		}
		for _, name := range slices.Sorted(maps.Keys(js)) {
			f := js[name]
			sf := t.FieldByIndex(f.index)
			idx, ok := ss[name]
			switch {
			case len(idx) > 1:
				// reported above
			case f.quoted:
				out = append(out, fmt.Sprintf("field %s: the \",string\" option is not supported: encoding/json wants the value "+
					"quoted in a string, which the derived schema does not describe; drop the option", fieldPath(t, f.index)))
			case sf.Anonymous && f.tagged && !ok:
				out = append(out, fmt.Sprintf("field %s: an embedded struct with a json tag (%q) is one property to encoding/json, "+
					"but the derived schema flattens its fields into the parent; drop the tag, or give the field a name", fieldPath(t, f.index), name))
			case !ok || !slices.Equal(idx[0], f.index):
				fix := "give it a distinct json name"
				if sf.Anonymous {
					fix = "give the field a name instead of embedding it"
				}
				out = append(out, fmt.Sprintf("field %s: encoding/json decodes it as %q, which the derived schema leaves out; %s",
					fieldPath(t, f.index), name, fix))
			}
		}
		for _, name := range slices.Sorted(maps.Keys(ss)) {
			if _, ok := js[name]; ok || len(ss[name]) > 1 || inTaggedEmbed(t, ss[name][0]) {
				continue // agreed, or reported above
			}
			out = append(out, fmt.Sprintf("field %s: the derived schema describes it as %q, a json tag encoding/json "+
				"does not accept (it decodes the field by its Go name); give it a plain json name", fieldPath(t, ss[name][0]), name))
		}
		for _, name := range slices.Sorted(maps.Keys(js)) {
			walk(js[name].typ)
		}
	}
	walk(t)
	return out
}

// inTaggedEmbed reports whether the field of t at index is promoted from
// an embedded struct with a json tag, which encoding/json does not flatten.
func inTaggedEmbed(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.Anonymous && validJSONTag(name) {
			return true
		}
		t = f.Type
	}
	return false
}

// fieldPath names the field of t at index: "Args.Page.Limit".
func fieldPath(t reflect.Type, index []int) string {
	parts := []string{t.Name()}
	for _, i := range index {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f := t.Field(i)
		parts = append(parts, f.Name)
		t = f.Type
	}
	return strings.Join(parts, ".")
}

// keyGuard refuses argument keys that are not a field's json name but
// match one without regard to case, which encoding/json would decode into
// that field after the schema let them through as unknown keys. It follows
// the arguments down to every struct whose schema lets unknown keys
// through; a nil *keyGuard checks nothing.
type keyGuard struct {
	names  []string             // the struct's json names; nil when its schema refuses unknown keys
	fields map[string]*keyGuard // guards of field values, by json name
	elems  *keyGuard            // guard of every array element or map value
}

// newKeyGuard builds the guard for values of type t validated by s (nil
// when unknown), or nil when none is needed.
func newKeyGuard(t reflect.Type, s *jsonschema.Schema) *keyGuard {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if typeSchemas[t] != nil || decodesItself(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		var items *jsonschema.Schema
		if s != nil {
			items = s.Items
		}
		if e := newKeyGuard(t.Elem(), items); e != nil {
			return &keyGuard{elems: e}
		}
	case reflect.Map:
		var values *jsonschema.Schema
		if s != nil {
			values = s.AdditionalProperties
		}
		if e := newKeyGuard(t.Elem(), values); e != nil {
			return &keyGuard{elems: e}
		}
	case reflect.Struct:
		g := &keyGuard{}
		js := jsonFields(t)
		if !refusesUnknownKeys(s, js) {
			g.names = slices.Sorted(maps.Keys(js))
		}
		for name, f := range js {
			var sub *jsonschema.Schema
			if s != nil {
				sub = s.Properties[name]
			}
			if c := newKeyGuard(f.typ, sub); c != nil {
				if g.fields == nil {
					g.fields = map[string]*keyGuard{}
				}
				g.fields[name] = c
			}
		}
		if g.names != nil || g.fields != nil {
			return g
		}
	}
	return nil
}

// refusesUnknownKeys reports whether the object schema s surely refuses
// every key that is not one of the json names of fields: it says
// additionalProperties false, has no patternProperties and names no
// other property. (Composition cannot make additionalProperties accept
// more.)
func refusesUnknownKeys(s *jsonschema.Schema, fields map[string]jsonField) bool {
	if s == nil || s.AdditionalProperties == nil || len(s.PatternProperties) > 0 {
		return false
	}
	for name := range s.Properties {
		if _, ok := fields[name]; !ok {
			return false
		}
	}
	a := *s.AdditionalProperties
	not := a.Not
	a.Not = nil
	return not != nil && reflect.ValueOf(*not).IsZero() && reflect.ValueOf(a).IsZero()
}

// check lists the keys of v (decoded arguments, below path) that only
// match a field's json name without regard to case.
func (g *keyGuard) check(v any, path string, out []string) []string {
	if g == nil {
		return out
	}
	switch v := v.(type) {
	case map[string]any:
		if g.elems != nil {
			for _, k := range slices.Sorted(maps.Keys(v)) {
				out = g.elems.check(v[k], joinPath(path, k), out)
			}
			return out
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if g.names != nil && !slices.Contains(g.names, k) {
				for _, name := range g.names {
					if strings.EqualFold(k, name) {
						out = append(out, fmt.Sprintf("%s: unexpected key; it differs from the argument %q only in case, "+
							"and keys must match exactly: write %q", joinPath(path, k), name, name))
						break
					}
				}
			}
			if c := g.fields[k]; c != nil {
				out = c.check(v[k], joinPath(path, k), out)
			}
		}
	case []any:
		for i, e := range v {
			out = g.elems.check(e, joinPath(path, strconv.Itoa(i)), out)
		}
	}
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
