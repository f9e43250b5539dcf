package canonical

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unicode/utf8"
)

// Node kinds on the tape.
const (
	kindNull uint8 = iota
	kindTrue
	kindFalse
	kindNumber
	kindString
	kindArray
	kindObject
	kindAux // follows a container node: start is the offset of its closer
)

// Scalar flags.
const (
	flagCopy    uint8 = 1 << iota // the raw text is already canonical (strings, numbers, literals)
	flagEscaped                   // string contains a backslash
	flagASCII                     // string body is pure ASCII
	flagInvalid                   // string contains invalid UTF-8
	flagClean                     // container text is already canonical
)

// node is one value of a parsed document. Scalars span data[start:end].
// Containers start at their opening bracket and store in end the tape index
// just past their subtree, so the next sibling of node i is i+1 for a scalar
// and tape[i].end for a container; tape[i+1] is an aux node holding the
// offset of the closing bracket, and children start at i+2.
type node struct {
	start, end uint32
	kind       uint8
	flags      uint8
}

func syntaxError(data []byte, i int, what string) error {
	if i >= len(data) {
		return fmt.Errorf("%w: unexpected end of input (%s)", ErrInvalidJSON, what)
	}
	return fmt.Errorf("%w: unexpected %q at offset %d (%s)", ErrInvalidJSON, data[i], i, what)
}

func skipSpace(data []byte, i int) int {
	if i < len(data) && data[i] > ' ' {
		return i // the common case, inlined
	}
	return skipSpaceSlow(data, i)
}

func skipSpaceSlow(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// frame is an open container while parsing.
type frame struct {
	prefix  uint64 // sortPrefix of the previous key of a clean object
	idx     uint32 // tape index of the container
	prevKey uint32 // tape index of the previous key of a clean object (0: none)
	obj     bool
	clean   bool // so far, the raw text is already canonical
}

// parse validates data as one JSON text (JSON.parse grammar: surrounding
// whitespace allowed, nothing else) and fills st.tape. maxDepth bounds the
// nesting of containers.
//
// A container's text is marked clean (flagClean) when it is already
// canonical: no whitespace, every scalar printed as JavaScript prints it,
// object keys escape-free and strictly increasing, every child clean. Such a
// container is emitted as one copy.
func (st *state) parse(data []byte, maxDepth int) error {
	if uint64(len(data)) >= math.MaxUint32 {
		return fmt.Errorf("%w: document larger than 4 GiB", ErrLimit)
	}
	tape := st.tape[:0]
	if est := len(data)/6 + 16; cap(tape) < est {
		tape = make([]node, 0, est) // one allocation rather than a doubling series
	}
	stack := st.stack[:0]
	defer func() { st.tape, st.stack = tape, stack[:0] }()
	i := skipSpace(data, 0)
	for {
		// A value starts at data[i].
		if i >= len(data) {
			return syntaxError(data, i, "expecting a value")
		}
		switch c := data[i]; c {
		case '{', '[':
			if len(stack) >= maxDepth {
				return fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
			}
			kind := kindArray
			closer := byte(']')
			if c == '{' {
				kind, closer = kindObject, '}'
			}
			stack = append(stack, frame{idx: uint32(len(tape)), obj: kind == kindObject, clean: true})
			// The container node is followed by an aux node that receives
			// the offset of the closing bracket.
			tape = append(tape, node{start: uint32(i), kind: kind}, node{kind: kindAux})
			j := skipSpace(data, i+1)
			if j != i+1 {
				stack[len(stack)-1].clean = false
			}
			i = j
			if i < len(data) && data[i] == closer {
				break // the loop below closes the empty container
			}
			if kind == kindObject {
				var err error
				if i, tape, err = parseKey(data, i, tape, &stack[len(stack)-1]); err != nil {
					return err
				}
			}
			continue
		case '"':
			end, flags, err := scanString(data, i)
			if err != nil {
				return err
			}
			tape = append(tape, node{start: uint32(i), end: uint32(end), kind: kindString, flags: flags})
			if flags&flagCopy == 0 && len(stack) > 0 {
				stack[len(stack)-1].clean = false
			}
			i = end
		case 't', 'f', 'n':
			lit, kind := "null", kindNull
			if c == 't' {
				lit, kind = "true", kindTrue
			} else if c == 'f' {
				lit, kind = "false", kindFalse
			}
			if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
				return syntaxError(data, i, "expecting a value")
			}
			tape = append(tape, node{start: uint32(i), end: uint32(i + len(lit)), kind: kind, flags: flagCopy})
			i += len(lit)
		default:
			if c != '-' && (c < '0' || c > '9') {
				return syntaxError(data, i, "expecting a value")
			}
			end, copyEnd, ok := scanNumber(data, i)
			if !ok {
				return syntaxError(data, end, "malformed number")
			}
			if copyEnd == 0 && len(stack) > 0 && stack[len(stack)-1].clean {
				// Long or exponent literals may still be exactly what
				// JavaScript prints (1e+21, 0.30000000000000004): checking
				// now keeps the container clean.
				var buf [32]byte
				if string(appendNumberText(buf[:0], data[i:end])) == string(data[i:end]) {
					copyEnd = end
				}
			}
			if copyEnd > 0 {
				tape = append(tape, node{start: uint32(i), end: uint32(copyEnd), kind: kindNumber, flags: flagCopy})
			} else {
				tape = append(tape, node{start: uint32(i), end: uint32(end), kind: kindNumber})
			}
			if copyEnd != end && len(stack) > 0 {
				stack[len(stack)-1].clean = false
			}
			i = end
		}
		// After a value: a separator, a closer, or the end of the document.
		for {
			if len(stack) == 0 {
				if i = skipSpace(data, i); i != len(data) {
					return syntaxError(data, i, "expecting end of input")
				}
				return nil
			}
			top := &stack[len(stack)-1]
			if j := skipSpace(data, i); j != i {
				top.clean = false
				i = j
			}
			if i >= len(data) {
				return syntaxError(data, i, "unterminated container")
			}
			if data[i] == ',' {
				j := skipSpace(data, i+1)
				if j != i+1 {
					top.clean = false
				}
				i = j
				if top.obj {
					var err error
					if i, tape, err = parseKey(data, i, tape, top); err != nil {
						return err
					}
				}
				break
			}
			if (top.obj && data[i] != '}') || (!top.obj && data[i] != ']') {
				return syntaxError(data, i, "expecting ',' or a closing bracket")
			}
			f := *top
			stack = stack[:len(stack)-1]
			tape[f.idx].end = uint32(len(tape))
			tape[f.idx+1].start = uint32(i)
			if f.clean {
				tape[f.idx].flags = flagClean
			} else if len(stack) > 0 {
				stack[len(stack)-1].clean = false
			}
			i++
		}
	}
}

// parseKey parses `"key" :` at data[i] for the object f and returns the
// index of the value.
func parseKey(data []byte, i int, tape []node, f *frame) (int, []node, error) {
	if i >= len(data) || data[i] != '"' {
		return i, tape, syntaxError(data, i, "expecting a string key")
	}
	end, flags, err := scanString(data, i)
	if err != nil {
		return i, tape, err
	}
	k := uint32(len(tape))
	tape = append(tape, node{start: uint32(i), end: uint32(end), kind: kindString, flags: flags})
	if f.clean {
		if flags&(flagCopy|flagEscaped|flagInvalid) != flagCopy {
			f.clean = false
		} else {
			p := sortPrefix(data, uint32(i+1), uint32(end-1), flags&flagASCII != 0)
			switch {
			case f.prevKey == 0 || p > f.prefix:
			case p < f.prefix:
				f.clean = false
			default:
				f.clean = keyBefore(data, tape[f.prevKey], tape[k])
			}
			f.prefix, f.prevKey = p, k
		}
	}
	j := skipSpace(data, end)
	if j >= len(data) || data[j] != ':' {
		return j, tape, syntaxError(data, j, "expecting ':'")
	}
	i = skipSpace(data, j+1)
	if j != end || i != j+1 {
		f.clean = false
	}
	return i, tape, nil
}

// keyBefore reports whether escape-free key a sorts strictly before key b.
func keyBefore(data []byte, a, b node) bool {
	ka, kb := data[a.start+1:a.end-1], data[b.start+1:b.end-1]
	if a.flags&b.flags&flagASCII != 0 {
		return string(ka) < string(kb)
	}
	return compareKeys(ka, kb) < 0
}

// scanString validates the string literal starting at data[i] == '"' and
// returns the index just past its closing quote and its flags.
func scanString(data []byte, i int) (int, uint8, error) {
	start := i
	i++
	flags := flagCopy | flagASCII
	n := len(data)
	for {
		for i+8 <= n {
			m := specialMask(binary.LittleEndian.Uint64(data[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= n {
			return i, 0, fmt.Errorf("%w: unterminated string starting at offset %d", ErrInvalidJSON, start)
		}
		c := data[i]
		switch {
		case c == '"':
			return i + 1, flags, nil
		case c == '\\':
			flags |= flagEscaped
			if i+1 >= n {
				return i, 0, syntaxError(data, i+1, "unterminated escape")
			}
			switch data[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case '/':
				flags &^= flagCopy
				i += 2
			case 'u':
				if i+6 > n {
					return i, 0, syntaxError(data, n, "short \\u escape")
				}
				canon := data[i+2] == '0' && data[i+3] == '0' && (data[i+4] == '0' || data[i+4] == '1')
				for j := i + 2; j < i+6; j++ {
					h := data[j]
					switch {
					case h >= '0' && h <= '9', h >= 'a' && h <= 'f':
					case h >= 'A' && h <= 'F':
						canon = false
					default:
						return i, 0, syntaxError(data, j, "bad \\u escape")
					}
				}
				if canon {
					switch data[i+5] {
					case '8', '9', 'a', 'c', 'd': // \b \t \n \f \r have short forms
						canon = data[i+4] != '0'
					}
				}
				if !canon {
					flags &^= flagCopy
				}
				i += 6
			default:
				return i, 0, syntaxError(data, i+1, "bad escape")
			}
		case c < 0x20:
			return i, 0, syntaxError(data, i, "control character in string")
		case c >= utf8.RuneSelf:
			flags &^= flagASCII
			// Common well-formed two- and three-byte sequences inline.
			if c >= 0xc2 && c <= 0xdf && i+1 < n && data[i+1]&0xc0 == 0x80 {
				i += 2
				continue
			}
			if c >= 0xe1 && c <= 0xef && c != 0xed && i+2 < n && data[i+1]&0xc0 == 0x80 && data[i+2]&0xc0 == 0x80 {
				i += 3
				continue
			}
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				flags = (flags | flagInvalid) &^ flagCopy
			}
			i += size
		default:
			i++ // a false positive of the SWAR mask
		}
	}
}
