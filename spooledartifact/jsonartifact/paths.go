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

// maxPathFanout bounds how many times one path may multiply the size of
// the value it runs on. A gjson multipath "[a,b]" or object literal
// "{a,b}" builds one copy of each member's value, and one chained or
// nested in another multiplies again: "[@this,@this]|[@this,@this]|..."
// doubles the value per stage, and gjson builds the whole result before
// it can be capped or cancelled (24 stages, 335 bytes, allocated 1.2 GiB;
// 30 killed the process). Counting every member of every multipath and
// literal in the path, and multiplying, bounds a result at maxPathFanout
// times its input (plus the path's own text), while a multipath of up to
// 16 fields ("[name,id]", "{name,id}", "items.#.{id,name}") stays valid.
const maxPathFanout = 16

// toStrGrowth is the most one @tostr multiplies a value's size by: it
// escapes '<', '>' and '&' as \u00XX, so chained @tostr grow a value
// exponentially too.
const toStrGrowth = 6

// checkPath returns ErrInvalidPath for a path longer than maxPathBytes, or
// one using the @fromstr modifier: it hands a string's content, never
// checked by checkDepth, to gjson as JSON, which may recurse past any stack
// (`a|@fromstr|@valid` on a string of 8 Mi '[' killed the process), or
// one whose fan-out (see scanPath) is above maxPathFanout. Modifiers that
// grow a value beyond its size times its depth are refused as well: @group
// (every key repeated per element), @pretty with options (an indent or
// prefix of any length per line), and @dig or @pretty used more than once
// (each costs up to size times depth; chained, `@dig:a|@dig:a` turned
// 1.2 KB into 7.9 MB).
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
	shape := scanPath(p)
	switch {
	case shape.group:
		return ErrInvalidPath.With(nil, "jsonartifact: path %q uses the @group modifier, which is not supported: "+
			"it repeats every key once per array element (3 KB became 1 MB); pluck the arrays with items.#.field instead", p)
	case shape.prettyOptions:
		return ErrInvalidPath.With(nil, "jsonartifact: path %q gives @pretty options, which are not supported: "+
			"answers are already indented, and a long indent or prefix multiplies the answer by its length", p)
	case shape.deepCopies > 1:
		return ErrInvalidPath.With(nil, "jsonartifact: path %q uses @dig or @pretty more than once: each may cost the value's "+
			"size times its depth, and chained they multiply; use one per path", p)
	case shape.fanout > maxPathFanout:
		return ErrInvalidPath.With(nil, "jsonartifact: path %q may multiply the value it runs on more than %d times (the limit): "+
			"every [a,b] multipath or {a,b} object literal multiplies it by its member count, multipaths chained or nested in "+
			"one another multiply together, and @tostr by up to %d; select at most %d fields per path, or query them separately",
			p, maxPathFanout, toStrGrowth, maxPathFanout)
	case shape.recursive:
		return ErrInvalidPath.With(nil, "jsonartifact: path %q uses JSONPath recursive descent (..), which gjson paths do not have: "+
			"spell out every level, e.g. %q, or items.#.name for the name of every item", p, toGJSON(p))
	case shape.bracket:
		return ErrInvalidPath.With(nil, "jsonartifact: path %q looks like JSONPath; paths use gjson syntax, without brackets: try %q "+
			"(items.0.id for an index, items.#.id for every item, items.#(price>10)# to filter)", p, toGJSON(p))
	}
	return nil
}

// pathShape is what scanPath finds in a path.
type pathShape struct {
	recursive bool // JSONPath's ".." outside gjson queries and strings
	bracket   bool // JSONPath's "[...]" outside gjson queries and strings
	// fanout bounds how many times the path multiplies the size of the
	// value it runs on (see maxPathFanout), saturating at maxPathFanout+1.
	fanout int
	// Modifiers that start a component (not text inside a string, such
	// as an e-mail address a query compares with): @group, @pretty with
	// options, and how many @dig and @pretty.
	group, prettyOptions bool
	deepCopies           int
}

// scanPath lexes p once, skipping strings and escaped characters. The
// fan-out counts every "[...]" and "{...}", inside gjson queries too (a
// query's left-hand side is a path, run on every element), each as its
// member count (commas + 1), and every @tostr as toStrGrowth. A modifier
// is an '@' that starts a component (see modifierStart), outside strings.
// An unclosed
// one counts as if it closed at the end. This over-counts what gjson
// builds (nested members add rather than multiply, and JSON literals such
// as !{"a":1,"b":2} copy only the path's own text), never under-counts.
func scanPath(p string) pathShape {
	s := pathShape{fanout: 1}
	var open []int // member counts of the enclosing "[" and "{"
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
		case c == '[' || c == '{':
			open = append(open, 1)
			if c == '[' && parens == 0 && !isMultipath(p, i) {
				s.bracket = true
			}
		case c == ']' || c == '}':
			if n := len(open); n > 0 {
				s.fanout = grow(s.fanout, open[n-1])
				open = open[:n-1]
			}
		case c == ',':
			if n := len(open); n > 0 {
				open[n-1]++
			}
		case c == '@' && modifierStart(p, i):
			name := modifierName(p[i+1:])
			switch name {
			case "tostr":
				s.fanout = grow(s.fanout, toStrGrowth)
			case "group":
				s.group = true
			case "dig", "pretty":
				s.deepCopies++
				s.prettyOptions = s.prettyOptions || name == "pretty" && strings.HasPrefix(p[i+1+len(name):], ":")
			}
			i += len(name)
		case c == '(':
			parens++
		case c == ')':
			parens = max(parens-1, 0)
		case parens > 0:
		case c == '.' && i+1 < len(p) && p[i+1] == '.':
			s.recursive = true
		}
	}
	for _, n := range open {
		s.fanout = grow(s.fanout, n)
	}
	return s
}

// modifierStart reports whether the '@' at p[i] starts a path component:
// at the start, or after one of "|.[{,(:" and any blanks (gjson trims the
// path a query compares, so "#( @group)" runs @group). Counting an '@'
// after blanks elsewhere only refuses more.
func modifierStart(p string, i int) bool {
	j := i - 1
	for j >= 0 && p[j] <= ' ' {
		j--
	}
	return j < 0 || strings.IndexByte("|.[{,(:", p[j]) >= 0
}

// modifierName returns the run of letters a modifier's name is, at the
// start of p (what follows an '@').
func modifierName(p string) string {
	n := 0
	for n < len(p) && (p[n]|0x20 >= 'a' && p[n]|0x20 <= 'z') {
		n++
	}
	return p[:n]
}

// grow returns fanout*n, saturating at maxPathFanout+1.
func grow(fanout, n int) int {
	return min(fanout*min(n, maxPathFanout+1), maxPathFanout+1)
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
