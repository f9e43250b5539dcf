package uistream

import (
	"encoding/json"
	"strings"
	"testing"
)

// appendString writes JSON that decodes to the text (invalid UTF-8 as
// U+FFFD) and never contains the characters it must escape.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<script>&</script>", "\"\\\n\r\t\x00\x1f", "\u2028\u2029", "\xff\xfe a", "é漢😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q: invalid JSON %s: %v", s, b, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); got != want && got != repairEach(s) {
			t.Fatalf("%q decodes to %q", s, got)
		}
		if strings.ContainsAny(string(b), "<>&\u2028\u2029") {
			t.Fatalf("unescaped markup in %s", b)
		}
		raw := appendJSON(nil, b)
		if err := json.Unmarshal(raw, &got); err != nil || strings.ContainsAny(string(raw), "<>&\u2028\u2029") {
			t.Fatalf("appendJSON(%s) = %s, %v", b, raw, err)
		}
	})
}

// repairEach replaces every invalid byte with U+FFFD (what encoding/json
// and appendString do), where strings.ToValidUTF8 replaces runs.
func repairEach(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

func TestAppendJSONEscapes(t *testing.T) {
	got := string(appendJSON(nil, []byte(`{"a":"<b>&\u2028 `+"\u2029"+`"}`)))
	want := `{"a":"\u003cb\u003e\u0026\u2028 \u2029"}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := string(appendJSON(nil, []byte(`{broken`))); got != `"{broken"` {
		t.Errorf("invalid JSON: got %s", got)
	}
}

// The replay buffer keeps the newest frames within its frame and byte
// bounds, in order, whatever the number recorded.
func TestReplayBufferBounds(t *testing.T) {
	tr := &turn{id: "t"}
	for i := range 5000 {
		tr.record([]byte(strings.Repeat("x", i%7)), 100)
	}
	got := tr.replay(-1)
	if len(got) != 100 {
		t.Fatalf("%d frames kept, want 100", len(got))
	}
	if !strings.HasPrefix(string(got[0]), "id: t:4900\n") || !strings.HasPrefix(string(got[99]), "id: t:4999\n") {
		t.Errorf("kept %q … %q", got[0][:12], got[99][:12])
	}
	if n := len(tr.replay(4990)); n != 9 {
		t.Errorf("after 4990: %d frames, want 9", n)
	}
	big := &turn{id: "b"}
	for range 20 {
		big.record(make([]byte, 1<<20), 1000)
	}
	if n := len(big.replay(-1)); n < 7 || n > 8 {
		t.Errorf("%d one-MiB frames kept, want the 8 MiB bound", n)
	}
}
