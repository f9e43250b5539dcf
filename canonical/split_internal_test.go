package canonical

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// A worker's panic, re-raised on the calling goroutine, still shows the
// worker's stack (the re-raise itself only has the caller's).
func TestWorkerPanicKeepsStack(t *testing.T) {
	got := fmt.Sprint(workerPanic{value: "boom", stack: []byte("goroutine 7 [running]:\ncanonical.(*state).run")})
	for _, want := range []string{"boom", "goroutine 7 [running]", "(*state).run"} {
		if !strings.Contains(got, want) {
			t.Errorf("workerPanic renders %q: %q missing", got, want)
		}
	}
}

// The exported split hooks have the worker look at the split at every
// comma. In use it looks every 64 KiB, and the commas in between take the
// loop's shortcut: with looks every few bytes, every split point and chunk
// bound must still give the serial result.
func TestSplitPollIntervals(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	docs := []string{
		`{"q":"x","records":[{"b":1,"a":2},{"b":3,"a":4},{"d":[5,6],"c":7},{"b":1,"a":2},{"b":3,"a":4}],"limit":100,"a":1}`,
		`[{"b":1,"a":2},{"b":3,"a":4},{"d":[5,6],"c":7},[1,2,3,4,5,6,7,8],{"b":1,"a":2},{"b":3,"a":4}]`,
		`[[1,2,3,[4,5,6],7,8,9],[10,11,{"x":[1,2,3],"a":1},12,13,14,15],16,17,[18,19,20]]`,
		`{"k":[[1,2,3,[4,5,6],7,8,9],[10,11,{"x":[1,2,3],"a":1},12,13,14,15],16,17,[18,19,20]],"a":[1,2,3,4]}`,
	}
	run := func(doc []byte, at, poll int, bounds []int, hold, hash bool) (string, error) {
		test := &splitTest{poll: poll, bounds: bounds, hold: hold}
		if hash {
			sum, _, err := checksumJSON("t", doc, at, test)
			return sum, err
		}
		st := getState()
		defer putState(st)
		st.test = test
		if _, err := st.canonAt(doc, MaxDepth, false, at); err != nil {
			return "", err
		}
		return string(st.buf), nil
	}
	for _, d := range docs {
		doc := []byte(d)
		for _, hash := range []bool{false, true} {
			want, wantErr := run(doc, -1, 1, nil, false, hash)
			if wantErr != nil {
				t.Fatalf("%s: %v", doc, wantErr)
			}
			for at := 1; at < len(doc); at++ {
				for _, poll := range []int{2, 3, 5, 9, 1000} {
					var bounds []int
					if r.IntN(2) == 0 && at+1 < len(doc) {
						bounds = []int{at + 1 + r.IntN(len(doc)-at-1)}
					}
					for _, hold := range []bool{false, true} {
						got, err := run(doc, at, poll, bounds, hold, hash)
						if got != want || err != nil {
							t.Fatalf("%s split at %d, poll %d, bounds %v, hold %v, hash %v:\n got %q, %v\nwant %q",
								doc, at, poll, bounds, hold, hash, got, err, want)
						}
					}
				}
			}
		}
	}
}
