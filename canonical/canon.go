package canonical

import (
	"bytes"
	"fmt"
	"math"
	"slices"
)

// frame is an open container while canonicalising.
type frame struct {
	start     uint32 // output offset of the opening brace (objects)
	base      uint32 // index in st.members of the object's first member
	arenaBase uint32 // length of st.arena when the object opened
	obj       bool
	sorted    bool // members so far strictly increasing: nothing to reorder
}

// canon validates data as one JSON text (JSON.parse grammar: surrounding
// whitespace allowed, nothing else) and appends its canonical text to
// st.buf, in a single pass. maxDepth bounds the nesting of containers.
//
// Output is produced lazily: data[from:i] is a run of input that is already
// canonical and still to be copied, so runs of canonical text (whole clean
// containers, most strings and numbers) cost one copy each. Only what
// differs (whitespace, escapes, numbers JavaScript prints otherwise) breaks
// a run. An object whose keys arrive out of order is reordered when it
// closes: its members already sit in the output, and are moved as spans.
//
// With stream set (and st.w not nil) finished output goes to st.w as soon as
// no open object may still reorder it; otherwise all of it stays in st.buf.
// On error st.buf holds partial output: callers discard it.
func (st *state) canon(data []byte, maxDepth int, stream bool) error {
	if uint64(len(data)) >= math.MaxUint32 {
		return fmt.Errorf("%w: document larger than 4 GiB", ErrLimit)
	}
	stream = stream && st.w != nil
	savedData := st.data
	st.data = data // compareMembers reads raw keys from it
	defer func() { st.data = savedData }()

	buf := st.buf
	stack := st.stack[:0]
	members := st.members
	mbase := len(members)
	objects := 0 // open objects: output inside one may still move
	n := len(data)
	i := skipSpace(data, 0)
	from := i // data[from:i] is pending canonical output
	expectKey := false
	for {
		if expectKey {
			// An object member starts at data[i]: `"key" :`.
			expectKey = false
			if i >= n || data[i] != '"' {
				return syntaxError(data, i, "expecting a string key")
			}
			end, flags, err := scanString(data, i)
			if err != nil {
				return err
			}
			m := member{start: uint32(len(buf) + i - from), ks: uint32(i + 1), ke: uint32(end - 1)}
			switch {
			case flags&(flagEscaped|flagInvalid) != 0:
				ks := len(st.arena)
				st.arena = appendDecodedKey(st.arena, data[i+1:end-1])
				m.ks, m.ke, m.flags = uint32(ks), uint32(len(st.arena)), memberArena
				if bytes.IndexByte(st.arena[ks:], 0xed) >= 0 {
					m.flags |= memberSurrogate // maybe; the full comparison decides
				}
				m.prefix = sortPrefix(st.arena, m.ks, m.ke, false)
			case flags&flagASCII != 0:
				m.flags = memberASCII
				m.prefix = sortPrefix(data, m.ks, m.ke, true)
			default:
				m.prefix = sortPrefix(data, m.ks, m.ke, false)
			}
			if flags&flagCopy == 0 {
				buf = append(buf, data[from:i]...)
				buf = appendCanonicalString(buf, data[i+1:end-1])
				from = end
			}
			top := &stack[len(stack)-1]
			if top.sorted && len(members) > int(top.base) {
				p := &members[len(members)-1]
				if p.prefix >= m.prefix || (p.flags|m.flags)&memberSurrogate != 0 {
					top.sorted = st.compareMembers(p, &m) < 0
				}
			}
			members = append(members, m)
			i = end
			if i < n && data[i] <= ' ' {
				j := skipSpaceSlow(data, i)
				buf = append(buf, data[from:i]...)
				from, i = j, j
			}
			if i >= n || data[i] != ':' {
				return syntaxError(data, i, "expecting ':'")
			}
			i++
			if i < n && data[i] <= ' ' {
				j := skipSpaceSlow(data, i)
				buf = append(buf, data[from:i]...)
				from, i = j, j
			}
		}

		// A value starts at data[i].
		if i >= n {
			return syntaxError(data, i, "expecting a value")
		}
		switch c := data[i]; c {
		case '"':
			end, flags, err := scanString(data, i)
			if err != nil {
				return err
			}
			if flags&flagCopy == 0 {
				buf = append(buf, data[from:i]...)
				buf = appendCanonicalString(buf, data[i+1:end-1])
				from = end
			}
			i = end
		case '{', '[':
			if len(stack) >= maxDepth {
				return fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
			}
			obj := c == '{'
			stack = append(stack, frame{
				start: uint32(len(buf) + i - from), base: uint32(len(members)),
				arenaBase: uint32(len(st.arena)), obj: obj, sorted: true,
			})
			i++
			if i < n && data[i] <= ' ' {
				j := skipSpaceSlow(data, i)
				buf = append(buf, data[from:i]...)
				from, i = j, j
			}
			if obj {
				objects++
				if i >= n || data[i] != '}' {
					expectKey = true
					continue
				}
			} else if i >= n || data[i] != ']' {
				continue
			}
			// An empty container: the loop below closes it.
		case 't', 'f', 'n':
			lit := "null"
			if c == 't' {
				lit = "true"
			} else if c == 'f' {
				lit = "false"
			}
			if n-i < len(lit) || string(data[i:i+len(lit)]) != lit {
				return syntaxError(data, i, "expecting a value")
			}
			i += len(lit)
		default:
			if c != '-' && (c < '0' || c > '9') {
				return syntaxError(data, i, "expecting a value")
			}
			end, copyEnd, ok := scanNumber(data, i)
			if !ok {
				return syntaxError(data, end, "malformed number")
			}
			if copyEnd != end {
				buf = append(buf, data[from:i]...)
				if copyEnd > 0 {
					buf = append(buf, data[i:copyEnd]...)
				} else {
					buf = appendNumberText(buf, data[i:end])
				}
				from = end
			}
			i = end
		}

		// After a value: a separator, a closer, or the end of the document.
		for {
			if i < n && data[i] <= ' ' {
				j := skipSpaceSlow(data, i)
				buf = append(buf, data[from:i]...)
				from, i = j, j
			}
			if len(stack) == 0 {
				if i != n {
					return syntaxError(data, i, "expecting end of input")
				}
				if stream && len(buf)+i-from >= flushSize {
					st.write(buf)
					st.write(data[from:i])
					buf = buf[:0]
				} else {
					buf = append(buf, data[from:i]...)
				}
				st.buf, st.stack, st.members = buf, stack, members[:mbase]
				return nil
			}
			if i >= n {
				return syntaxError(data, i, "unterminated container")
			}
			top := &stack[len(stack)-1]
			c := data[i]
			if c == ',' {
				i++
				if i < n && data[i] <= ' ' {
					j := skipSpaceSlow(data, i)
					buf = append(buf, data[from:i]...)
					from, i = j, j
				}
				if top.obj {
					expectKey = true
				} else if stream && objects == 0 && len(buf)+i-from >= flushSize {
					st.write(buf)
					st.write(data[from:i])
					buf, from = buf[:0], i
				}
				break
			}
			if top.obj {
				if c != '}' {
					return syntaxError(data, i, "expecting ',' or '}'")
				}
				if !top.sorted {
					buf = append(buf, data[from:i]...)
					from = i // the brace stays pending
					direct := stream && len(stack) == 1
					buf = st.reorder(buf, int(top.start), members[top.base:], direct)
				}
				members = members[:top.base]
				st.arena = st.arena[:top.arenaBase]
				objects--
			} else if c != ']' {
				return syntaxError(data, i, "expecting ',' or ']'")
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

// write hands p to the writer, remembering its first error.
func (st *state) write(p []byte) {
	if st.werr == nil && len(p) > 0 {
		_, st.werr = st.w.Write(p)
	}
}

// reorder puts the members of the object at buf[start] (its opening brace;
// its members, in document order, run to the end of buf) in key order,
// dropping all but the last of duplicate keys. With direct, the output up
// to and including the object goes to the writer instead, and the returned
// buffer is empty.
func (st *state) reorder(buf []byte, start int, ms []member, direct bool) []byte {
	// Member k spans from its key to the comma before member k+1.
	for k := range ms {
		if k+1 < len(ms) {
			ms[k].end = ms[k+1].start - 1
		} else {
			ms[k].end = uint32(len(buf))
		}
	}
	if len(ms) <= insertionLimit {
		for k := 1; k < len(ms); k++ {
			m := ms[k]
			j := k
			for j > 0 && st.less(&m, &ms[j-1]) {
				ms[j] = ms[j-1]
				j--
			}
			ms[j] = m
		}
	} else {
		slices.SortFunc(ms, func(a, b member) int {
			if st.less(&a, &b) {
				return -1
			}
			return 1 // members are never equal: ties go by position
		})
	}
	for k := 1; k < len(ms); k++ {
		if ms[k-1].prefix == ms[k].prefix && st.compareMembers(&ms[k-1], &ms[k]) == 0 {
			ms[k-1].flags |= memberShadowed
		}
	}
	if direct {
		// One write per member: its comma is taken along from buf when
		// it has one there.
		st.write(buf[:start+1])
		last := len(ms) - 1 // the last member written is never shadowed
		st.comma[0] = ','
		for k := range ms {
			m := &ms[k]
			switch {
			case m.flags&memberShadowed != 0:
			case k == last:
				st.write(buf[m.start:m.end])
			case int(m.end) < len(buf):
				st.write(buf[m.start : m.end+1])
			default:
				st.write(buf[m.start:m.end])
				st.write(st.comma[:])
			}
		}
		return buf[:0]
	}
	tmp := append(st.tmp[:0], buf[start+1:]...)
	out := buf[:start+1]
	base := uint32(start + 1)
	first := true
	for k := range ms {
		m := &ms[k]
		if m.flags&memberShadowed != 0 {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, tmp[m.start-base:m.end-base]...)
	}
	st.tmp = tmp[:0]
	return out
}
