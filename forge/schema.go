package forge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	compiled "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tidwall/gjson"
)

// validator holds a tool's schema, resolved once: at construction, or on
// first use for a LazySchema tool.
type validator struct {
	// root applies defaults below the root's own properties; check decides
	// validity and reports failures (see validity.go).
	root  *jsonschema.Resolved
	check *compiled.Schema
	flat  *flatObject // decides validity without check when it can; nil for other shapes
	// names maps the root's property names to themselves: decoded
	// arguments share them as keys rather than allocating their own.
	names       map[string]string
	hasDefaults bool
	// exactNumbers validates number literals float64 would round as
	// written: a typed tool's fields receive them exactly.
	exactNumbers bool
	// defaults are the root's optional properties with a default, in the
	// form a typed tool patches its decoded struct with; topDefaultsOnly
	// says no default lives deeper, so patching with them is exact.
	defaults        []rootDefault
	topDefaultsOnly bool
}

// newValidator resolves raw (a schema document) or derived and returns the
// validator and the schema document to publish.
func newValidator(raw json.RawMessage, derived *jsonschema.Schema) (*validator, json.RawMessage, error) {
	s := derived
	if s == nil {
		s = new(jsonschema.Schema)
		if err := json.Unmarshal(raw, s); err != nil {
			return nil, nil, fmt.Errorf("not a JSON Schema document: %v", err)
		}
	}
	doc, err := schemaDoc(raw, derived)
	if err != nil {
		return nil, nil, err
	}
	v, err := resolveSchema(s, doc)
	if err != nil {
		return nil, nil, err
	}
	v.exactNumbers = derived != nil
	return v, doc, nil
}

// closedRoot returns doc with its root object closed to unknown argument
// keys when the root says nothing about them: "additionalProperties":false
// goes first in the object, or "unevaluatedProperties":false when the root
// composes subschemas (allOf, $ref, if, ...), whose properties
// additionalProperties would not see. doc comes back unchanged when its
// root already has additionalProperties, patternProperties or
// unevaluatedProperties, or is not a JSON object. Invalid JSON may come
// back either way; later checks report it.
//
// Drafts before 2019-09 ($schema draft-04, -06, -07) have no
// unevaluatedProperties (they ignore it), so a root of theirs that composes
// subschemas cannot be closed for the author: doc comes back unchanged with
// an error asking them to say it.
func closedRoot(doc []byte) ([]byte, error) {
	// A root whose first key is additionalProperties already says, valid
	// or not: skip the parse (generated documents, such as the artifact
	// tools', start so).
	if bytes.HasPrefix(doc, []byte(`{"additionalProperties":`)) {
		return doc, nil
	}
	k, ok := rootKeywords(doc)
	if !ok || k.speaks {
		return doc, nil
	}
	kw := `"additionalProperties":false`
	switch {
	case k.composedBy == "":
	case k.preDraft2019 != "":
		return doc, fmt.Errorf("the root composes subschemas (%s) and does not say whether other argument keys are allowed; "+
			"%s has no unevaluatedProperties to close it, and additionalProperties:false would refuse the properties the "+
			"subschemas define: state \"additionalProperties\" at the root, or use draft 2020-12", k.composedBy, k.preDraft2019)
	default:
		kw = `"unevaluatedProperties":false`
	}
	i := bytes.IndexByte(doc, '{') + 1
	if rest := bytes.TrimLeft(doc[i:], " \t\r\n"); len(rest) > 0 && rest[0] != '}' {
		kw += ","
	}
	return slices.Concat(doc[:i], []byte(kw), doc[i:]), nil
}

// rootKeys is what rootKeywords finds in a root object.
type rootKeys struct {
	speaks     bool   // a key that settles unknown keys
	composedBy string // the first key composing subschemas in place, or ""
	// preDraft2019 names the root's $schema when it is draft-04, -06 or
	// -07, which have no unevaluatedProperties.
	preDraft2019 string
}

// rootKeywords reports the keys of doc's root object that decide how it
// is closed; ok is false when doc is not one JSON object. gjson walks the
// root's keys without decoding the values.
func rootKeywords(doc []byte) (k rootKeys, ok bool) {
	if !gjson.ValidBytes(doc) {
		return k, false
	}
	root := gjson.ParseBytes(doc)
	if !root.IsObject() {
		return k, false
	}
	var schema string
	var composed []string // in document order; which count depends on the draft
	root.ForEach(func(key, val gjson.Result) bool {
		switch key.Str {
		case "additionalProperties", "patternProperties", "unevaluatedProperties":
			k.speaks = true
		case "$schema":
			schema = val.Str
		case "allOf", "anyOf", "oneOf", "$ref", "if", "then", "else", "$dynamicRef", "dependentSchemas":
			composed = append(composed, key.Str)
		case "dependencies":
			// Before 2019-09 a dependency that is a schema (not a list of
			// names) applies to the root object in place.
			val.ForEach(func(_, dep gjson.Result) bool {
				if !dep.IsArray() {
					composed = append(composed, key.Str)
					return false
				}
				return true
			})
		}
		return true
	})
	k.preDraft2019 = preDraft2019(schema)
	for _, c := range composed {
		switch c {
		case "$dynamicRef", "dependentSchemas":
			if k.preDraft2019 != "" {
				continue // not keywords before 2019-09
			}
		case "dependencies":
			if k.preDraft2019 == "" {
				continue // no longer a keyword
			}
		}
		k.composedBy = c
		break
	}
	return k, true
}

// preDraft2019 returns the draft named by the $schema URL u ("draft-07")
// when it is one before 2019-09, as santhosh-tekuri/jsonschema reads it,
// or "".
func preDraft2019(u string) string {
	u = strings.TrimSuffix(u, "#")
	u, ok := strings.CutPrefix(u, "http://")
	if !ok {
		u, _ = strings.CutPrefix(u, "https://")
	}
	switch u {
	case "json-schema.org/draft-04/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-07/schema":
		return strings.TrimSuffix(strings.TrimPrefix(u, "json-schema.org/"), "/schema")
	}
	return ""
}

// schemaDoc is the schema document to publish: raw compacted, or derived
// encoded.
func schemaDoc(raw json.RawMessage, derived *jsonschema.Schema) (json.RawMessage, error) {
	if derived != nil {
		return json.Marshal(derived)
	}
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("not a JSON Schema document: %v", err)
	}
	return buf.Bytes(), nil
}

// resolveDoc is the validator of a LazySchema tool: derived, or else its
// published document parsed.
func resolveDoc(doc json.RawMessage, derived *jsonschema.Schema) (*validator, error) {
	s := derived
	if s == nil {
		s = new(jsonschema.Schema)
		if err := json.Unmarshal(doc, s); err != nil {
			return nil, fmt.Errorf("not a JSON Schema document: %v", err)
		}
	}
	v, err := resolveSchema(s, doc)
	if err != nil {
		return nil, err
	}
	v.exactNumbers = derived != nil
	return v, nil
}

// resolveSchema checks that s describes an object and resolves it; doc is
// its published document.
func resolveSchema(s *jsonschema.Schema, doc json.RawMessage) (*validator, error) {
	if !(s.Type == "object" || len(s.Types) == 1 && s.Types[0] == "object") {
		got := s.Type
		if got == "" && len(s.Types) > 0 {
			got = strings.Join(s.Types, ",")
		}
		return nil, fmt.Errorf("root type must be \"object\", got %q", got)
	}
	// Compiled first: it refuses reference cycles, on which the library's
	// check of defaults would recurse without end.
	check, err := compileSchema(doc)
	if err != nil {
		return nil, err
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, err
	}
	v := &validator{root: r, check: check, flat: newFlatObject(doc), names: make(map[string]string, len(s.Properties))}
	for name := range s.Properties {
		v.names[name] = name
	}
	// Asked of the parsed schema, not of doc's bytes: a key written
	// "def\u0061ult" is the default keyword too.
	for _, p := range s.Properties {
		if hasDefaultsInProperties(p) {
			v.hasDefaults = true
			break
		}
	}
	if v.hasDefaults {
		v.defaults, v.topDefaultsOnly = rootDefaults(s)
	}
	return v, nil
}

// rootDefault is a root property's default: its name, and "name":value as
// JSON, the value re-encoded the way json.Marshal renders the decoded default.
type rootDefault struct {
	name   string
	member []byte // `"name":value`, for a typed tool's patch
	value  any    // the default decoded as ApplyDefaults decodes it; copied per call
}

// rootDefaults lists the root's optional properties with a default, the
// ones the library's ApplyDefaults fills in; top is false when a default
// also lives deeper (in a property's own properties), a property has no
// schema, or there are more than an applied mask can name. With top, filling
// in the listed defaults is all ApplyDefaults would do (validate does it
// itself; TestRootDefaultsAsLibrary holds the two together).
func rootDefaults(s *jsonschema.Schema) (list []rootDefault, top bool) {
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	top = true
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		sub := s.Properties[name]
		if sub == nil {
			top = false // left to the library, whatever it makes of it
			continue
		}
		if required[name] {
			continue
		}
		for _, child := range sub.Properties {
			if hasDefaultsInProperties(child) {
				top = false
			}
		}
		if sub.Default == nil {
			continue
		}
		var val any
		if err := json.Unmarshal(sub.Default, &val); err != nil {
			return nil, false
		}
		k, err1 := json.Marshal(name)
		b, err2 := json.Marshal(val)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		list = append(list, rootDefault{name: name, member: slices.Concat(k, []byte(":"), b), value: val})
	}
	return list, top && len(list) <= 64
}

// hasDefaultsInProperties mirrors the library's walk for ApplyDefaults.
func hasDefaultsInProperties(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if s.Default != nil {
		return true
	}
	for _, c := range s.Properties {
		if hasDefaultsInProperties(c) {
			return true
		}
	}
	return false
}

// applied tells a typed tool what ApplyDefaults did to the arguments: mask
// has bit i set when v.defaults[i] was filled in; all means defaults may
// have changed more than that (nested), so only the whole object is exact.
type applied struct {
	mask uint64
	all  bool
}

// validate decodes raw into an object, applies defaults and validates it.
func (v *validator) validate(tool string, raw json.RawMessage) (args map[string]any, added applied, err error) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		args = map[string]any{}
	} else {
		if b[0] != '{' {
			if !json.Valid(b) {
				return nil, applied{}, argsError(tool, []string{"arguments are not valid JSON"})
			}
			return nil, applied{}, argsError(tool, []string{"arguments must be a JSON object, got " + jsonKind(b[0])})
		}
		m, err := decodeObject(b, v.names)
		if err != nil {
			return nil, applied{}, argsError(tool, []string{"arguments are not valid JSON: " + decodeProblem(err)})
		}
		args = m
	}
	if v.hasDefaults {
		if v.topDefaultsOnly {
			// What ApplyDefaults would do here, without its per-call
			// reflection and decoding of every default: fill in the
			// absent ones, each call its own copy.
			for i, d := range v.defaults {
				if _, ok := args[d.name]; !ok {
					added.mask |= 1 << i
					args[d.name] = cloneJSON(d.value)
				}
			}
		} else {
			added.all = true
			m := args // a local: only tools with nested defaults pay for the escaping &m
			if err := applyDefaults(v.root, &m); err != nil {
				return nil, applied{}, argsError(tool, []string{err.Error()})
			}
			args = m
		}
	}
	checked := args
	if v.exactNumbers && mayRoundNumber(b) {
		// float64 may have rounded a literal that the typed handler
		// receives exactly (an int64, a json.Number): validate the
		// literals as written, which the compiled validator compares
		// exactly, and quotes in its failures.
		exact, err := v.exactArgs(b, args, added)
		if err != nil {
			return nil, applied{}, argsError(tool, []string{"arguments are not valid JSON: " + decodeProblem(err)})
		}
		checked = exact
	}
	if v.flat != nil && v.flat.valid(checked) {
		return args, added, nil
	}
	if err := v.check.Validate(checked); err != nil {
		return nil, applied{}, argsError(tool, v.diagnose(checked, err))
	}
	return args, added, nil
}

// mayRoundNumber reports whether the JSON b may hold a number literal with
// more than 15 significant digits, the most a float64 keeps for every
// literal (the validator compares a float64 by its shortest spelling, which
// is the literal itself up to there). It looks for 16 digits in a row, a
// point allowed among them, or for an exponent of three digits or more,
// which may overflow or underflow a float64; strings included: a cheap test
// that errs towards yes.
func mayRoundNumber(b []byte) bool {
	run := 0
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if run++; run >= 16 {
				return true
			}
		case c == '.':
		case c == 'e' || c == 'E':
			// A literal with an exponent of three digits or more may
			// overflow or underflow a float64 (-1e-400 becomes -0): parse
			// it to see.
			j := i + 1
			if j < len(b) && (b[j] == '-' || b[j] == '+') {
				j++
			}
			if k := j + 2; run > 0 && k < len(b) && isDigit(b[j]) && isDigit(b[j+1]) && isDigit(b[k]) && outOfFloatRange(b, i) {
				return true
			}
			run = 0
		default:
			run = 0
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// outOfFloatRange reports whether the number literal whose exponent marker
// is b[e] overflows a float64 or underflows it into the subnormals or zero,
// where the literal's value is lost.
func outOfFloatRange(b []byte, e int) bool {
	start := e
	for start > 0 && (isDigit(b[start-1]) || b[start-1] == '.' || b[start-1] == '-') {
		start--
	}
	end := e + 1
	for end < len(b) && (isDigit(b[end]) || b[end] == '-' || b[end] == '+') {
		end++
	}
	f, err := strconv.ParseFloat(string(b[start:end]), 64)
	if err != nil {
		return true // out of range (or not a number at all: err towards yes)
	}
	if f == 0 {
		return bytes.ContainsAny(b[start:e], "123456789")
	}
	return math.Abs(f) < 0x1p-1022
}

// exactArgs decodes the JSON object b with every number kept as its
// literal (json.Number) and fills in the defaults validate added to args.
func (v *validator) exactArgs(b []byte, args map[string]any, added applied) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	if added.all {
		if err := applyDefaults(v.root, &m); err != nil {
			return nil, err
		}
		return m, nil
	}
	for i, dflt := range v.defaults {
		if added.mask&(1<<i) != 0 {
			m[dflt.name] = args[dflt.name] // validation only reads it
		}
	}
	return m, nil
}

func applyDefaults(r *jsonschema.Resolved, args *map[string]any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("cannot apply defaults: %v", p)
		}
	}()
	return r.ApplyDefaults(args)
}

func jsonKind(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}

// decodeProblem renders an encoding/json error for the model, naming the
// field when the decoder knows it.
func decodeProblem(err error) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		return fmt.Sprintf("%s: cannot use %s as %s", te.Field, te.Value, te.Type)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// argsError is ErrInvalidToolArgs naming each bad field.
func argsError(tool string, list []string) error {
	return ErrInvalidToolArgs.With(&ValidationError{Problems: list}, "forge: invalid arguments for tool %q", tool)
}

// defaultsPatch renders the defaults named by mask as one JSON object.
func (v *validator) defaultsPatch(mask uint64) []byte {
	b := []byte{'{'}
	for i, d := range v.defaults {
		if mask&(1<<i) == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, d.member...)
	}
	return append(b, '}')
}

// decodeSource is the JSON a typed tool decodes its struct from: raw ({}
// when empty), or, when defaults may sit below the root, raw re-decoded with
// every number kept as its literal (json.Number), defaulted and re-encoded,
// so no integer passes through a float64.
func (v *validator) decodeSource(raw json.RawMessage, added applied) ([]byte, error) {
	b := bytes.TrimSpace(raw)
	if !added.all {
		if len(b) == 0 {
			return emptyObject, nil
		}
		return b, nil
	}
	m := map[string]any{}
	if len(b) > 0 {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %s", decodeProblem(err))
		}
	}
	if err := applyDefaults(v.root, &m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// integralNumberError reports whether err is encoding/json refusing a number
// written with a fraction or an exponent, which may be an integer in
// disguise (1e2, 10.0).
func integralNumberError(err error) bool {
	te, ok := errors.AsType[*json.UnmarshalTypeError](err)
	return ok && strings.HasPrefix(te.Value, "number ") && strings.ContainsAny(te.Value, ".eE")
}

// plainIntegers re-encodes the JSON object src with every integer-valued
// number spelled in plain digits (1e2 → 100, 1.50e1 → 15), exactly; other
// numbers keep their literal. changed is false when nothing was respelled.
func plainIntegers(src []byte) (out []byte, changed bool) {
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			if p, ok := plainInteger(string(v)); ok {
				changed = true
				return json.Number(p)
			}
		case map[string]any:
			for k, e := range v {
				v[k] = walk(e)
			}
		case []any:
			for i, e := range v {
				v[i] = walk(e)
			}
		}
		return v
	}
	v = walk(v)
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// plainInteger spells a JSON number literal with a fraction or exponent
// whose value is an integer in plain digits, by moving the decimal point
// (no floating point, so exact). ok is false when lit is already plain, is
// not an integer, or needs more than 20 digits (more than any Go integer
// holds: the decoder's own error then stands).
func plainInteger(lit string) (string, bool) {
	s, neg := strings.CutPrefix(lit, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n < -1000 || n > 1000 {
			return "", false
		}
		mant, exp = s[:i], n
	} else if !strings.Contains(s, ".") {
		return "", false
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	exp -= len(frac)
	if exp < 0 {
		cut := max(len(digits)+exp, 0)
		if strings.Trim(digits[cut:], "0") != "" {
			return "", false // a non-zero digit after the point
		}
		digits, exp = digits[:cut], 0
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	if len(digits)+exp > 20 {
		return "", false
	}
	digits += strings.Repeat("0", exp)
	if neg {
		digits = "-" + digits
	}
	return digits, true
}
