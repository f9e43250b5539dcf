package method

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ebbforge/adk/internal/heapwatch"
)

// indentRef is the rendering IndentJSON promises for valid JSON.
func indentRef(src []byte, prefix string) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, src, prefix, "  "); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func TestIndentJSON(t *testing.T) {
	tests := []string{
		`{"a":[1,2,{"b":null}],"c":{},"d":[],"e":"x\"]}"}`,
		"  [ 1 , [ ] ,{ } ]  \n",
		`"a \\\" b"`,
		`["\\", "\\\\", "q\"]"]`,
		"12 ",
		`""`,
		strings.Repeat("[", 50) + strings.Repeat("]", 50),
	}
	for _, src := range tests {
		for _, prefix := range []string{"", "  "} {
			want := indentRef([]byte(src), prefix)
			for _, limit := range []int{0, 1, 5, len(want) - 1, len(want), len(want) + 10} {
				got, total := IndentJSON([]byte("x"), []byte(src), prefix, limit)
				if total != len(want) || string(got) != "x"+string(want[:max(min(limit, len(want)), 0)]) {
					t.Errorf("IndentJSON(%q, %q, %d) = %q, %d; want %q, %d", src, prefix, limit, got, total, want, len(want))
				}
			}
		}
	}
}

// TestIndentJSONBounded: a value nested deep renders to about its size
// times its depth; capped, it costs about the cap.
func TestIndentJSONBounded(t *testing.T) {
	region := strings.Repeat("[", 999) + strings.Repeat("]", 999)
	src := []byte("[" + strings.Repeat(region+",", 512) + "1]") // 1 MiB
	var out []byte
	var total int
	alloc := heapwatch.AllocatedBy(func() { out, total = IndentJSON(nil, src, "", 64<<10) })
	if len(out) != 64<<10 || total < 500<<20 {
		t.Errorf("rendered %d bytes of %d", len(out), total)
	}
	if alloc > 4<<20 {
		t.Errorf("allocated %d KiB for a 64 KiB head", alloc>>10)
	}
}

// FuzzIndentJSON holds IndentJSON, a JSON scanner of untrusted input, to
// json.Indent on valid JSON at every cap, to a consistent head and total on
// any input, and CapAnswerOf over its head to CapAnswer.
func FuzzIndentJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,{}],"b":"\\\""}`, " [ ] ", `"x`, "1 2", "[\"\\u00e9\", -0.5e3, true]", "{\"\":\"é\"}\t"} {
		f.Add([]byte(s), 20, true)
	}
	f.Fuzz(func(t *testing.T, src []byte, limit int, prefixed bool) {
		prefix := ""
		if prefixed {
			prefix = "  "
		}
		limit = min(max(limit, -1), 1<<20)
		got, total := IndentJSON(nil, src, prefix, limit)
		if len(got) > max(limit, 0) || len(got) > total {
			t.Fatalf("IndentJSON(%q, %d) = %q, %d: over the limit or the total", src, limit, got, total)
		}
		whole, n := IndentJSON(nil, src, prefix, total)
		if n != total || !bytes.HasPrefix(whole, got) || len(whole) != total {
			t.Fatalf("IndentJSON(%q): head %q is not the start of %q (%d)", src, got, whole, n)
		}
		if !json.Valid(src) {
			return // laid out without error; json.Indent refuses it
		}
		want := indentRef(src, prefix)
		if total != len(want) || !bytes.Equal(whole, want) {
			t.Fatalf("IndentJSON(%q) = %q, %d; want %q", src, whole, total, want)
		}
		if limit >= 0 {
			if a, b := CapAnswerOf(string(got), total, limit, "h"), CapAnswer(string(whole), limit, "h"); a != b {
				t.Fatalf("CapAnswerOf = %q, CapAnswer = %q", a, b)
			}
		}
	})
}
