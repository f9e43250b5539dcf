package jsonartifact

import (
	"bytes"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/ebbforge/adk/internal/quoted"
)

// MaxDepth is the deepest nesting of arrays and objects a json/json5
// document or a JSON Lines record may have ("[]" is 1 deep). gjson and the
// json5 library recurse once per level, and a Go stack overflow kills the
// process rather than panicking (16 MiB of '[' then ']', well within
// MaxDocumentBytes, did), so deeper input is refused with ErrTooDeep
// before either reads it. The limit is below encoding/json's 10000, as
// serde_json's 128 and Python's about 1000 are: some gjson modifiers
// (@dig, @flatten:{"deep":true}) and indenting an answer cost time or
// memory in proportion to size times depth, and real documents are rarely
// more than a few dozen deep.
const MaxDepth = 1000

// checkDepth returns ErrTooDeep when data nests deeper than MaxDepth; line
// is data's line number in JSON Lines, or -1 for a document.
func checkDepth(data []byte, line int) error {
	// Nesting needs a byte per level and an opening bracket per level:
	// most records are shorter, and two vectorised counts spare most
	// documents the byte-by-byte scan.
	if len(data) <= MaxDepth || bytes.Count(data, []byte{'['})+bytes.Count(data, []byte{'{'}) <= MaxDepth {
		return nil
	}
	if nestingDepth(data, MaxDepth) <= MaxDepth {
		return nil
	}
	what := "document"
	if line >= 0 {
		what = "line " + strconv.Itoa(line)
	}
	return ErrTooDeep.With(nil, "jsonartifact: %s nests arrays and objects more than %d deep (MaxDepth)", what, MaxDepth)
}

// validLine is gjson.ValidBytes behind checkDepth, for line number line of
// JSON Lines.
func validLine(data []byte, line int) (bool, error) {
	if err := checkDepth(data, line); err != nil {
		return false, err
	}
	return gjson.ValidBytes(data), nil
}

// nestingDepth returns how deep data nests arrays and objects, or limit+1
// as soon as it is deeper than limit. Without recursion, it lexes data as
// the json5 library does: strings in "..." or '...' with backslash escapes,
// comments from // to the first '\r' or '\n' and from /* to the first '/'
// after a further '*' (shapeScanner reads them the same way). Where JSON's
// lexing differs (a ' or / outside a string), JSON is already invalid and
// gjson has stopped; everywhere else they agree, so the result bounds the
// recursion of gjson and of the json5 library on data. A closing bracket
// at depth 0 is ignored.
func nestingDepth(data []byte, limit int) int {
	depth, deepest := 0, 0
	for i := 0; i < len(data); i++ {
		if !lexical[data[i]] { // most bytes: skip the switch
			continue
		}
		switch data[i] {
		case '[', '{':
			if depth++; depth > deepest {
				if deepest = depth; deepest > limit {
					return deepest
				}
			}
		case ']', '}':
			depth = max(depth-1, 0)
		case '"', '\'':
			i = quoted.End(data, i)
		case '/':
			if i+1 < len(data) {
				switch data[i+1] {
				case '/':
					end := bytes.IndexAny(data[i+2:], "\r\n")
					if end < 0 {
						return deepest
					}
					i += 2 + end
				case '*':
					star := bytes.IndexByte(data[i+2:], '*')
					if star < 0 {
						return deepest
					}
					slash := bytes.IndexByte(data[i+3+star:], '/')
					if slash < 0 {
						return deepest
					}
					i += 3 + star + slash
				}
			}
		}
	}
	return deepest
}

// lexical marks the bytes nestingDepth acts on.
var lexical = [256]bool{'[': true, '{': true, ']': true, '}': true, '"': true, '\'': true, '/': true}
