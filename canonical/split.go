package canonical

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
)

// Splitting a large document between two goroutines.
//
// The canonical text of the elements of an array does not depend on what
// encloses the array: from an element start, the elements up to the
// array's closing bracket canonicalise the same way at any depth. So for a
// large document a worker goroutine guesses an element start near the
// middle (splitGuess) and canonicalises from there, in elements mode, up to
// the closing bracket of that array, into its own buffer. The main pass
// checks the guess when it gets there: if it reaches the guessed offset as
// an element of an array, the guess was right, and it takes the worker's
// output (or error) and jumps to the closing bracket. If it passes the
// offset any other way (the guess was inside a string, an object, ...) it
// cancels the worker and goes on alone, so a wrong guess costs only the
// worker's wasted time. Depth limits stay exact: the worker reports how
// deep it went, and the main pass adds the depth at which it meets it. An
// error the worker meets is the main pass's error (the same text). When the
// array closes, the worker climbs into enclosing containers that look like
// arrays; the main pass takes that up only if they are arrays, else it
// takes the output up to the first close (a checkpoint) and reads on.
//
// The checksum gains a second overlap: while the worker runs, the main pass
// hashes what is final. That is everything when no object is open (a root
// array), else the worker publishes its output at element boundaries of its
// first array and the main pass guesses the order of the root object's
// members: a probe (probeTail) canonicalises the document's end from a
// guessed element start and returns the members after the array; with the
// members before it they are sorted, and what precedes the array's member
// is hashed, then that member's text as it comes. When the root object
// closes, finishSpec checks the guess against the real order and, if it was
// wrong, hashes everything again from the retained output.
//
// The two goroutines rarely run at the same speed on a shared machine. So
// the worker's stretch is cut into chunks at guessed element starts, and a
// main pass left waiting takes chunks over from the end (see split); their
// output follows the worker's, and is checked the same way: a chunk counts
// only if the stretch before it stopped exactly at its start, as an element
// of the first array.

// workerPanic is a worker's panic re-raised on the calling goroutine; it
// keeps the worker's stack, which the re-raise would otherwise lose.
type workerPanic struct {
	value any
	stack []byte
}

func (p workerPanic) String() string {
	return fmt.Sprintf("%v\n\ncanonical: split worker goroutine stack:\n%s", p.value, p.stack)
}

// passMode is what run reads.
type passMode uint8

// pass is what run keeps in the state rather than in locals (see tokens):
// what the split needs, seldom looked at, and the open-object count.
type pass struct {
	mode passMode
	// checkAt is where the next comma calls for a look at the split: the
	// worker polls for cancellation, the main pass meets the worker.
	checkAt int
	// deepest is the deepest nesting, the worker's first array being 1;
	// closed counts the arrays closed; depthMark is the stack depth at
	// which an opening bracket needs a look (deeper than ever, or too
	// deep).
	deepest, closed, depthMark int
	spec                       bool // the root object is hashed on a guessed order
	objects                    int  // open objects: output inside one may still move

	res   *stretch // where a worker or chunk pass keeps its checkpoint
	chunk int      // a chunk pass's bound index
}

const (
	passDocument passMode = iota // one whole document
	passWorker                   // array elements, for the main pass
	passChunk                    // array elements from a chunk bound, by the main pass
	passProbe                    // array elements and the rest of the document (probeTail)
)

// splitMinSize is the smallest document worth a second goroutine.
const splitMinSize = 1 << 20

// splitShare and hashShare are the main pass's share of a document (in
// percent) when it splits with the worker. When the output is hashed the
// main pass also hashes all of it while the worker runs; SHA-256 (with SHA
// instructions) runs about five times as fast as canonicalisation, so the
// main pass would canonicalise 40% and hash, the worker canonicalise 60%.
// The shares are set lower: a main pass that is done early takes chunks
// of the worker's stretch over, while a worker that is done early can only
// wait.
const (
	splitShare = 45
	hashShare  = 35
)

// splitAuto asks canonAt to guess a split when the document is large.
const splitAuto = -2

// pollInterval is how far the worker reads between looks at its cancel
// flag (and publications of finished output).
const pollInterval = 64 << 10

// errCancelled ends a worker whose guess the main pass found wrong; it
// never reaches a caller.
var errCancelled = errors.New("canonical: split cancelled")

func errDepth() error {
	return fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
}

// stretch is one run of array elements (the worker's, or a chunk the main
// pass took over) and its result. end is just past the closing bracket of
// the last of the closed arrays, or the element start it stopped at;
// deepest counts the first array as 1.
type stretch struct {
	st                   *state
	end, deepest, closed int
	err                  error
	stopped              bool // at a chunk boundary, output up to its comma

	// Checkpoint when the first array closed: the index past its bracket,
	// the output up to there and the deepest nesting before.
	end0, deepest0 int
	out0           []byte
}

func (r *stretch) checkpoint(end int, out []byte, deepest int) {
	r.end0, r.out0, r.deepest0 = end, out, deepest
}

// run runs r from data[at] in the given mode, ps.res pointing at r.
func (r *stretch) run(data []byte, at int, mode passMode, sp *split, chunk int) {
	r.st.pass.res, r.st.pass.chunk = r, chunk
	r.end, r.err = r.st.run(data, at, MaxDepth, false, mode, sp)
	r.deepest, r.closed = r.st.pass.deepest, r.st.pass.closed
}

// split is one speculative second pass. The worker owns w until it closes
// done.
//
// The worker's stretch is cut into chunks at guessed element starts
// (bounds). A main pass with nothing left to do takes chunks over from the
// end, one at a time (limit is the first it took); the worker stops when
// it reaches the bound of that chunk as an element of its first array, and
// the main pass's chunks follow its output. If the worker passes the bound
// any other way, the guess was wrong: the claim is void and the worker
// goes on to the end.
type split struct {
	data []byte
	at   int // guessed element start
	poll int // pollInterval, or less in tests
	w    stretch

	bounds []int     // chunk starts after at, ascending
	chunks []stretch // chunks run by the main pass, by bound index
	next   int       // the worker's next bound

	panicked any // a workerPanic, re-raised on the calling goroutine

	// Output known final (published by the worker while in its first
	// array, outside any object), for the main pass to hash early.
	mu     sync.Mutex
	pub    []byte
	limit  int // the worker stops at bounds[limit]; len(bounds) for none
	passed int // bounds the worker went past: no longer to be taken
	void   bool
	ready  chan struct{} // a publication happened (buffered, never closed)

	stop    atomic.Bool
	hold    chan struct{} // in tests: the worker starts when it is closed (by release)
	done    chan struct{} // closed by the worker when it returns
	waited  bool
	adopted bool // the main pass used the worker's output
}

// startSplit starts a worker canonicalising data from the guessed element
// start at, in chunks from the given bounds on (nil: guessed); at < 0
// means no guess, and nil is returned. hold holds the worker back until the
// main pass has taken every chunk it could (tests).
func startSplit(data []byte, at int, t *splitTest) *split {
	if at <= 0 || at >= len(data) {
		return nil
	}
	poll, bounds, hold := pollInterval, []int(nil), false
	if t != nil {
		bounds, hold = t.bounds, t.hold
		if t.poll > 0 {
			poll = t.poll
		}
	}
	if bounds == nil {
		bounds = chunkBounds(data, at)
	}
	sp := &split{data: data, at: at, poll: poll, w: stretch{st: getState()},
		bounds: bounds, chunks: make([]stretch, len(bounds)), limit: len(bounds),
		done: make(chan struct{}), ready: make(chan struct{}, 1)}
	if hold {
		sp.hold = make(chan struct{})
	}
	go sp.work(sp.hold)
	return sp
}

// guessWindow is how far splitGuess looks for the worker's start.
const guessWindow = 256 << 10

// chunkCount is how many chunks the worker's stretch is cut into.
const chunkCount = 8

// chunkBounds guesses chunkCount-1 element starts spread over data after at.
func chunkBounds(data []byte, at int) []int {
	bounds := make([]int, 0, chunkCount-1)
	prev := at
	spacing := (len(data) - at) / chunkCount
	for k := 1; k < chunkCount; k++ {
		b := splitGuess(data, at+spacing*k, min(guessWindow, spacing))
		if b > prev {
			bounds = append(bounds, b)
			prev = b
		}
	}
	return bounds
}

func (sp *split) work(hold <-chan struct{}) {
	defer close(sp.done)
	defer func() {
		// A fault is the main pass's to raise, as it would have met it.
		if r := recover(); r != nil {
			sp.panicked, sp.w.err = workerPanic{r, debug.Stack()}, errCancelled
		}
	}()
	if hold != nil {
		<-hold
	}
	sp.w.run(sp.data, sp.at, passWorker, sp, -1)
}

func (sp *split) stopped() bool { return sp.stop.Load() }

// cancel tells the worker its work is not wanted.
func (sp *split) cancel() { sp.stop.Store(true) }

func (sp *split) wait() {
	if !sp.waited {
		sp.release()
		<-sp.done
		sp.waited = true
	}
}

// release lets a held worker start.
func (sp *split) release() {
	if sp.hold != nil {
		close(sp.hold)
		sp.hold = nil
	}
}

// finish cancels the worker if it still runs, waits for it and releases
// the states.
func (sp *split) finish() {
	sp.cancel()
	sp.wait()
	putState(sp.w.st)
	sp.w.st = nil
	for k := range sp.chunks {
		if sp.chunks[k].st != nil {
			putState(sp.chunks[k].st)
			sp.chunks[k].st = nil
		}
	}
}

// atBound is called by the worker at element starts i of its first array
// from the next bound on; it reports whether to stop there, the main pass
// having taken the chunk from there on.
func (sp *split) atBound(i int) bool {
	for sp.next < len(sp.bounds) && i >= sp.bounds[sp.next] {
		sp.mu.Lock()
		if sp.limit == sp.next {
			if i == sp.bounds[sp.next] {
				sp.mu.Unlock()
				return true
			}
			sp.void = true // the bound was no element start
		}
		sp.passed = sp.next + 1
		sp.mu.Unlock()
		sp.next++
	}
	return false
}

// closedFirst is called when the worker closes its first array: it no
// longer stops at bounds, so chunks not yet taken could never follow its
// output.
func (sp *split) closedFirst() {
	sp.mu.Lock()
	sp.void = true
	sp.mu.Unlock()
}

// nextCheck is where the worker at i next looks at the split: a poll, or
// its next bound.
func (sp *split) nextCheck(i int) int {
	c := i + sp.poll
	if sp.next < len(sp.bounds) {
		c = min(c, sp.bounds[sp.next])
	}
	return c
}

// takeChunk takes over the last chunk not taken yet, if the worker is a
// whole chunk away from it, and runs it; it reports whether it did.
func (sp *split) takeChunk() bool {
	sp.mu.Lock()
	k := sp.limit - 1
	if sp.void || k <= sp.passed {
		sp.mu.Unlock()
		return false
	}
	sp.limit = k
	sp.mu.Unlock()
	c := &sp.chunks[k]
	c.st = getState()
	c.run(sp.data, sp.bounds[k], passChunk, sp, k)
	return true
}

// publish offers the worker's output so far, final, to the main pass.
func (sp *split) publish(out []byte) {
	sp.mu.Lock()
	sp.pub = out
	sp.mu.Unlock()
	select {
	case sp.ready <- struct{}{}:
	default:
	}
}

// follow waits for the worker, meanwhile taking chunks over and, with
// hash set, hashing (writing) the worker's published output as it comes;
// it returns how much of that it wrote.
func (sp *split) follow(st *state, hash bool) int {
	written := 0
	for {
		if hash {
			sp.mu.Lock()
			out := sp.pub
			sp.mu.Unlock()
			st.write(out[written:])
			written = len(out)
		}
		select {
		case <-sp.done:
			sp.waited = true
			if hash {
				st.write(sp.pub[written:]) // done orders the last publication before
				written = len(sp.pub)
			}
			return written
		default:
		}
		if sp.takeChunk() {
			continue
		}
		sp.release()
		select {
		case <-sp.done:
		case <-sp.ready:
		}
	}
}

// result chains the worker's stretch with the chunks the main pass ran
// after it: the outputs in order (the worker's first, the last stretch's
// last), and the stretch whose end is the end of the chain (its deepest
// raised to the chain's).
func (sp *split) result() (outs [][]byte, last stretch) {
	last = sp.w
	if !last.stopped {
		return [][]byte{last.st.buf}, last
	}
	outs = [][]byte{last.st.buf}
	prior := last.deepest // deepest before the last stretch
	for k := sp.limit; ; k++ {
		last = sp.chunks[k]
		if !last.stopped || last.err != nil {
			break
		}
		prior = max(prior, last.deepest)
		outs = append(outs, last.st.buf)
	}
	// The last stretch's output (when it has one) comes last.
	outs = append(outs, last.st.buf)
	last.deepest, last.deepest0 = max(prior, last.deepest), max(prior, last.deepest0)
	return outs, last
}

// adopt is called by the main pass on reaching sp.at as an element of an
// array, the top of stack, with its output so far in *buf and objects
// objects open (members are those of the open objects). It waits for the
// worker (taking chunks over meanwhile) and takes up the output: all of it
// when the enclosing containers the stretch took for arrays are arrays,
// else up to the close of the array it started in (the main pass redoes
// the rest). It returns where the main pass resumes, after a value, and how
// many arrays were closed; or the error the main pass would have met there.
//
// While the worker runs, its finished output is hashed as it comes when
// streaming and nothing before it can move (objects == 0), or when the
// order of the root object's members can be guessed (speculate, spec
// true).
func (st *state) adopt(sp *split, buf *[]byte, stack []frame, members []member, objects, maxDepth int, stream bool) (end, popped int, spec bool, err error) {
	direct := stream && objects == 0
	if stream && objects == 1 && len(stack) == 2 && stack[0].obj {
		spec = st.speculate(sp.data, *buf, stack[0], members[stack[0].base:])
	}
	if direct {
		st.write(*buf)
		*buf = (*buf)[:0]
	}
	written := sp.follow(st, direct || spec)
	if sp.panicked != nil {
		panic(sp.panicked)
	}
	sp.adopted = true
	outs, last := sp.result()
	if st.test != nil {
		st.test.chained = len(outs) > 1
	}
	// The stretch assumed that the arrays it closed and, when it stopped
	// inside one, that one, are arrays.
	assumed := last.closed
	if last.err != nil {
		assumed++
	}
	whole := assumed <= len(stack)
	for k := len(stack) - min(assumed, len(stack)); whole && k < len(stack); k++ {
		whole = !stack[k].obj
	}
	switch {
	case whole && (errors.Is(last.err, ErrLimit) || len(stack)-1+last.deepest > maxDepth):
		// The main pass would have gone too deep somewhere in the
		// stretch, before any other error there.
		return 0, 0, false, errDepth()
	case whole && last.err != nil:
		return 0, 0, false, last.err
	case whole:
		end, popped = last.end, last.closed
	case len(stack)-1+last.deepest0 > maxDepth:
		return 0, 0, false, errDepth()
	default:
		// The stretch closed its first array (it assumed more only after
		// that), and the main pass goes on from there.
		outs[len(outs)-1] = last.out0
		end, popped = last.end0, 1
	}
	switch {
	case direct:
		for k, out := range outs {
			if k == 0 {
				out = out[written:]
			}
			*buf = append(*buf, out...)
		}
	case spec:
		// The member holding the array is complete: hash the rest of it.
		// The worker's text stays in its buffer, its place in buf a hole
		// that only a wrong guess needs filled (see finishSpec).
		st.write(outs[0][written:])
		st.hole, st.holeAt = outs[0], len(*buf)
		*buf = slices.Grow(*buf, len(outs[0]))
		*buf = (*buf)[:st.holeAt+len(outs[0])]
		for _, out := range outs[1:] {
			st.write(out)
			*buf = append(*buf, out...)
		}
		st.specEnd = len(*buf)
	default:
		for _, out := range outs {
			*buf = append(*buf, out...)
		}
	}
	return end, popped, spec, nil
}

// speculate starts hashing the root object (whose frame is root) before it
// closes, on a guess of its member order, when the main pass meets the
// worker inside an array that is the value of the last of ms, the root's
// members so far. A probe (probeTail) reads the members after that array
// from near the end of the document; the members sorted, what precedes the
// array's member (and its text so far) is hashed, and recorded in st.spec,
// st.specMember and st.specEnd for finishSpec to check when the root
// closes. It reports whether it started.
func (st *state) speculate(data, buf []byte, root frame, ms []member) bool {
	if len(ms) == 0 || st.w == nil || st.w != st.sha {
		return false
	}
	pst := getState()
	defer putState(pst)
	tail, ok := pst.probeTail(data, probeGuess(data))
	if !ok || uint64(len(buf))+uint64(len(pst.buf)) >= math.MaxUint32 {
		return false
	}
	guess := append(st.guess[:0], ms...) // all but the last ended (see tokens)
	last := len(guess) - 1
	off := uint32(len(buf)) // probe output offsets come after all of buf
	for _, m := range tail {
		if m.flags&memberArena != 0 {
			return false // the key lives in the probe's arena
		}
		m.start += off
		m.end += off
		guess = append(guess, m)
	}
	st.guess = guess
	perm := st.order(guess, len(st.shapes)) // a depth with no shape memory
	spec := append(st.spec[:0], buf[:root.start+1]...)
	k := 0
	for ; k < len(perm) && int(perm[k]) != last; k++ {
		m := &guess[perm[k]]
		if m.flags&memberShadowed != 0 {
			continue
		}
		if m.start >= off {
			spec = append(spec, pst.buf[m.start-off:m.end-off]...)
		} else {
			spec = append(spec, buf[m.start:m.end]...)
		}
		spec = append(spec, ',')
	}
	st.spec = spec
	if guess[last].flags&memberShadowed != 0 {
		return false
	}
	st.write(spec)
	st.write(buf[ms[last].start:])
	st.specMember, st.specEnd = int(ms[last].start), len(buf)
	if st.test != nil {
		st.test.specStarted = true
	}
	return true
}

// finishSpec writes the root object (members ms in the order perm, text in
// buf) to the hash begun by speculate: when the order is the one guessed,
// only what was not yet hashed; otherwise the hash starts over. It returns
// buf emptied, as writeOrdered does.
func (st *state) finishSpec(buf []byte, start int, ms []member, perm []uint32) []byte {
	spec := st.spec
	st.comma[0] = ','
	pos := 0
	match := func(b []byte) bool {
		ok := len(spec)-pos >= len(b) && bytes.Equal(spec[pos:pos+len(b)], b)
		pos += len(b)
		return ok
	}
	ok := match(buf[:start+1])
	k := 0
	for ; ok && k < len(perm) && int(ms[perm[k]].start) != st.specMember; k++ {
		if m := &ms[perm[k]]; m.flags&memberShadowed == 0 {
			ok = match(buf[m.start:m.end]) && match(st.comma[:1])
		}
	}
	if !ok || pos != len(spec) || k == len(perm) ||
		ms[perm[k]].flags&memberShadowed != 0 || int(ms[perm[k]].end) < st.specEnd {
		st.sha.Reset()
		if st.test != nil {
			st.test.specMissed = true
		}
		copy(buf[st.holeAt:], st.hole)
		st.hole = nil
		return st.writeOrdered(buf, start, ms, perm)
	}
	st.hole = nil
	st.write(buf[st.specEnd:ms[perm[k]].end])
	for _, j := range perm[k+1:] {
		if m := &ms[j]; m.flags&memberShadowed == 0 {
			st.write(st.comma[:1])
			st.write(buf[m.start:m.end])
		}
	}
	return buf[:0]
}

// probeTail canonicalises the end of data from start, a guessed element
// start in an array that is a member of the root object, with st fresh. It
// returns the members of the root object that follow that array (their
// text in st.buf) when the guess holds up: the array closes, the rest of
// an object follows and then the end of the document.
func (st *state) probeTail(data []byte, start int) ([]member, bool) {
	if start < 0 {
		return nil, false
	}
	end, err := st.run(data, start, MaxDepth, false, passProbe, nil)
	if err != nil || st.pass.closed != 1 || end >= len(data) || data[end] != '}' || skipSpace(data, end+1) != len(data) {
		return nil, false
	}
	return st.members, true
}

// probeGuess returns the start of an element of an array near the end of
// data (a container following a container), -1 if there is none.
func probeGuess(data []byte) int {
	const window = 64 << 10
	for i := len(data) - 2; i > 0 && i > len(data)-window; i-- {
		if data[i] != ',' {
			continue
		}
		if j, ok := betweenContainers(data, 0, i); ok {
			return j
		}
	}
	return -1
}

// betweenContainers reports whether the comma at data[i] separates a
// closing bracket from an opening one (`},{`, `],[`: records), looking back
// no further than data[lo]; j is where the next element starts
// (len(data) when only whitespace follows).
func betweenContainers(data []byte, lo, i int) (j int, ok bool) {
	j = skipSpace(data, i+1)
	if j >= len(data) {
		return j, false
	}
	k := i - 1
	for k > lo && isSpace(data[k]) {
		k--
	}
	return j, (data[j] == '{' || data[j] == '[') && (data[k] == '}' || data[k] == ']')
}

// enclosingArray reports whether what follows a closing bracket at
// data[i-1] shows that the enclosing container is an array: another
// closing bracket, or a comma and then an element rather than a member (a
// string followed by a colon). The answer is a guess the main pass
// checks.
func enclosingArray(data []byte, i int) bool {
	n := len(data)
	i = skipSpace(data, i)
	if i >= n {
		return false
	}
	if data[i] == ']' {
		return true
	}
	if data[i] != ',' {
		return false
	}
	return !beforeColon(data, skipSpace(data, i+1))
}

// beforeColon reports whether data[i] starts a string followed by a colon:
// an object member rather than an array element.
func beforeColon(data []byte, i int) bool {
	n := len(data)
	if i >= n || data[i] != '"' {
		return false
	}
	k := i + 1
	for k < n && data[k] != '"' {
		if data[k] == '\\' {
			k++
		}
		k++
	}
	k = skipSpace(data, k+1)
	return k < n && data[k] == ':'
}

// splitGuess returns an offset from data[lo] on, within window bytes, that
// looks like the start of an array element: preferably a container
// following a container (`},{`, `],[`: records), else the first byte after a
// comma that no object member could follow, found while looking on for a
// record boundary no further than fallbackLook past it. -1 means none was
// found.
func splitGuess(data []byte, lo, window int) int {
	const fallbackLook = 4 << 10
	n := len(data)
	hi := min(n, lo+window)
	fallback := -1
	for i := max(lo, 1); i < hi; i++ {
		c := bytes.IndexByte(data[i:hi], ',')
		if c < 0 {
			break
		}
		i += c
		j, ok := betweenContainers(data[:hi], lo, i)
		if ok {
			return j
		}
		if j >= hi {
			break
		}
		if fallback < 0 && !beforeColon(data, j) {
			fallback = j
			hi = min(hi, j+fallbackLook)
		}
	}
	return fallback
}

// splitTest steers a split and records how it went, for tests; a state's
// test is nil otherwise.
type splitTest struct {
	poll   int   // the worker's poll interval (0: pollInterval)
	bounds []int // chunk bounds (nil: guessed)
	hold   bool  // the worker starts once the main pass took every chunk it could

	// Recorded: the main pass ran chunks after the worker's output; the
	// root object was hashed on a guessed member order; the guess was wrong.
	chained, specStarted, specMissed bool
}
