package canonical

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
)

// frame is an open container while canonicalising.
type frame struct {
	start     uint32 // output offset of the opening brace (objects)
	base      uint32 // index in st.members of the object's first member
	arenaBase uint32 // length of st.arena when the object opened
	obj       bool
	sorted    bool  // members so far strictly increasing: nothing to reorder
	guessed   uint8 // members whose key was guessed (see learnKeys); wraps only past any shape's size
}

// canon validates data as one JSON text (JSON.parse grammar: surrounding
// whitespace allowed, nothing else) and appends its canonical text to
// st.buf. maxDepth bounds the nesting of containers. Large documents are
// canonicalised by two goroutines when a second processor is available (see
// split.go); the result is the same either way.
//
// With stream set (and st.w not nil) finished output goes to st.w as soon as
// no open object may still reorder it; otherwise all of it stays in st.buf.
// On error st.buf holds partial output: callers discard it.
func (st *state) canon(data []byte, maxDepth int, stream bool) error {
	_, err := st.canonAt(data, maxDepth, stream, splitAuto)
	return err
}

// canonAt is canon with the split guess given: an offset where a worker
// starts, -1 for none, or splitAuto to decide by size and processors. It
// reports whether the worker's output was used, and ends the worker before
// returning.
func (st *state) canonAt(data []byte, maxDepth int, stream bool, at int) (adopted bool, err error) {
	if uint64(len(data)) >= math.MaxUint32 {
		return false, fmt.Errorf("%w: document larger than 4 GiB", ErrLimit)
	}
	if at == splitAuto {
		at = -1
		if len(data) >= splitMinSize && runtime.GOMAXPROCS(0) > 1 {
			share := splitShare
			if stream && st.w != nil {
				share = hashShare
			}
			at = splitGuess(data, len(data)*share/100, guessWindow)
		}
	}
	sp := startSplit(data, at, st.test)
	if sp != nil {
		defer sp.finish()
	}
	st.spec = st.spec[:0]
	if st.test != nil {
		st.test.chained, st.test.specStarted, st.test.specMissed = false, false, false
	}
	_, err = st.run(data, 0, maxDepth, stream && st.w != nil, passDocument, sp)
	st.hole = nil // the worker's buffer goes back to the pool
	return sp != nil && sp.adopted, err
}

// run is the single pass behind canon, from data[i0].
//
// Output is produced lazily: data[from:i] is a run of input that is already
// canonical and still to be copied, so runs of canonical text (whole clean
// containers, most strings and numbers) cost one copy each. Only what
// differs (whitespace, escapes, numbers JavaScript prints otherwise) breaks
// a run. An object whose keys arrive out of order is reordered when it
// closes: its members already sit in the output, and are moved as spans.
//
// In the worker and probe modes data[i0] is taken to start an element of an
// array whose opening bracket was not seen: run canonicalises the elements
// and the closing bracket, and climbs into enclosing containers that look
// like arrays. It returns where it stopped: just past the last closing
// bracket, at the next chunk's element start (a chunk, or the worker when
// the main pass took over from there), or at the closing brace of an
// enclosing object (a probe, which reads on into it: see probeTail). How
// many arrays it closed (its output is their remaining text) and the
// deepest nesting reached, the first array being 1, are left in st.pass. In document mode run reads one
// whole document and, when sp is not nil, takes up sp's worker output when
// it reaches sp.at as an array element.
func (st *state) run(data []byte, i0, maxDepth int, stream bool, mode passMode, sp *split) (end int, err error) {
	// What only the split needs lives in st.pass, out of the loop's
	// registers.
	st.pass = pass{mode: mode, checkAt: math.MaxInt, depthMark: maxDepth, res: st.pass.res, chunk: st.pass.chunk}
	savedData := st.data
	st.data = data // compareMembers reads raw keys from it
	// Restored here rather than deferred: a defer keeps values alive in
	// the loop's frame.
	end, err = st.tokens(data, i0, maxDepth, stream, sp)
	st.data = savedData
	return end, err
}

// tokens is run's loop; run's doc says what it does.
func (st *state) tokens(data []byte, i0, maxDepth int, stream bool, sp *split) (end int, err error) {
	ps := &st.pass
	mode := ps.mode

	buf := st.buf
	if i := skipSpace(data, i0); (!stream || (i < len(data) && data[i] == '{')) && cap(buf)-len(buf) < len(data)-i0 {
		// All the output will wait in buf (nothing streams out of an open
		// root object): one allocation of about its final size rather
		// than a doubling series.
		size := len(data) - i0
		if mode == passChunk && ps.chunk+1 < len(sp.bounds) {
			size = sp.bounds[ps.chunk+1] - i0 // a chunk usually ends at the next bound
		}
		grown := make([]byte, len(buf), len(buf)+size+size/16+64)
		copy(grown, buf)
		buf = grown
	}
	// The open containers, the members and the open-object count stay in
	// the state, not in locals. Go saves no registers across calls, so a
	// loop variable live across any call in the loop is stored again on
	// every token; reslicing a field in place stores only its length (no
	// write barrier). Output (buf) is appended to, which stores its
	// pointer too, so it stays local.
	st.stack = st.stack[:0]
	mbase := len(st.members)
	ps.objects = 0
	n := len(data)
	i := skipSpace(data, i0)
	from := i // data[from:i] is pending canonical output
	switch {
	case mode != passDocument:
		st.stack = append(st.stack, frame{sorted: true})
		ps.deepest, ps.depthMark = 1, min(1, maxDepth)
		switch {
		case mode == passWorker:
			ps.checkAt = sp.nextCheck(i)
		case mode == passChunk && ps.chunk+1 < len(sp.bounds):
			ps.checkAt = sp.bounds[ps.chunk+1]
		}
	case sp != nil:
		ps.checkAt = sp.at
	}
	for {
		// A value starts at data[i].
		if uint(i) >= uint(n) {
			return 0, syntaxError(data, i, "expecting a value")
		}
		switch c := data[i]; c {
		case '"':
			// Plain ASCII runs inline, eight bytes at a time, and common
			// two- and three-byte UTF-8 sequences; the string scanner
			// takes over at anything else (it knows that what precedes is
			// plain text, whose only flag that matters for a value is
			// flagCopy).
			j := i + 1
			for j+8 <= n {
				sm := specialMask(binary.LittleEndian.Uint64(data[j : j+8]))
				if sm == 0 {
					j += 8
					continue
				}
				j += bits.TrailingZeros64(sm) >> 3
				c := data[j]
				if c >= 0xc2 && c <= 0xdf && j+1 < n && data[j+1]&0xc0 == 0x80 {
					j += 2
					continue
				}
				if c >= 0xe1 && c <= 0xef && c != 0xed && j+2 < n && data[j+1]&0xc0 == 0x80 && data[j+2]&0xc0 == 0x80 {
					j += 3
					continue
				}
				break
			}
			if uint(j) < uint(n) && data[j] == '"' {
				i = j + 1
				break
			}
			end, flags, err := scanStringFrom(data, i, j)
			if err != nil {
				return 0, err
			}
			if flags&flagCopy == 0 {
				buf = append(buf, data[from:i]...)
				buf = appendCanonicalString(buf, data[i+1:end-1])
				from = end
			}
			i = end
		case '{', '[':
			if len(st.stack) >= ps.depthMark {
				if len(st.stack) >= maxDepth {
					return 0, errDepth()
				}
				// Deeper than ever, counting from the worker's first array.
				ps.deepest = len(st.stack) + 1 - ps.closed
				ps.depthMark = min(maxDepth, ps.deepest+ps.closed)
			}
			obj := c == '{'
			if len(st.stack) == cap(st.stack) {
				st.stack = slices.Grow(st.stack, 1)
			}
			st.stack = st.stack[:len(st.stack)+1]
			f := &st.stack[len(st.stack)-1] // filled in place, as members are
			f.start, f.base, f.arenaBase = uint32(len(buf)+i-from), uint32(len(st.members)), uint32(len(st.arena))
			f.obj, f.sorted, f.guessed = obj, true, 0
			i++
			if uint(i) < uint(n) && data[i] <= ' ' {
				j := skipSpaceSlow(data, i)
				buf = append(buf, data[from:i]...)
				from, i = j, j
			}
			if obj {
				ps.objects++
				if uint(i) >= uint(n) || data[i] != '}' {
					goto key
				}
			} else if uint(i) >= uint(n) || data[i] != ']' {
				continue
			}
			// An empty container: the loop below closes it.
		case 't', 'f', 'n':
			// One four-byte load per literal: a string comparison would
			// call memequal, and a call spills every live register.
			if n-i < 4 {
				return 0, syntaxError(data, i, "expecting a value")
			}
			w := binary.LittleEndian.Uint32(data[i : i+4])
			switch {
			case w == 'n'|'u'<<8|'l'<<16|'l'<<24, w == 't'|'r'<<8|'u'<<16|'e'<<24:
				i += 4
			case w == 'f'|'a'<<8|'l'<<16|'s'<<24 && i+4 < n && data[i+4] == 'e':
				i += 5
			default:
				return 0, syntaxError(data, i, "expecting a value")
			}
		default:
			if c != '-' && (c < '0' || c > '9') {
				return 0, syntaxError(data, i, "expecting a value")
			}
			// Plain integers of up to 15 digits, decimals of up to 15
			// significant digits without trailing zeros (from 1e-6 up),
			// and their negations are printed as written: handled inline.
			// Such decimals with 16 to 19 significant digits are printed
			// as written when shortestDecimal proves them the shortest
			// form of their double, as it does for most a float formatter
			// wrote: checked here, sparing scanNumber's second scan (what
			// it cannot prove goes the slow way, checked again there).
			d := i // the first digit
			if c == '-' {
				d++
			}
			if uint(d) < uint(n) && data[d] >= '1' && data[d] <= '9' {
				j := skipDigits(data, d+1)
				if uint(j) < uint(n) && data[j] == '.' {
					if k := skipDigits(data, j+1); k > j+1 && data[k-1] != '0' && (uint(k) >= uint(n) || data[k]|0x20 != 'e') &&
						(k-d <= 16 || shortestDecimal(data[d:j], data[j+1:k], k-d-1)) {
						i = k
						break
					}
				} else if j-d <= 15 && (j >= n || data[j]|0x20 != 'e') {
					i = j
					break
				}
			} else if d+2 < n && data[d] == '0' && data[d+1] == '.' {
				// Fewer than six leading zeros after "0.".
				if k := skipDigits(data, d+2); k > d+2 && data[k-1] != '0' && (k >= n || data[k]|0x20 != 'e') &&
					(k-d <= 8 || string(data[d+2:d+8]) != "000000") {
					if k-d <= 17 || shortDecimalFraction(data[d+2:k]) {
						i = k
						break
					}
				}
			}
			end, copyEnd, ok := scanNumber(data, i)
			if !ok {
				return 0, syntaxError(data, end, "malformed number")
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
			if i+1 < n && data[i] == ',' && data[i+1] > ' ' && i+1 < ps.checkAt && len(st.stack) > 0 {
				// The common case, a comma with no blank after it,
				// and no look at the split due: as below.
				if st.stack[len(st.stack)-1].obj {
					i++
					goto key
				}
				if !stream || ps.objects != 0 {
					i++
					break
				}
			}
			if uint(i) < uint(n) && data[i] <= ' ' {
				j := skipSpaceSlow(data, i)
				buf = append(buf, data[from:i]...)
				from, i = j, j
			}
			if len(st.stack) == 0 {
				if i != n {
					return 0, syntaxError(data, i, "expecting end of input")
				}
				if stream && len(buf)+i-from >= flushSize {
					st.write(buf)
					st.write(data[from:i])
					buf = buf[:0]
				} else {
					buf = append(buf, data[from:i]...)
				}
				st.buf, st.members = buf, st.members[:mbase]
				return i, nil
			}
			if i >= n {
				return 0, syntaxError(data, i, "unterminated container")
			}
			top := &st.stack[len(st.stack)-1]
			c := data[i]
			if c == ',' {
				i++
				if uint(i) < uint(n) && data[i] <= ' ' {
					j := skipSpaceSlow(data, i)
					buf = append(buf, data[from:i]...)
					from, i = j, j
				}
				if i >= ps.checkAt {
					switch {
					case ps.mode == passWorker:
						if sp.stopped() {
							return 0, errCancelled
						}
						switch {
						case ps.closed > 0:
							ps.checkAt = i + sp.poll
						case ps.objects == 0:
							if len(st.stack) == 1 && sp.atBound(i) {
								// The main pass took over from here.
								buf = append(buf, data[from:i]...)
								st.buf, st.members = buf, st.members[:mbase]
								ps.res.stopped = true
								return i, nil
							}
							sp.publish(buf)
							ps.checkAt = sp.nextCheck(i)
						}
					case ps.mode == passChunk:
						if ps.objects == 0 && ps.closed == 0 && len(st.stack) == 1 {
							if i == ps.checkAt {
								// The next chunk starts here.
								buf = append(buf, data[from:i]...)
								st.buf, st.members = buf, st.members[:mbase]
								ps.res.stopped = true
								return i, nil
							}
							ps.checkAt = math.MaxInt
						}
					default:
						ps.checkAt = math.MaxInt
						if !top.obj && i == sp.at {
							buf = append(buf, data[from:i]...)
							from = i
							e, popped, spec, err := st.adopt(sp, &buf, st.stack, st.members, ps.objects, maxDepth, stream)
							if err != nil {
								return 0, err
							}
							// The worker's output, up to the closing
							// bracket of the arrays it closed, is in buf
							// (or hashed).
							st.stack = st.stack[:len(st.stack)-popped]
							from, i, ps.spec = e, e, spec
							continue
						}
						sp.cancel()
					}
				}
				if top.obj {
					goto key
				} else if stream && ps.objects == 0 && len(buf)+i-from >= flushSize {
					st.write(buf)
					st.write(data[from:i])
					buf, from = buf[:0], i
				}
				break
			}
			if top.obj {
				if c != '}' {
					return 0, syntaxError(data, i, "expecting ',' or '}'")
				}
				if len(st.stack) == 1 && ps.mode == passProbe {
					// The enclosing object a probe inferred closes: its
					// members are the probe's result.
					ms := st.members[top.base:]
					if len(ms) > 0 {
						ms[len(ms)-1].end = uint32(len(buf) + i - from)
					}
					buf = append(buf, data[from:i]...)
					st.stack, st.buf = st.stack[:0], buf
					return i, nil
				}
				if !top.sorted || (len(st.stack) == 1 && ps.spec) {
					ms := st.members[top.base:]
					ms[len(ms)-1].end = uint32(len(buf) + i - from)
					var perm []uint32
					if d := len(st.stack) - 1; int(top.guessed) == len(ms) && d < len(st.shapes) && st.shapes[d].n == len(ms) {
						// Every key was guessed, and the guesses were
						// learned with the shape (see remember): its order holds.
						perm = st.shapes[d].perm[:len(ms):len(ms)]
					} else {
						perm = st.order(ms, d)
					}
					switch {
					case len(st.stack) == 1 && ps.spec:
						buf = append(buf, data[from:i]...)
						buf = st.finishSpec(buf, int(top.start), ms, perm)
						ps.spec = false
					case stream && len(st.stack) == 1:
						buf = append(buf, data[from:i]...)
						buf = st.writeOrdered(buf, int(top.start), ms, perm)
					case int(top.start) >= len(buf):
						// The object is all still-pending input: its
						// members are copied from there once, in order.
						off := from - len(buf) // data index of a pending output offset
						open := int(top.start) + off
						buf = append(buf, data[from:open+1]...)
						buf = appendOrdered(buf, data, off, ms, perm)
					default:
						buf = append(buf, data[from:i]...)
						tmp := append(st.tmp[:0], buf[top.start+1:]...)
						buf = appendOrdered(buf[:top.start+1], tmp, -int(top.start+1), ms, perm)
						if cap(tmp) != cap(st.tmp) {
							// Only a grown scratch is stored back: a
							// pointer store costs a write barrier while the
							// GC marks, on every reordered object.
							st.tmp = tmp[:0]
						}
					}
					from = i // the brace stays pending
				} else if n := len(st.members) - int(top.base); int(top.guessed) < n {
					// In order already, but some key was not guessed:
					// the next object at this depth may be like this one.
					st.learnSorted(st.members[top.base:], len(st.stack)-1)
				}
				st.members = st.members[:top.base]
				st.arena = st.arena[:top.arenaBase]
				ps.objects--
			} else if c != ']' {
				return 0, syntaxError(data, i, "expecting ',' or ']'")
			}
			st.stack = st.stack[:len(st.stack)-1]
			i++
			if len(st.stack) == 0 && ps.mode != passDocument {
				// The array the worker started in (or one it climbed
				// into) closed. If what follows shows that the enclosing
				// container is an array too, climb into it; otherwise
				// the main pass takes over here.
				ps.closed++
				ps.depthMark = min(maxDepth, ps.deepest+ps.closed)
				buf = append(buf, data[from:i]...)
				from = i
				if ps.closed == 1 && (ps.mode == passWorker || ps.mode == passChunk) {
					ps.res.checkpoint(i, buf, ps.deepest)
					if ps.mode == passWorker {
						sp.closedFirst()
					}
				}
				if !enclosingArray(data, i) {
					if ps.mode == passProbe {
						if j := skipSpace(data, i); j < n && (data[j] == '}' || data[j] == ',' && beforeColon(data, skipSpace(data, j+1))) {
							// The enclosing container is an object: read
							// on to its end.
							st.stack = append(st.stack, frame{obj: true, sorted: true,
								base: uint32(len(st.members)), arenaBase: uint32(len(st.arena))})
							ps.objects++
							continue
						}
					}
					st.buf, st.members = buf, st.members[:mbase]
					return i, nil
				}
				st.stack = append(st.stack, frame{sorted: true})
			}
		}
		continue // to the next element

		// An object member starts at data[i]: `"key" :`, then its value.
	key:
		{
			if uint(i) >= uint(n) || data[i] != '"' {
				return 0, syntaxError(data, i, "expecting a string key")
			}
			// The member is filled in place: building it aside and
			// copying it in stalls on store forwarding.
			if len(st.members) == cap(st.members) {
				st.members = slices.Grow(st.members, 1)
			}
			ms := st.members[:len(st.members)+1]
			st.members = ms
			// Every field is set once, on each path (no zeroing first).
			m := &ms[len(ms)-1]
			m.start, m.end = uint32(len(buf)+i-from), 0
			end := 0
			top := &st.stack[len(st.stack)-1]
			// The guess for this depth and position in the object.
			if gi := (len(st.stack)-1)*maxShape + len(st.members) - 1 - int(top.base); uint(gi) < uint(len(st.guesses)) && i+9 <= n {
				// The key the last reordered object at this depth had
				// here, most of the time (see learnKeys).
				g := &st.guesses[gi]
				if binary.LittleEndian.Uint64(data[i+1:i+9])&g.mask == ^g.notWord {
					end = i + 2 + g.size
					m.ks, m.ke, m.flags, m.prefix = uint32(i+1), uint32(end-1), memberASCII, g.prefix
					top.guessed++
					if g.colon {
						// The colon matched too: link the member as
						// below, and go on to the value. (A function for
						// the linking would not be inlined: it calls.)
						if len(st.members) > int(top.base)+1 {
							p := &st.members[len(st.members)-2]
							p.end = m.start - 1
							if top.sorted && (p.prefix >= m.prefix || (p.flags|m.flags)&memberSurrogate != 0) {
								// A greater prefix decides, unless a
								// surrogate makes prefixes unreliable.
								top.sorted = (p.prefix <= m.prefix || (p.flags|m.flags)&memberSurrogate != 0) && st.compareMembers(p, m) < 0
							}
						}
						i = end + 1
						if uint(i) < uint(n) && data[i] <= ' ' {
							j := skipSpaceSlow(data, i)
							buf = append(buf, data[from:i]...)
							from, i = j, j
						}
						continue // to the value
					}
				}
			}
			if end == 0 && i+9 <= n {
				// Keys of up to seven plain ASCII bytes (most keys) inline:
				// the first byte the string scanner would stop at is the
				// closing quote.
				x := binary.LittleEndian.Uint64(data[i+1 : i+9])
				if sm := specialMask(x); sm != 0 {
					if z := bits.TrailingZeros64(sm) &^ 7; byte(x>>z) == '"' {
						z >>= 3
						end = i + 2 + z
						m.ks, m.ke, m.flags = uint32(i+1), uint32(end-1), memberASCII
						// The key's z bytes, high first (z < 8: the mask
						// keeps the shift in range without a check).
						m.prefix = bits.ReverseBytes64(x) &^ (^uint64(0) >> (8 * z & 63))
					}
				}
			}
			if end == 0 {
				e, flags, err := scanString(data, i)
				if err != nil {
					return 0, err
				}
				end = e
				m.ks, m.ke = uint32(i+1), uint32(end-1)
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
					m.flags = 0
					m.prefix = sortPrefix(data, m.ks, m.ke, false)
				}
				if flags&flagCopy == 0 {
					buf = append(buf, data[from:i]...)
					buf = appendCanonicalString(buf, data[i+1:end-1])
					from = end
				}
			}
			if len(st.members) > int(top.base)+1 {
				// The member before ends at the comma before this one.
				p := &st.members[len(st.members)-2]
				p.end = m.start - 1
				if top.sorted && (p.prefix >= m.prefix || (p.flags|m.flags)&memberSurrogate != 0) {
					// A greater prefix decides, unless a surrogate makes
					// prefixes unreliable.
					top.sorted = (p.prefix <= m.prefix || (p.flags|m.flags)&memberSurrogate != 0) && st.compareMembers(p, m) < 0
				}
			}
			i = end
			if i+1 < n && data[i] == ':' && data[i+1] > ' ' {
				i++ // the common case: no blanks around the colon
			} else {
				if uint(i) < uint(n) && data[i] <= ' ' {
					j := skipSpaceSlow(data, i)
					buf = append(buf, data[from:i]...)
					from, i = j, j
				}
				if uint(i) >= uint(n) || data[i] != ':' {
					return 0, syntaxError(data, i, "expecting ':'")
				}
				i++
				if uint(i) < uint(n) && data[i] <= ' ' {
					j := skipSpaceSlow(data, i)
					buf = append(buf, data[from:i]...)
					from, i = j, j
				}
			}
		}
	}
}
