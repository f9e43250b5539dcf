package canonical

import (
	"errors"
	"fmt"
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
// deep it went, and the main pass adds the depth at which it meets it.

// splitMinSize is the smallest document worth a second goroutine.
const splitMinSize = 1 << 20

// splitAuto asks canonAt to guess a split when the document is large.
const splitAuto = -2

// pollInterval is how far the worker reads between looks at its cancel
// flag.
const pollInterval = 64 << 10

// errCancelled ends a worker whose guess the main pass found wrong; it
// never reaches a caller.
var errCancelled = errors.New("canonical: split cancelled")

func errDepth() error {
	return fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
}

// split is one speculative second pass. The worker owns st, end, deepest
// and err until it closes done.
type split struct {
	data    []byte
	at      int // guessed element start
	st      *state
	end     int // just past the closing bracket of the last array closed
	deepest int // deepest nesting, the starting array being 1
	closed  int // arrays closed
	err     error
	stop    atomic.Bool
	done    chan struct{} // closed by the worker when it returns
	waited  bool
	adopted bool // the main pass used the worker's output
}

// startSplit starts a worker canonicalising data from the guessed element
// start at; at < 0 means no guess, and nil is returned.
func startSplit(data []byte, at int) *split {
	if at <= 0 || at >= len(data) {
		return nil
	}
	sp := &split{data: data, at: at, st: getState(), done: make(chan struct{})}
	go sp.work()
	return sp
}

func (sp *split) work() {
	defer close(sp.done)
	defer func() {
		// The pass is meant never to panic; should it, the main pass
		// redoes the work and meets the fault itself.
		if r := recover(); r != nil {
			sp.err = errCancelled
		}
	}()
	sp.end, sp.deepest, sp.closed, sp.err = sp.st.run(sp.data, sp.at, MaxDepth, false, true, sp)
}

func (sp *split) stopped() bool { return sp.stop.Load() }

// cancel tells the worker its work is not wanted.
func (sp *split) cancel() { sp.stop.Store(true) }

func (sp *split) wait() {
	if !sp.waited {
		<-sp.done
		sp.waited = true
	}
}

// finish cancels the worker if it still runs, waits for it and releases
// its state.
func (sp *split) finish() {
	sp.cancel()
	sp.wait()
	putState(sp.st)
	sp.st = nil
}

// adopt is called by the main pass on reaching sp.at as an element of an
// array, the top of stack, with pending output still to be appended to
// *buf. It waits for the worker. When the worker's result stands for what
// the main pass would have found (the enclosing containers it took for
// arrays are arrays), it appends pending and the worker's output to *buf
// and returns the index the main pass resumes at, after a value with
// sp.closed arrays closed; or it returns the error the main pass would have
// met. ok false means the main pass should go on itself.
func (sp *split) adopt(buf *[]byte, pending []byte, stack []frame, maxDepth int) (end int, ok bool, err error) {
	sp.wait()
	if errors.Is(sp.err, errCancelled) {
		return 0, false, nil
	}
	// The worker assumed the arrays it closed and, when it stopped inside
	// one, that one.
	assumed := sp.closed
	if sp.err != nil {
		assumed++
	}
	if assumed > len(stack) {
		return 0, false, nil
	}
	for _, f := range stack[len(stack)-assumed:] {
		if f.obj {
			return 0, false, nil
		}
	}
	switch {
	case errors.Is(sp.err, ErrLimit) || len(stack)-1+sp.deepest > maxDepth:
		// The main pass would have gone too deep somewhere in the
		// worker's stretch, before any other error there.
		return 0, false, errDepth()
	case sp.err != nil:
		return 0, false, sp.err
	}
	b := append(*buf, pending...)
	*buf = append(b, sp.st.buf...)
	sp.adopted = true
	return sp.end, true, nil
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

// splitGuess returns an offset near the middle of data that looks like the
// start of an array element: preferably a container following a container
// (`},{`, `],[`: records), else the first byte after a comma that no
// object member could follow. -1 means none was found near the middle.
func splitGuess(data []byte) int {
	const window = 256 << 10
	n := len(data)
	lo, hi := n/2, min(n, n/2+window)
	fallback := -1
	for i := lo; i < hi; i++ {
		if data[i] != ',' {
			continue
		}
		j := skipSpace(data, i+1)
		if j >= n {
			break
		}
		k := i - 1
		for k > 0 && isSpace(data[k]) {
			k--
		}
		if c := data[j]; (c == '{' || c == '[') && (data[k] == '}' || data[k] == ']') {
			return j
		}
		if fallback < 0 && !beforeColon(data, j) {
			fallback = j
		}
	}
	return fallback
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
