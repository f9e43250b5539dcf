package canonical_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/internal/benchdoc"
)

// splitDocs are documents where a guessed split is right, wrong, or right
// about the offset but wrong about what encloses it.
var splitDocs = []string{
	`[{"b":1,"a":2},{"b":3,"a":4},{"d":[5,6],"c":7}]`,
	`{"q":"x","records":[{"b":1,"a":2},{"b":3,"a":4}],"limit":100}`,
	`[{"a":"},{"},{"b":"],[\"x"},{"c":"\",{\"d\":1}"}]`,
	`["a\",\"b","c\\",{"d":1},"e\\\"],[",1]`,
	`[[[[1,2],[3,[4,5]]],[6]],[[7]],8,[9,[10]]]`,
	`{"x":[1,2,3],"y":[4,[5,{"z":[6,7]}]],"a":0}`,
	`["a","b:","c",{"k":["a","b"],"m":"n"},"o" , "p" ]`,
	`{"k":["a","b"],"m":"n","o":[["p"],["q"]]}`,
	` [ 1 , 2.50 , -0 , 1e2 , "\u0041" , true , null , [ ] , { } ] `,
	`[{"x":[{"y":[1,2]},{"y":[3]}]},{"x":[]},{"x":[{"y":[]}]}]`,
	`{"a":[[1,2],[3,4]],"b":{"c":[5,6],"d":[[7],[8,9]]}}`,
	`[{"a":1,"a":2},{"b":[1,2],"b":[3]},["\ud800","\udc00"],"\u00e9"]`,
	"[\"\xff\xfe\",\"a\xe2\x82\",{\"\xff\":1},[\"\xed\xa0\x80\"]]",
	`[["a",{"b":["c",["d"]]}],["e"]]`,
}

// corruptions are what each byte of a document is replaced with to make
// it invalid (or differently valid) at every offset.
var corruptions = []string{"", "}", "]", ",", `"`, `\`, "x", "{", "[", ":"}

// checkSplit compares a split run at every offset of doc (and a few depth
// limits) with the serial run; it returns how many runs adopted the
// worker's output.
func checkSplit(t *testing.T, doc []byte, depths []int, onlyElements bool) int {
	t.Helper()
	adoptions := 0
	for _, depth := range depths {
		want, _, wantErr := canonical.StringifyJSONAt(doc, depth, -1)
		for at := 1; at < len(doc); at++ {
			if onlyElements && !afterComma(doc, at) {
				continue
			}
			got, adopted, err := canonical.StringifyJSONAt(doc, depth, at)
			if adopted {
				adoptions++
			}
			if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) ||
				errors.Is(err, canonical.ErrLimit) != errors.Is(wantErr, canonical.ErrLimit) ||
				errors.Is(err, canonical.ErrInvalidJSON) != errors.Is(wantErr, canonical.ErrInvalidJSON) {
				t.Fatalf("%q, depth %d, split at %d (adopted %v):\n got %q, %v\nwant %q, %v",
					doc, depth, at, adopted, got, err, want, wantErr)
			}
		}
	}
	return adoptions
}

// afterComma reports whether doc[at] follows a comma or an opening
// bracket, whitespace aside: where a guess can be right.
func afterComma(doc []byte, at int) bool {
	k := at - 1
	for k > 0 && bytes.IndexByte([]byte(" \t\r\n"), doc[k]) >= 0 {
		k--
	}
	return doc[k] == ',' || doc[k] == '['
}

// TestSplitMatchesSerial forces the split at every offset of many small
// documents, valid and corrupted at every offset, under several depth
// limits: the output and the error (class and text) must be the serial
// ones, and the right guesses must be taken up.
func TestSplitMatchesSerial(t *testing.T) {
	defer goleak.VerifyNone(t)
	depths := []int{canonical.MaxDepth, 1, 2, 3, 4, 5}
	adoptions := 0
	for _, doc := range splitDocs {
		adoptions += checkSplit(t, []byte(doc), depths, false)
		for pos := range len(doc) {
			for _, c := range corruptions {
				bad := doc[:pos] + c + doc[pos+1:]
				adoptions += checkSplit(t, []byte(bad), depths[:2], true)
			}
		}
	}
	if adoptions < 1000 {
		t.Fatalf("only %d split runs used the worker's output", adoptions)
	}
}

// TestSplitVectors runs the shared and generated vectors through splits at
// every element-like offset.
func TestSplitVectors(t *testing.T) {
	defer goleak.VerifyNone(t)
	vs := append(loadVectors(t, "vectors.jsonl"), loadVectors(t, "generated.jsonl")...)
	step := 4 // a sample: every vector takes a run per element
	if testing.Short() {
		step = 16
	}
	adoptions := 0
	for i := 0; i < len(vs); i += step {
		adoptions += checkSplit(t, vs[i].input(t), []int{canonical.MaxDepth}, true)
	}
	if adoptions == 0 {
		t.Fatal("no split run used the worker's output")
	}
}

// specDocs are root objects whose member order the checksum guesses while
// the worker runs: guesses right, and wrong in every way.
var specDocs = []string{
	`{"q":"x","records":[{"b":1,"a":2},{"b":3,"a":4}],"limit":100}`,
	`{"z":1,"records":[{"b":1},{"a":2}],"a":0}`,
	`{"a":0,"records":[{"b":1},{"a":2}],"z":1}`,
	`{"records":[{"b":1},{"a":2}],"records":5}`,
	`{"a":1,"records":[{"b":1},{"a":2}],"a":2}`,
	`{"a":1,"records":[{"b":1},{"a":2}],"records":[3],"a":2}`,
	`{"records":[{"b":1},{"a":2}],"other":[{"x":"},{"},{"y":1}],"b":2}`,
	`{"m":[{"a":1},{"b":2}],"k":"},{\"z\":1}"}`,
	`{"m":[{"a":1},{"b":2}],"k":"},{\"z\":1}","j":0}`,
	`{"a":[1,2,3],"b":{"c":[{"d":1},{"e":2}],"f":0},"g":[{"h":1},{"i":2}]}`,
	`{"\u0071":"x","records":[{"b":1},{"a":2}],"\u006cimit":100}`,
	`{"q":"x","records":[[{"b":1}],[{"a":2}]],"limit":100}`,
	`{"records":[{"b":1},{"a":2}]}`,
	`{"a":{"records":[{"b":1},{"a":2}],"z":0},"b":[{"c":1},{"d":2}]}`,
	` { "q" : "x" , "records" : [ { "b" : 1 } , { "a" : 2 } ] , "limit" : 100 } `,
}

// randomRootObjects returns root objects with members of every kind (arrays
// of records among them) under a few keys, duplicates included, so that
// guessed member orders are right and wrong in many ways.
func randomRootObjects(n int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{`"a"`, `"b"`, `"r"`, `"z"`, `"\u0062"`, `"é"`, `"😀"`, `"\ue000"`}
	values := []string{`1`, `"s"`, `"},{\"x\":1}"`, `[{"y":1,"x":2},{"x":3}]`, `[[1],[2,{"b":0,"a":1}]]`,
		`{"k":[{"b":1},{"a":2}]}`, `[]`, `[1,2]`}
	docs := make([]string, n)
	for d := range docs {
		var b strings.Builder
		b.WriteByte('{')
		for m := range 1 + rng.IntN(4) {
			if m > 0 {
				b.WriteByte(',')
			}
			b.WriteString(keys[rng.IntN(len(keys))] + ":" + values[rng.IntN(len(values))])
		}
		b.WriteByte('}')
		docs[d] = b.String()
	}
	return docs
}

// TestSplitChecksum checks the streaming checksum path through splits at
// every offset: hashing the worker's output as it comes (root arrays), and
// on a guessed root member order, right or wrong.
func TestSplitChecksum(t *testing.T) {
	defer goleak.VerifyNone(t)
	var speculated, missed int
	docs := append(append(append([]string{}, splitDocs...), specDocs...), randomRootObjects(120)...)
	for _, doc := range docs {
		want, _, wantErr := canonical.ChecksumJSONAt("t", []byte(doc), -1)
		for at := 1; at < len(doc); at++ {
			got, rep, err := canonical.ChecksumJSONAt("t", []byte(doc), at)
			if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("%q split at %d (%+v): %s, %v; want %s, %v", doc, at, rep, got, err, want, wantErr)
			}
			if rep.Speculated {
				speculated++
				if rep.Missed {
					missed++
				}
			}
		}
	}
	t.Logf("guessed %d, missed %d", speculated, missed)
	if speculated-missed < 40 || missed < 8 {
		t.Fatalf("root order guessed %d times, %d wrong: the paths are not exercised", speculated, missed)
	}
}

// TestSplitLargeDocument checks the guessed split of large documents: the
// guess is taken up and the result is the serial one; invalid documents
// fail as the serial pass does, wherever the fault is.
func TestSplitLargeDocument(t *testing.T) {
	defer goleak.VerifyNone(t)
	doc := benchdoc.Records(1<<20 + 64<<10) // large enough for ChecksumJSON to split
	at := canonical.SplitGuess(doc)
	if at < len(doc)/2 {
		t.Fatalf("no split guess in the benchmark document (%d)", at)
	}
	want, _, err := canonical.ChecksumJSONAt("t", doc, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, rep, err := canonical.ChecksumJSONAt("t", doc, at)
	if err != nil || got != want || !rep.Adopted || !rep.Speculated || rep.Missed {
		t.Fatalf("split checksum %s, %v (%+v); want %s", got, err, rep, want)
	}
	if got, err := canonical.ChecksumJSON("t", doc); err != nil || got != want {
		t.Fatalf("ChecksumJSON = %s, %v; want %s", got, err, want)
	}
	wantText, _, _ := canonical.StringifyJSONAt(doc, canonical.MaxDepth, -1)
	if got, err := canonical.StringifyJSON(doc); err != nil || got != wantText {
		t.Fatalf("StringifyJSON differs from the serial pass (%v)", err)
	}

	// Faults before, at, and after the split, and deep nesting after it.
	faults := []int{100, at - 1, at, at + 1, at + 5000, len(doc) - 20, len(doc) - 1}
	for _, pos := range faults {
		for _, c := range []byte{0x01, ']'} {
			bad := bytes.Clone(doc)
			bad[pos] = c
			_, _, wantErr := canonical.StringifyJSONAt(bad, canonical.MaxDepth, -1)
			_, _, err := canonical.StringifyJSONAt(bad, canonical.MaxDepth, at)
			_, err2 := canonical.ChecksumJSON("t", bad)
			if (c == 0x01 && !errors.Is(wantErr, canonical.ErrInvalidJSON)) ||
				fmt.Sprint(err) != fmt.Sprint(wantErr) || fmt.Sprint(err2) != fmt.Sprint(wantErr) {
				t.Fatalf("fault %q at %d: %v / %v; want %v", c, pos, err, err2, wantErr)
			}
		}
	}
	deep := append(bytes.Clone(doc[:at]), strings.Repeat("[", canonical.MaxDepth)...)
	deep = append(deep, doc[at:]...)
	_, _, wantErr := canonical.StringifyJSONAt(deep, canonical.MaxDepth, -1)
	if _, _, err := canonical.StringifyJSONAt(deep, canonical.MaxDepth, at); !errors.Is(wantErr, canonical.ErrLimit) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("deep nesting after the split: %v; want %v", err, wantErr)
	}
}

// elementOffsets returns the offsets of doc after a comma or an opening
// bracket (whitespace aside), from lo on.
func elementOffsets(doc []byte, lo int) []int {
	var out []int
	for at := max(lo, 1); at < len(doc); at++ {
		if afterComma(doc, at) {
			out = append(out, at)
		}
	}
	return out
}

// TestSplitChunks checks the main pass taking chunks of the worker's
// stretch over: at every element-like split, with bounds at every later
// element, at random offsets (often no element starts) and at a single
// one; with the worker held back until the main pass has taken all it
// could, and not. Text and checksum must be the serial ones.
func TestSplitChunks(t *testing.T) {
	defer goleak.VerifyNone(t)
	rng := rand.New(rand.NewPCG(5, 6))
	docs := append(append([]string{}, splitDocs...), specDocs...)
	for _, doc := range splitDocs[:6] {
		for pos := 0; pos < len(doc); pos += 3 {
			docs = append(docs, doc[:pos]+"]"+doc[pos+1:], doc[:pos]+`"`+doc[pos+1:])
		}
	}
	chained := 0
	for _, doc := range docs {
		d := []byte(doc)
		for _, at := range elementOffsets(d, 1) {
			var random []int
			for b := at + 1; b < len(d); b++ {
				if rng.IntN(3) == 0 {
					random = append(random, b)
				}
			}
			boundSets := [][]int{elementOffsets(d, at+1), random, {at + 1 + rng.IntN(len(d)-at)}}
			for _, bounds := range boundSets {
				for _, hold := range []bool{true, false} {
					for _, depth := range []int{canonical.MaxDepth, 3} {
						want, _, wantErr := canonical.StringifyJSONAt(d, depth, -1)
						got, ch, err := canonical.StringifyJSONChunks(d, depth, at, bounds, hold)
						if ch && hold {
							chained++
						}
						if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
							t.Fatalf("%q depth %d split at %d bounds %v hold %v:\n got %q, %v\nwant %q, %v",
								doc, depth, at, bounds, hold, got, err, want, wantErr)
						}
					}
					wantSum, _, wantErr := canonical.ChecksumJSONAt("t", d, -1)
					sum, rep, err := canonical.ChecksumJSONChunks("t", d, at, bounds, hold)
					if sum != wantSum || fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Fatalf("%q checksum split at %d bounds %v hold %v (%+v): %s, %v; want %s, %v",
							doc, at, bounds, hold, rep, sum, err, wantSum, wantErr)
					}
				}
			}
		}
	}
	// Held workers make the count independent of scheduling.
	t.Logf("%d runs with a held worker chained chunks", chained)
	if chained < 80 {
		t.Fatalf("only %d runs with a held worker chained the main pass's chunks", chained)
	}
}

// FuzzSplit checks a split at any offset of any input against the serial
// pass, for the text and for the checksum.
func FuzzSplit(f *testing.F) {
	for _, doc := range append(append([]string{}, splitDocs...), specDocs...) {
		f.Add([]byte(doc), uint16(len(doc)/2), uint8(0))
	}
	f.Fuzz(func(t *testing.T, doc []byte, at uint16, depth uint8) {
		maxDepth := canonical.MaxDepth
		if depth&0x7f > 0 {
			maxDepth = int(depth % 8)
		}
		// The worker's stretch is cut at every later element, and held
		// back when the top bit of depth is set.
		bounds := elementOffsets(doc, int(at)+1)
		hold := depth&0x80 != 0
		want, _, wantErr := canonical.StringifyJSONAt(doc, maxDepth, -1)
		got, _, err := canonical.StringifyJSONChunks(doc, maxDepth, int(at), bounds, hold)
		if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("split at %d: %q, %v; want %q, %v", at, got, err, want, wantErr)
		}
		wantSum, _, wantErr := canonical.ChecksumJSONAt("t", doc, -1)
		sum, rep, err := canonical.ChecksumJSONChunks("t", doc, int(at), bounds, hold)
		if sum != wantSum || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("checksum split at %d (%+v): %s, %v; want %s, %v", at, rep, sum, err, wantSum, wantErr)
		}
	})
}

// TestSplitTruncatedEnd: a large document cut off after a comma (a model
// output stopped mid-list) is invalid JSON on the parallel path as on the
// serial one, whatever whitespace follows the comma; the tail probe used to
// read past the end of such a document.
func TestSplitTruncatedEnd(t *testing.T) {
	defer goleak.VerifyNone(t)
	body := `{"a":[` + strings.Repeat("0,", 530_000) + `0], `
	records := string(benchdoc.Records(1<<20 + 64<<10))
	records = records[:len(records)-1] // drop the root's closing brace
	for _, doc := range []string{body, body[:len(body)-1], `{"a":[` + strings.Repeat("0,", 530_000) + "0],\n", records + ",", records + ", \t\r\n"} {
		_, _, wantErr := canonical.StringifyJSONAt([]byte(doc), canonical.MaxDepth, -1)
		if !errors.Is(wantErr, canonical.ErrInvalidJSON) {
			t.Fatalf("serial pass accepted a truncated document: %v", wantErr)
		}
		_, err := canonical.ChecksumJSON("t", []byte(doc))
		_, err2 := canonical.StringifyJSON([]byte(doc))
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || fmt.Sprint(err2) != fmt.Sprint(wantErr) {
			t.Errorf("truncated document ending %q: %v / %v; want %v", doc[len(doc)-6:], err, err2, wantErr)
		}
	}
}
