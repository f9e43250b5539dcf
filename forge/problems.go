package forge

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	compiled "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/ebbforge/adk/internal/safetext"
)

// problems collects every fault in a raw value so one error can name them all.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// err returns base carrying a ValidationError with the problems, or nil.
func (p problems) err(base *Error, subject string) error {
	if len(p) == 0 {
		return nil
	}
	return base.With(&ValidationError{Problems: append([]string(nil), p...)}, "forge: invalid %s", safetext.Prefix(subject, MaxToolNameBytes))
}

// ValidationError lists every problem found in a raw value or in tool
// arguments, one entry per field at fault ("field: what is wrong"; for tool
// arguments at most 50, the last then counting the rest). It is the
// cause of ErrInvalidInitialToolValue, ErrInvalidInitialToolCallValue and
// ErrInvalidToolArgs errors; read it with errors.As.
type ValidationError struct {
	Problems []string
}

// Error joins the problems with "; ".
func (e *ValidationError) Error() string { return strings.Join(e.Problems, "; ") }

// maxProblems bounds the problems one refusal lists, so arguments with
// thousands of bad array items do not flood the model's context.
const maxProblems = 50

// maxUnexpectedKeys bounds the unknown keys one problem lists.
const maxUnexpectedKeys = 20

// capProblems keeps at most maxProblems problems, the last one saying how
// many more there were.
func capProblems(out []string) []string {
	if len(out) > maxProblems {
		n := len(out) - maxProblems + 1
		out = append(out[:maxProblems-1], fmt.Sprintf("and %d more problems", n))
	}
	return out
}

// diagnose names every fault of args, which the compiled schema refused
// with checkErr. That validator reports every failure, each at the instance
// location it concerns, so the fields come straight from its error tree:
// only the wording is ours, and it never names schema-internal places
// ($defs, allOf branches, additionalProperties) instead of the argument.
func (v *validator) diagnose(args map[string]any, checkErr error) []string {
	ve, ok := errors.AsType[*compiled.ValidationError](checkErr)
	if !ok {
		return []string{checkErr.Error()}
	}
	x := &explainer{check: v.check}
	out := x.render(args, x.walk(ve, args))
	if len(out) == 0 {
		out = []string{"the arguments do not match the schema"}
	}
	return out
}

// fault is one failure the compiled validator reported, located in root
// (the arguments, or a property name for propertyNames).
type fault struct {
	at     []string // instance location in root
	reason string
	// typ is set when the fault is a type mismatch, so the alternatives of
	// an anyOf can be merged into one "want A or B".
	typ *kind.Type
	// unexpected are keys of the object at `at` that no schema allows;
	// those of one object are listed together.
	unexpected []string
	// uneval is the location of the unevaluatedProperties schema that
	// refused the unexpected keys.
	uneval string
}

// explainer turns the compiled validator's error tree into problems.
type explainer struct {
	check *compiled.Schema
}

// walk flattens the error tree under e into faults, descending through the
// nodes that only group others ($ref, allOf, if/then/else).
func (x *explainer) walk(e *compiled.ValidationError, root any) []fault {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		var out []fault
		for _, c := range e.Causes {
			out = append(out, x.walk(c, root)...)
		}
		return out
	case *kind.AnyOf:
		return x.alternatives(e, root, "anyOf")
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			return x.alternatives(e, root, "oneOf")
		}
		return []fault{{at: e.InstanceLocation, reason: "oneOf: matches more than one alternative, want exactly one"}}
	case *kind.AdditionalProperties:
		return []fault{{at: e.InstanceLocation, unexpected: k.Properties}}
	case *kind.FalseSchema:
		// unevaluatedProperties: false reports each unknown key as a
		// false schema at the key; say it as additionalProperties does.
		n := len(e.InstanceLocation)
		if n == 0 {
			return []fault{{reason: "the schema allows no value here"}}
		}
		parent, last := e.InstanceLocation[:n-1], e.InstanceLocation[n-1:]
		switch valueAt(root, parent).(type) {
		case map[string]any:
			if strings.HasSuffix(e.SchemaURL, "/unevaluatedProperties") {
				return []fault{{at: parent, unexpected: last, uneval: e.SchemaURL}}
			}
			if strings.HasSuffix(e.SchemaURL, "/additionalProperties") {
				return []fault{{at: parent, unexpected: last}}
			}
		case []any:
			for _, kw := range []string{"/items", "/additionalItems", "/unevaluatedItems"} {
				if strings.HasSuffix(e.SchemaURL, kw) {
					return []fault{{at: e.InstanceLocation, reason: "unexpected item: the array has more items than the schema allows"}}
				}
			}
		}
		return []fault{{at: e.InstanceLocation, reason: "not allowed: the schema allows no value here"}}
	case *kind.PropertyNames:
		// The causes are located in the name, not in the arguments.
		var why []string
		for _, c := range e.Causes {
			why = append(why, x.render(k.Property, x.walk(c, k.Property))...)
		}
		r := "propertyNames: " + display(k.Property) + " is not an allowed property name"
		if len(why) > 0 {
			r += ": " + strings.Join(why, ", ")
		}
		return []fault{{at: e.InstanceLocation, reason: r}}
	case *kind.Type:
		return []fault{{at: e.InstanceLocation, reason: typeReason(valueAt(root, e.InstanceLocation), k.Want), typ: k}}
	}
	return []fault{{at: e.InstanceLocation, reason: reason(e.ErrorKind, valueAt(root, e.InstanceLocation))}}
}

// alternatives explains a failed anyOf or oneOf (none matched). An
// alternative refused only for the value's type is left out when another
// one accepts the type: the model meant that one, and its reasons are the
// useful ones. When every alternative is a type mismatch they merge into
// one "want A or B".
func (x *explainer) alternatives(e *compiled.ValidationError, root any, keyword string) []fault {
	var alts [][]fault
	typeOnly := 0
	for _, c := range e.Causes {
		f := x.walk(c, root)
		if len(f) == 1 && f[0].typ != nil && slices.Equal(f[0].at, e.InstanceLocation) {
			typeOnly++
		}
		alts = append(alts, f)
	}
	if typeOnly == len(alts) && typeOnly > 0 {
		var want []string
		for _, a := range alts {
			for _, w := range a[0].typ.Want {
				if !slices.Contains(want, w) {
					want = append(want, w)
				}
			}
		}
		k := &kind.Type{Got: alts[0][0].typ.Got, Want: want}
		return []fault{{at: e.InstanceLocation, reason: typeReason(valueAt(root, e.InstanceLocation), want), typ: k}}
	}
	if typeOnly > 0 {
		alts = slices.DeleteFunc(alts, func(f []fault) bool {
			return len(f) == 1 && f[0].typ != nil && slices.Equal(f[0].at, e.InstanceLocation)
		})
	}
	if len(alts) == 1 {
		return alts[0]
	}
	parts := make([]string, 0, len(alts))
	for _, a := range alts {
		parts = append(parts, "("+strings.Join(x.render(root, a), ", ")+")")
	}
	return []fault{{at: e.InstanceLocation, reason: keyword + ": matches none of the alternatives: " + strings.Join(parts, " or ")}}
}

// render words faults as "field: reason", the fields in document order with
// an object's own problems after its members', unknown keys of one object
// merged into one sorted list, duplicates dropped, at most maxProblems.
func (x *explainer) render(root any, faults []fault) []string {
	faults = x.trueUnexpected(faults)
	merged := faults[:0:0]
	at := map[string]int{} // object location → index in merged of its unexpected keys
	for _, f := range faults {
		if f.unexpected == nil {
			merged = append(merged, f)
			continue
		}
		key := strings.Join(f.at, "\x00")
		if i, ok := at[key]; ok {
			merged[i].unexpected = append(merged[i].unexpected, f.unexpected...)
			continue
		}
		at[key] = len(merged)
		merged = append(merged, fault{at: f.at, unexpected: slices.Clone(f.unexpected)})
	}
	for i, f := range merged {
		if f.unexpected != nil {
			slices.Sort(f.unexpected)
			keys := slices.Compact(f.unexpected)
			more := ""
			if len(keys) > maxUnexpectedKeys {
				more = fmt.Sprintf(" and %d more", len(keys)-maxUnexpectedKeys)
				keys = keys[:maxUnexpectedKeys]
			}
			for j, k := range keys {
				keys[j] = display(k)
			}
			merged[i].reason = fmt.Sprintf("unexpected additional properties [%s]%s", strings.Join(keys, " "), more)
		}
	}
	slices.SortStableFunc(merged, func(a, b fault) int {
		if c := comparePaths(a.at, b.at); c != 0 {
			return c
		}
		return strings.Compare(a.reason, b.reason)
	})
	out := make([]string, 0, len(merged))
	for _, f := range merged {
		p := f.reason
		if name := fieldName(root, f.at); name != "" {
			p = name + ": " + p
		}
		if len(out) > 0 && out[len(out)-1] == p {
			continue
		}
		out = append(out, p)
	}
	return capProblems(out)
}

// trueUnexpected drops from the keys unevaluatedProperties refused those
// that a subschema of the same object defines. A failing allOf branch or
// $ref target evaluates nothing, so its properties come back refused too;
// the failure that made the branch fail is reported on its own, and
// calling its keys unknown would send the model the wrong way. Without
// another fault to report, the keys stay.
func (x *explainer) trueUnexpected(faults []fault) []fault {
	other := slices.ContainsFunc(faults, func(f fault) bool { return f.unexpected == nil })
	if !other {
		return faults
	}
	out := faults[:0:0]
	for _, f := range faults {
		if f.uneval != "" {
			if owner := findOwner(x.check, f.uneval, map[*compiled.Schema]bool{}); owner != nil {
				keys := slices.DeleteFunc(slices.Clone(f.unexpected), func(k string) bool {
					return defines(owner, k, map[*compiled.Schema]bool{})
				})
				if len(keys) == 0 {
					continue
				}
				f.unexpected = keys
			}
		}
		out = append(out, f)
	}
	return out
}

// findOwner finds the schema under s whose unevaluatedProperties schema is
// at url.
func findOwner(s *compiled.Schema, url string, seen map[*compiled.Schema]bool) *compiled.Schema {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	if s.UnevaluatedProperties != nil && s.UnevaluatedProperties.Location == url {
		return s
	}
	for c := range subschemas(s, false) {
		if o := findOwner(c, url, seen); o != nil {
			return o
		}
	}
	return nil
}

// defines reports whether s or a subschema applied in place to the same
// object (allOf, anyOf, oneOf, $ref, if/then/else, ...) evaluates key.
func defines(s *compiled.Schema, key string, seen map[*compiled.Schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	if _, ok := s.Properties[key]; ok {
		return true
	}
	for re := range s.PatternProperties {
		if re.MatchString(key) {
			return true
		}
	}
	if s.AdditionalProperties != nil {
		return true
	}
	for c := range subschemas(s, true) {
		if defines(c, key, seen) {
			return true
		}
	}
	return false
}

// subschemas yields the subschemas of s: only those applied in place to
// the same value when inPlace, else all of them.
func subschemas(s *compiled.Schema, inPlace bool) iter.Seq[*compiled.Schema] {
	return func(yield func(*compiled.Schema) bool) {
		list := []*compiled.Schema{s.Ref, s.RecursiveRef, s.If, s.Then, s.Else}
		if s.DynamicRef != nil {
			list = append(list, s.DynamicRef.Ref)
		}
		list = slices.Concat(list, s.AllOf, s.AnyOf, s.OneOf, slices.Collect(maps.Values(s.DependentSchemas)))
		for _, d := range s.Dependencies {
			if d, ok := d.(*compiled.Schema); ok {
				list = append(list, d)
			}
		}
		if !inPlace {
			list = append(list, s.Not, s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020,
				s.UnevaluatedItems, s.ContentSchema)
			list = slices.Concat(list, slices.Collect(maps.Values(s.Properties)),
				slices.Collect(maps.Values(s.PatternProperties)), s.PrefixItems)
			for _, a := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
				switch a := a.(type) {
				case *compiled.Schema:
					list = append(list, a)
				case []*compiled.Schema:
					list = append(list, a...)
				}
			}
		}
		for _, c := range list {
			if c != nil && !yield(c) {
				return
			}
		}
	}
}

// comparePaths orders instance locations as they read in the document,
// array indexes numerically, a location after everything below it.
func comparePaths(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			continue
		}
		if isIndex(a[i]) && isIndex(b[i]) && len(a[i]) != len(b[i]) {
			return cmp.Compare(len(a[i]), len(b[i]))
		}
		return strings.Compare(a[i], b[i])
	}
	return cmp.Compare(len(b), len(a))
}

func isIndex(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// fieldName renders an instance location in root as the model would write
// the path: o.items, tags[0], ["a.b"].c (keys that are not plain names are
// quoted). The root itself is "".
func fieldName(root any, at []string) string {
	var b strings.Builder
	cur := root
	for _, seg := range at {
		if arr, ok := cur.([]any); ok {
			b.WriteString("[" + seg + "]")
			cur = nil
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(arr) {
				cur = arr[i]
			}
			continue
		}
		if plainKey(seg) {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg)
		} else {
			b.WriteString("[" + display(seg) + "]")
		}
		m, _ := cur.(map[string]any)
		cur = m[seg]
	}
	return b.String()
}

// plainKey reports whether a key reads unambiguously in a dotted path.
func plainKey(k string) bool {
	return k != "" && utf8.ValidString(k) && strings.IndexFunc(k, func(r rune) bool {
		return strings.ContainsRune(`.[]":\`, r) || unicode.IsSpace(r) || unicode.IsControl(r)
	}) < 0
}

// valueAt is the value at an instance location in root, nil when absent.
func valueAt(root any, at []string) any {
	cur := root
	for _, seg := range at {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// maxShown bounds how much of a value a problem quotes.
const maxShown = 64

// display renders a value as the model wrote it, in JSON, shortened when
// long (a string keeps its closing quote).
func display(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if len(s) <= maxShown {
		return s
	}
	i := maxShown - 1
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if _, ok := v.(string); ok {
		// Cut before an escape sequence rather than inside it.
		if j := strings.LastIndexByte(s[:i], '\\'); j > i-6 {
			for j > 1 && s[j-1] == '\\' {
				j--
			}
			i = j
		}
		return s[:i] + `…"`
	}
	return s[:i] + "…"
}

// jsonType is the JSON Schema type of a decoded value, "integer" for a
// number without a fraction.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if v == math.Trunc(v) && !math.IsInf(v, 0) {
			return "integer"
		}
		return "number"
	case json.Number: // exact arguments (see validator.validate)
		if r, ok := new(big.Rat).SetString(v.String()); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func typeReason(v any, want []string) string {
	var q []string
	for _, w := range want {
		if w != "null" {
			q = append(q, strconv.Quote(w))
		}
	}
	if slices.Contains(want, "null") { // "string or null" reads as optional
		q = append(q, `"null"`)
	}
	return fmt.Sprintf("type: %s has type %q, want %s", display(v), jsonType(v), strings.Join(q, " or "))
}

// reason words one failed keyword about the value v.
func reason(k compiled.ErrorKind, v any) string {
	switch k := k.(type) {
	case *kind.Enum:
		return "enum: " + display(v) + " is not one of " + displayList(k.Want)
	case *kind.Const:
		return "const: " + display(v) + " is not " + display(k.Want)
	case *kind.Format:
		return fmt.Sprintf("format: %s is not a valid %s: %v", display(v), k.Want, k.Err)
	case *kind.Required:
		return fmt.Sprintf("required: missing properties: %q", k.Missing)
	case *kind.DependentRequired:
		return fmt.Sprintf("dependentRequired: missing properties: %q (required when %q is present)", k.Missing, k.Prop)
	case *kind.Dependency:
		return fmt.Sprintf("dependencies: missing properties: %q (required when %q is present)", k.Missing, k.Prop)
	case *kind.MinProperties:
		return fmt.Sprintf("minProperties: the object has %s, fewer than %d", count(k.Got, "property", "properties"), k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("maxProperties: the object has %s, more than %d", count(k.Got, "property", "properties"), k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("minItems: the array has %s, fewer than %d", count(k.Got, "item", "items"), k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("maxItems: the array has %s, more than %d", count(k.Got, "item", "items"), k.Want)
	case *kind.AdditionalItems:
		return fmt.Sprintf("additionalItems: the array has %s more than the schema allows", count(k.Count, "item", "items"))
	case *kind.UniqueItems:
		return fmt.Sprintf("uniqueItems: items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.Contains:
		return "contains: no item matches the schema under contains"
	case *kind.MinContains:
		return fmt.Sprintf("minContains: %s the schema under contains, fewer than %d", count(len(k.Got), "item matches", "items match"), k.Want)
	case *kind.MaxContains:
		return fmt.Sprintf("maxContains: %s the schema under contains, more than %d", count(len(k.Got), "item matches", "items match"), k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("minLength: %s has %s, fewer than %d", display(v), count(k.Got, "character", "characters"), k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("maxLength: %s has %s, more than %d", display(v), count(k.Got, "character", "characters"), k.Want)
	case *kind.Pattern:
		return fmt.Sprintf("pattern: %s does not match %s", display(v), display(k.Want))
	case *kind.ContentEncoding:
		return fmt.Sprintf("contentEncoding: the value is not %s-encoded", k.Want)
	case *kind.ContentMediaType:
		return fmt.Sprintf("contentMediaType: the value is not %s", k.Want)
	case *kind.ContentSchema:
		return "contentSchema: the decoded content does not match the schema under contentSchema"
	case *kind.Minimum:
		return fmt.Sprintf("minimum: %s is less than %s", display(v), ratString(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("maximum: %s is greater than %s", display(v), ratString(k.Want))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("exclusiveMinimum: %s is not greater than %s", display(v), ratString(k.Want))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("exclusiveMaximum: %s is not less than %s", display(v), ratString(k.Want))
	case *kind.MultipleOf:
		return fmt.Sprintf("multipleOf: %s is not a multiple of %s", display(v), ratString(k.Want))
	case *kind.Not:
		return "not: the value matches the schema under not"
	case *kind.RefCycle:
		return "the schema's references form a cycle"
	}
	if kw := k.KeywordPath(); len(kw) > 0 {
		return strings.Join(kw, ".") + ": the value does not match"
	}
	return "the value does not match the schema"
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func displayList(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = display(v)
	}
	return strings.Join(s, ", ")
}

// ratString renders a schema bound as it would be written in the schema.
func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// decodeProblems explains why src, arguments the schema accepted, does not
// decode into a typed tool's argument type. encoding/json names the field
// of a type mismatch, but not that of an error from a field's own
// UnmarshalJSON or UnmarshalText (time.Time's, say): then members are
// decoded alone into fresh values from newArg, narrowing to the ones at
// fault. Failure path only; a budget bounds the extra decoding.
func decodeProblems(src []byte, newArg func() any, err error) []string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		return []string{decodeProblem(err)}
	}
	budget := 256
	fails := func(doc []byte) error {
		budget--
		return json.Unmarshal(doc, newArg())
	}
	var out []string
	// probe reports the deepest members under raw (at name, rebuilt into a
	// whole document by wrap) that fail alone; err is raw's own failure.
	var probe func(name string, wrap func([]byte) []byte, raw []byte, err error)
	probe = func(name string, wrap func([]byte) []byte, raw []byte, err error) {
		type member struct {
			name string
			wrap func([]byte) []byte
			raw  []byte
			err  error
		}
		var failing []member
		var obj map[string]json.RawMessage
		var arr []json.RawMessage
		switch {
		case budget <= 0:
		case json.Unmarshal(raw, &obj) == nil && fails(wrap([]byte("{}"))) == nil:
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				kq, _ := json.Marshal(k)
				w := func(b []byte) []byte { return wrap(slices.Concat([]byte("{"), kq, []byte(":"), b, []byte("}"))) }
				if budget <= 0 {
					break
				}
				if e := fails(w(obj[k])); e != nil {
					n := name
					if plainKey(k) {
						if n != "" {
							n += "."
						}
						n += k
					} else {
						n += "[" + display(k) + "]"
					}
					failing = append(failing, member{n, w, obj[k], e})
				}
			}
		case json.Unmarshal(raw, &arr) == nil && fails(wrap([]byte("[]"))) == nil:
			for i, v := range arr {
				w := func(b []byte) []byte { return wrap(slices.Concat([]byte("["), b, []byte("]"))) }
				if budget <= 0 {
					break
				}
				if e := fails(w(v)); e != nil {
					failing = append(failing, member{name + "[" + strconv.Itoa(i) + "]", w, v, e})
				}
			}
		}
		if len(failing) == 0 {
			p := decodeReason(err)
			if name != "" {
				p = name + ": " + p
			}
			out = append(out, p)
			return
		}
		for _, m := range failing {
			probe(m.name, m.wrap, m.raw, m.err)
		}
	}
	probe("", func(b []byte) []byte { return b }, src, err)
	return capProblems(out)
}

// decodeReason words a decoding error of one value, whose field the caller
// names.
func decodeReason(err error) string {
	if pe, ok := errors.AsType[*time.ParseError](err); ok {
		if pe.Layout == time.RFC3339 {
			return fmt.Sprintf("%s is not a date-time in RFC 3339 format, such as \"2006-01-02T15:04:05Z\"", display(pe.Value))
		}
		return fmt.Sprintf("%s is not a time in the layout %q", display(pe.Value), pe.Layout)
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return fmt.Sprintf("cannot use %s as %s", te.Value, te.Type)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
