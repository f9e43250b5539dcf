package jsonartifact

import (
	"fmt"
	"strings"
)

// Models reach for JSONPath ("$.items[0].id", "$..name", "items[*]"), which
// gjson reads as literal keys that match nothing. checkPath refuses such a
// path with the gjson spelling instead of answering an empty result.

// maxPathBytes bounds a path: gjson reads nested queries and literals
// (!{...}) of a path recursively, a level per byte at most.
const maxPathBytes = 4 << 10

// checkPath returns ErrInvalidPath for a path longer than maxPathBytes, or
// one using the @fromstr modifier: it hands a string's content, never
// checked by checkDepth, to gjson as JSON, which may recurse past any stack
// (`a|@fromstr|@valid` on a string of 8 Mi '[' killed the process).
//
// It also returns ErrInvalidPath when p uses JSONPath brackets or
// recursive descent outside a gjson query or string, with the gjson
// equivalent in the message. gjson's own brackets, multipaths such as
// "[name,age]" (a component starting with '[' that lists paths with
// commas), are allowed, as are escaped characters ("a\[b").
func checkPath(p string) error {
	switch {
	case len(p) > maxPathBytes:
		return ErrInvalidPath.With(nil, "jsonartifact: path is %d bytes, above the %d-byte limit", len(p), maxPathBytes)
	case strings.Contains(p, "@fromstr"):
		return ErrInvalidPath.With(nil, "jsonartifact: path %q uses the @fromstr modifier, which is not supported: "+
			"it parses a string's content as JSON, unchecked; query the string as a value instead", p)
	}
	recursive, bracket := jsonPathSyntax(p)
	switch {
	case recursive:
		return ErrInvalidPath.With(nil, "jsonartifact: path %q uses JSONPath recursive descent (..), which gjson paths do not have: "+
			"spell out every level, e.g. %q, or items.#.name for the name of every item", p, toGJSON(p))
	case bracket:
		return ErrInvalidPath.With(nil, "jsonartifact: path %q looks like JSONPath; paths use gjson syntax, without brackets: try %q "+
			"(items.0.id for an index, items.#.id for every item, items.#(price>10)# to filter)", p, toGJSON(p))
	}
	return nil
}

// jsonPathSyntax reports JSONPath's ".." and "[...]" in p outside gjson
// queries "(...)" and strings.
func jsonPathSyntax(p string) (recursive, bracket bool) {
	parens, inString := 0, false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '(':
			parens++
		case c == ')':
			parens = max(parens-1, 0)
		case parens > 0:
		case c == '.' && i+1 < len(p) && p[i+1] == '.':
			recursive = true
		case c == '[':
			if !isMultipath(p, i) {
				bracket = true
			}
		}
	}
	return recursive, bracket
}

// isMultipath reports whether the '[' at p[i] opens a gjson multipath: it
// starts a component and lists paths separated by commas, none of them
// JSONPath's quoted names or filters.
func isMultipath(p string, i int) bool {
	if i > 0 && p[i-1] != '.' && p[i-1] != '|' {
		return false
	}
	inner, _, ok := bracketContent(p, i)
	if !ok || !strings.Contains(inner, ",") {
		return false
	}
	inner = strings.TrimSpace(inner)
	return !strings.HasPrefix(inner, "'") && !strings.HasPrefix(inner, "?")
}

// bracketContent returns what is between the '[' at p[i] and its ']' (not
// counting brackets inside quotes) and the index after the ']'.
func bracketContent(p string, i int) (inner string, next int, ok bool) {
	depth, quote := 0, byte(0)
	for j := i; j < len(p); j++ {
		c := p[j]
		switch {
		case c == '\\':
			j++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return p[i+1 : j], j + 1, true
			}
		}
	}
	return "", len(p), false
}

// toGJSON rewrites a JSONPath-looking path into gjson syntax, as a hint:
// "$" dropped, [N] → .N, [*] → .#, ['k'] → .k, [?(@.a>1)] → .#(a>1)#,
// and ".." → "." (gjson has no recursive descent).
func toGJSON(p string) string {
	p = strings.TrimPrefix(strings.TrimSpace(p), "$")
	var b strings.Builder
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i += 2
			continue
		case c == '.' && i+1 < len(p) && p[i+1] == '.':
			b.WriteByte('.')
			i += 2
			continue
		case c == '[':
			if inner, next, ok := bracketContent(p, i); ok {
				b.WriteByte('.')
				b.WriteString(bracketToGJSON(strings.TrimSpace(inner)))
				i = next
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	out := strings.TrimPrefix(b.String(), ".")
	if out == "" {
		return "@this"
	}
	return out
}

func bracketToGJSON(inner string) string {
	switch {
	case inner == "*":
		return "#"
	case len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0]:
		return escapeKey(inner[1 : len(inner)-1])
	case strings.HasPrefix(inner, "?(") && strings.HasSuffix(inner, ")"):
		expr := inner[2 : len(inner)-1]
		expr = strings.ReplaceAll(strings.ReplaceAll(expr, "@.", ""), "@", "")
		expr = strings.ReplaceAll(expr, "'", `"`)
		return fmt.Sprintf("#(%s)#", strings.TrimSpace(expr))
	}
	return inner
}

// escapeKey escapes the characters gjson gives a meaning in a key.
func escapeKey(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if strings.IndexByte(`.*?|#@!\`, k[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(k[i])
	}
	return b.String()
}
