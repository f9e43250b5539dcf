package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain ASCII is kept", "hello, world", "hello, world"},
		{"tab and line feed are kept", "a\tb\nc", "a\tb\nc"},
		{"CRLF is kept", "a\r\nb\r\n", "a\r\nb\r\n"},
		{"a lone CR would overwrite the line", "safe\rEVIL", "safe␍EVIL"},
		{"a CR at the end is lone", "a\r", "a␍"},
		{"NUL becomes its symbol", "ok\x00", "ok␀"},
		{"ESC sequences lose their ESC", "\x1b[31mred\x1b[0m", "␛[31mred␛[0m"},
		{"BEL and backspace", "\a\b", "␇␈"},
		{"unit separator, the last C0", "\x1f", "␟"},
		{"DEL", "a\x7fb", "a␡b"},
		{"C1 CSI is replaced", "a\u009b31mb", "a\uFFFD31mb"},
		{"C1 NEL is replaced", "\u0085", "\uFFFD"},
		{"each invalid byte is one U+FFFD", "ok\xff\xfe", "ok\uFFFD\uFFFD"},
		{"a truncated sequence", "echo\xc3", "echo\uFFFD"},
		{"valid multi-byte text is kept", "naïve ✓ 日本 😀", "naïve ✓ 日本 😀"},
		{"U+00A0 is not C1", "a\u00a0b", "a\u00a0b"},
		{"a real U+FFFD is kept", "\uFFFD", "\uFFFD"},
		{"hostile tool output", "ok\x00\xff\xfe\x1b[31m", "ok␀\uFFFD\uFFFD␛[31m"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if b := Bytes([]byte(tt.in)); b != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, b, tt.want)
			}
			if Safe(tt.in) != (tt.in == tt.want) {
				t.Errorf("Safe(%q) = %v, want %v", tt.in, Safe(tt.in), tt.in == tt.want)
			}
		})
	}
}

func TestStringDoesNotAllocateWhenSafe(t *testing.T) {
	s := strings.Repeat("safe text ✓\n", 100)
	if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
		t.Errorf("String of safe text allocates %v times, want 0", n)
	}
}

func TestPrefix(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"short safe text is whole", "echo", 32, "echo"},
		{"exactly n bytes is whole", "abcd", 4, "abcd"},
		{"long text is cut with an ellipsis", strings.Repeat("a", 100), 8, "aaaaaaaa…"},
		{"unsafe bytes are neutralised", "ec\xffho", 32, "ec\uFFFDho"},
		{"a replacement that does not fit is left out", "abcdef\xff", 8, "abcdef…"},
		{"a rune is never split", "aaaaaaa日本", 8, "aaaaaaa…"},
		{"n 0", "abc", 0, "…"},
		{"negative n is 0", "abc", -5, "…"},
		{"empty", "", 4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Prefix(tt.in, tt.n); got != tt.want {
				t.Errorf("Prefix(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

func TestPrefixOfHugeInputIsBounded(t *testing.T) {
	huge := strings.Repeat("\xff", 4<<20)
	got := Prefix(huge, 64)
	if len(got) > 64+len("…") {
		t.Fatalf("Prefix of 4 MiB is %d bytes, want at most %d", len(got), 64+len("…"))
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "ok", "ok\x00\xff\xfe\x1b[31m", "a\r\nb\rc", "\u009b", "日本\xe6\x97"} {
		f.Add(s, 16)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := String(s)
		if !utf8.ValidString(got) {
			t.Fatalf("String(%q) = %q is not valid UTF-8", s, got)
		}
		if !Safe(got) {
			t.Fatalf("String(%q) = %q is not Safe", s, got)
		}
		if String(got) != got {
			t.Fatalf("String is not idempotent on %q", s)
		}
		if (got == s) != Safe(s) {
			t.Fatalf("Safe(%q) = %v but String changed it: %v", s, Safe(s), got != s)
		}
		if Bytes([]byte(s)) != got {
			t.Fatalf("Bytes and String disagree on %q", s)
		}
		n = n % 256
		p := Prefix(s, n)
		if !Safe(p) {
			t.Fatalf("Prefix(%q, %d) = %q is not Safe", s, n, p)
		}
		body := strings.TrimSuffix(p, "…")
		if len(body) > max(n, 0) {
			t.Fatalf("Prefix(%q, %d) = %q is over %d bytes", s, n, p, n)
		}
		if !strings.HasPrefix(got, body) {
			t.Fatalf("Prefix(%q, %d) = %q is not a prefix of String's %q", s, n, p, got)
		}
	})
}
