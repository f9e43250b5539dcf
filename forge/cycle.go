package forge

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	compiled "github.com/santhosh-tekuri/jsonschema/v6"
)

// A schema whose subschemas apply one another to the same value ($ref,
// allOf, not, if, ...: the in-place applicators) without ever descending
// into it never terminates: santhosh-tekuri/jsonschema reports a ref cycle
// at validation time, but github.com/google/jsonschema-go recurses until the
// process dies of a stack overflow (in Resolve's default checks, in
// Validate). Such schemas are refused when they are compiled, before
// jsonschema-go sees them.

// schemaPointers appends the JSON pointer of every subschema under v (a
// decoded schema at ptr) that has keywords of its own, following the
// schema-holding keywords of every draft. $defs and definitions are
// included: the compiler only reaches the entries that are referenced, but
// jsonschema-go checks the defaults of all of them.
func schemaPointers(v any, ptr string, out []string) []string {
	obj, ok := v.(map[string]any)
	if !ok {
		return out // a boolean schema applies nothing
	}
	out = append(out, ptr)
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		sub := obj[k]
		p := ptr + "/" + escapePointer(k)
		switch k {
		case "not", "if", "then", "else", "additionalProperties", "additionalItems", "propertyNames",
			"unevaluatedProperties", "unevaluatedItems", "contains", "contentSchema":
			out = schemaPointers(sub, p, out)
		case "items":
			if list, ok := sub.([]any); ok {
				for i, e := range list {
					out = schemaPointers(e, fmt.Sprintf("%s/%d", p, i), out)
				}
			} else {
				out = schemaPointers(sub, p, out)
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			list, _ := sub.([]any)
			for i, e := range list {
				out = schemaPointers(e, fmt.Sprintf("%s/%d", p, i), out)
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			m, _ := sub.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(m)) {
				out = schemaPointers(m[name], p+"/"+escapePointer(name), out) // dependencies' arrays are skipped
			}
		}
	}
	return out
}

func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// compileAll compiles every subschema of the document doc (added to c at
// schemaURL) and returns them, the root first. A location the compiler
// refuses (a keyword the document's draft does not have, say) is left out:
// it is never evaluated.
func compileAll(c *compiled.Compiler, root *compiled.Schema, doc any) []*compiled.Schema {
	out := []*compiled.Schema{root}
	for _, ptr := range schemaPointers(doc, "", nil) {
		if ptr == "" {
			continue // the root
		}
		if s, err := c.Compile(schemaURL + "#" + (&url.URL{Fragment: ptr}).EscapedFragment()); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// inPlaceCycle returns a chain of subschemas, reachable from roots, each
// applying the next to the same value and the last applying the first, or
// nil when there is none.
func inPlaceCycle(roots []*compiled.Schema) []*compiled.Schema {
	// Every schema reachable through any keyword: dynamic references may
	// land on any of them that carries the anchor.
	all := map[*compiled.Schema]bool{}
	var order []*compiled.Schema
	var visit func(s *compiled.Schema)
	visit = func(s *compiled.Schema) {
		if s == nil || all[s] {
			return
		}
		all[s] = true
		order = append(order, s)
		for _, c := range inPlace(s, nil, nil) {
			visit(c)
		}
		for _, c := range descending(s) {
			visit(c)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	dynamic := map[string][]*compiled.Schema{}
	var recursive []*compiled.Schema
	for _, s := range order {
		if s.DynamicAnchor != "" {
			dynamic[s.DynamicAnchor] = append(dynamic[s.DynamicAnchor], s)
		}
		if s.RecursiveAnchor {
			recursive = append(recursive, s)
		}
	}

	const (
		unseen = iota
		onPath
		done
	)
	state := map[*compiled.Schema]int{}
	var path []*compiled.Schema
	var dfs func(s *compiled.Schema) []*compiled.Schema
	dfs = func(s *compiled.Schema) []*compiled.Schema {
		state[s] = onPath
		path = append(path, s)
		for _, next := range inPlace(s, dynamic, recursive) {
			switch state[next] {
			case onPath:
				i := slices.Index(path, next)
				return append(slices.Clone(path[i:]), next)
			case unseen:
				if c := dfs(next); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[s] = done
		return nil
	}
	for _, s := range order {
		if state[s] == unseen {
			if c := dfs(s); c != nil {
				return c
			}
		}
	}
	return nil
}

// inPlace lists the subschemas s applies to the value it is itself applied
// to. A dynamic reference may resolve to any schema carrying its anchor
// (dynamic, recursive), so it leads to all of them.
func inPlace(s *compiled.Schema, dynamic map[string][]*compiled.Schema, recursive []*compiled.Schema) []*compiled.Schema {
	var out []*compiled.Schema
	add := func(list ...*compiled.Schema) { out = appendSchemas(out, list...) }
	add(s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else)
	if s.RecursiveRef != nil && s.RecursiveRef.RecursiveAnchor {
		add(recursive...)
	}
	if d := s.DynamicRef; d != nil {
		add(d.Ref)
		if d.Anchor != "" && d.Ref != nil && d.Ref.DynamicAnchor == d.Anchor {
			add(dynamic[d.Anchor]...)
		}
	}
	add(s.AllOf...)
	add(s.AnyOf...)
	add(s.OneOf...)
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		add(s.DependentSchemas[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if c, ok := s.Dependencies[k].(*compiled.Schema); ok {
			add(c)
		}
	}
	return out
}

// descending lists the subschemas s applies to values inside the one it is
// applied to.
func descending(s *compiled.Schema) []*compiled.Schema {
	var out []*compiled.Schema
	add := func(list ...*compiled.Schema) { out = appendSchemas(out, list...) }
	add(s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema)
	add(s.PrefixItems...)
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		add(s.Properties[k])
	}
	pats := slices.SortedFunc(maps.Keys(s.PatternProperties), func(a, b compiled.Regexp) int {
		return strings.Compare(a.String(), b.String())
	})
	for _, k := range pats {
		add(s.PatternProperties[k])
	}
	for _, v := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch v := v.(type) {
		case *compiled.Schema:
			add(v)
		case []*compiled.Schema:
			add(v...)
		}
	}
	return out
}

// cycleError words a cycle found by inPlaceCycle.
func cycleError(cycle []*compiled.Schema) error {
	locs := make([]string, len(cycle))
	for i, s := range cycle {
		loc := strings.TrimPrefix(s.Location, schemaURL)
		if loc == "" || loc == "#" {
			loc = "#"
		}
		locs[i] = loc
	}
	return fmt.Errorf("reference cycle %s: these subschemas apply one another to the same value forever "+
		"($ref, allOf, anyOf, oneOf, not, if/then/else and dependentSchemas never descend into it)",
		strings.Join(locs, " -> "))
}

// appendSchemas appends the non-nil schemas of list to out.
func appendSchemas(out []*compiled.Schema, list ...*compiled.Schema) []*compiled.Schema {
	for _, c := range list {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}
