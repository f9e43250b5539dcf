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
