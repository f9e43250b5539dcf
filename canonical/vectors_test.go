package canonical_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/internal/benchdoc"
	"github.com/ebbforge/adk/internal/testdeps"
)

// vector is one line of testdata/vectors.jsonl (the shared fixture) or of
// testdata/generated.jsonl (made by testdata/gen_vectors.js).
type vector struct {
	Tool      string `json:"tool"`
	ArgsJSON  string `json:"args_json"`
	ArgsB64   string `json:"args_b64"`
	Canonical string `json:"canonical"`
	Checksum  string `json:"checksum"`
	Error     bool   `json:"error"`
	Kind      string `json:"kind"`
}

func (v vector) input(t testing.TB) []byte {
	if v.ArgsB64 != "" {
		b, err := base64.StdEncoding.DecodeString(v.ArgsB64)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []byte(v.ArgsJSON)
}

func readVectors(t testing.TB, r io.Reader) []vector {
	t.Helper()
	var out []vector
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v vector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("vector line %d: %v", len(out)+1, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func loadVectors(t testing.TB, name string) []vector {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readVectors(t, f)
}

// checkVector asserts every entry point agrees with the JavaScript reference.
func checkVector(t *testing.T, v vector) {
	t.Helper()
	in := v.input(t)
	got, err := canonical.StringifyJSON(in)
	if v.Error {
		if !errors.Is(err, canonical.ErrInvalidJSON) {
			t.Fatalf("StringifyJSON(%q) = %q, %v; want ErrInvalidJSON", in, got, err)
		}
		if _, err := canonical.ChecksumJSON(v.Tool, in); !errors.Is(err, canonical.ErrInvalidJSON) {
			t.Fatalf("ChecksumJSON(%q) error = %v; want ErrInvalidJSON", in, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("StringifyJSON(%q): %v", in, err)
	}
	if got != v.Canonical {
		t.Fatalf("StringifyJSON(%q)\n got %q\nwant %q", in, got, v.Canonical)
	}
	sum, err := canonical.ChecksumJSON(v.Tool, in)
	if err != nil || sum != v.Checksum {
		t.Fatalf("ChecksumJSON(%q, %q) = %s, %v; want %s", v.Tool, in, sum, err, v.Checksum)
	}
	if sum, err := canonical.Checksum(v.Tool, json.RawMessage(in)); err != nil || sum != v.Checksum {
		t.Fatalf("Checksum(RawMessage) = %s, %v; want %s", sum, err, v.Checksum)
	}
	var w bytes.Buffer
	if err := canonical.WriteJSON(&w, in); err != nil || w.String() != v.Canonical {
		t.Fatalf("WriteJSON = %q, %v; want %q", w.String(), err, v.Canonical)
	}
	// Go values decoded by encoding/json must hash the same wherever that
	// decoding is lossless (valid UTF-8, no lone surrogate escapes).
	if utf8.Valid(in) && !hasLoneSurrogate(v.Canonical) {
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			t.Fatalf("encoding/json rejects %q: %v", in, err)
		}
		if s, err := canonical.Stringify(x); err != nil || s != v.Canonical {
			t.Fatalf("Stringify(decoded %q) = %q, %v; want %q", in, s, err, v.Canonical)
		}
		if sum, err := canonical.Checksum(v.Tool, x); err != nil || sum != v.Checksum {
			t.Fatalf("Checksum(decoded %q) = %s, %v; want %s", in, sum, err, v.Checksum)
		}
	}
}

// hasLoneSurrogate reports whether canonical text holds a \udxxx escape,
// which JSON.stringify only writes for lone surrogates.
func hasLoneSurrogate(s string) bool {
	return bytes.Contains([]byte(s), []byte(`\ud`))
}

func runVectors(t *testing.T, vs []vector) {
	for i, v := range vs {
		t.Run(fmt.Sprintf("%d-%s", i+1, v.Kind), func(t *testing.T) { checkVector(t, v) })
	}
}

func TestSharedVectors(t *testing.T) {
	vs := loadVectors(t, "vectors.jsonl")
	if len(vs) != 400 {
		t.Fatalf("got %d shared vectors, want 400", len(vs))
	}
	runVectors(t, vs)
}

func TestGeneratedVectors(t *testing.T) {
	vs := loadVectors(t, "generated.jsonl")
	if len(vs) < 1000 {
		t.Fatalf("got %d generated vectors, want thousands", len(vs))
	}
	runVectors(t, vs)
}

// TestNodeDifferential runs a fresh randomized batch through the JavaScript
// reference.
func TestNodeDifferential(t *testing.T) {
	node := testdeps.Node(t)
	count := 2000
	if testing.Short() {
		count = 300
	}
	seed := time.Now().UnixNano() & 0x7fffffff
	out, err := exec.Command(node, "testdata/gen_vectors.js",
		"--seed="+strconv.FormatInt(seed, 10), "--count="+strconv.Itoa(count)).Output()
	if err != nil {
		t.Fatalf("gen_vectors.js: %v", err)
	}
	t.Logf("seed %d (reproduce: node testdata/gen_vectors.js --seed=%d --count=%d)", seed, seed, count)
	vs := readVectors(t, bytes.NewReader(out))
	if len(vs) != count {
		t.Fatalf("got %d vectors, want %d", len(vs), count)
	}
	runVectors(t, vs)
}

// TestNodeLargeDocument compares the checksum of a generated 1.1 MB document
// (many objects to sort, output larger than one hash chunk) with the
// JavaScript reference.
func TestNodeLargeDocument(t *testing.T) {
	node := testdeps.Node(t)
	if testing.Short() {
		t.Skip("short mode")
	}
	doc := benchdoc.Records(1<<20 + 64<<10)
	path := t.TempDir() + "/doc.json"
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	const script = `
const fs = require('fs'), crypto = require('crypto');
const cs = (v) => v === null || typeof v !== 'object' ? JSON.stringify(v)
  : Array.isArray(v) ? '[' + v.map(cs).join(',') + ']'
  : '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + cs(v[k])).join(',') + '}';
const args = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'));
process.stdout.write(crypto.createHash('sha256').update(cs({tool: 'search_orders', args})).digest('hex'));`
	want, err := exec.Command(node, "-e", script, path).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	got, err := canonical.ChecksumJSON("search_orders", doc)
	if err != nil || got != string(want) {
		t.Fatalf("ChecksumJSON = %s, %v; node says %s", got, err, want)
	}
}
