package canonical

// Test-only exports of the split machinery.

// SplitGuess exposes splitGuess from the middle of data.
func SplitGuess(data []byte) int { return splitGuess(data, len(data)/2, guessWindow) }

// StringifyJSONAt is StringifyJSON with nesting bounded by maxDepth and a
// worker started at the offset at whatever the document's size (-1: none);
// adopted reports whether the worker's output was used. The worker looks
// for cancellation at every comma.
func StringifyJSONAt(data []byte, maxDepth, at int) (out string, adopted bool, err error) {
	st := getState()
	defer putState(st)
	st.test = &splitTest{poll: 1}
	if adopted, err = st.canonAt(data, maxDepth, false, at); err != nil {
		return "", adopted, err
	}
	return string(st.buf), adopted, nil
}

// SplitReport says how a split went: whether the worker's output was used,
// whether the root object was hashed on a guessed member order, and
// whether that guess was wrong.
type SplitReport struct{ Adopted, Speculated, Missed bool }

// ChecksumJSONAt is ChecksumJSON with a worker started at the offset at
// whatever the document's size (-1: none). The worker publishes its
// output and looks for cancellation at every comma.
func ChecksumJSONAt(tool string, raw []byte, at int) (string, SplitReport, error) {
	sum, rep, err := checksumJSON(tool, raw, at, &splitTest{poll: 1})
	return sum, SplitReport{rep.adopted, rep.speculated, rep.missed}, err
}

// StringifyJSONChunks is StringifyJSONAt with the worker's stretch cut at
// the given bounds; with hold the worker starts only once the main pass has
// taken every chunk it could. chained reports whether chunks run by the
// main pass followed the worker's output.
func StringifyJSONChunks(data []byte, maxDepth, at int, bounds []int, hold bool) (out string, chained bool, err error) {
	st := getState()
	defer putState(st)
	t := &splitTest{poll: 1, bounds: bounds, hold: hold}
	st.test = t
	if _, err = st.canonAt(data, maxDepth, false, at); err != nil {
		return "", t.chained, err
	}
	return string(st.buf), t.chained, nil
}

// ChecksumJSONChunks is ChecksumJSONAt with the worker's stretch cut at the
// given bounds, as for StringifyJSONChunks.
func ChecksumJSONChunks(tool string, raw []byte, at int, bounds []int, hold bool) (string, SplitReport, error) {
	sum, rep, err := checksumJSON(tool, raw, at, &splitTest{poll: 1, bounds: bounds, hold: hold})
	return sum, SplitReport{rep.adopted, rep.speculated, rep.missed}, err
}
