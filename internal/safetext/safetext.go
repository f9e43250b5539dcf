package safetext

import (
	"strings"
	"unicode/utf8"
)

// controlPictures is where U+2400 (SYMBOL FOR NULL) starts the C0 symbols;
// DEL's symbol is U+2421.
const (
	controlPictures = 0x2400
	delPicture      = 0x2421
)

// Safe reports whether s is already safe: valid UTF-8 with no control
// character but tab, line feed and a carriage return directly before a
// line feed. String(s) == s exactly when Safe(s).
func Safe(s string) bool { return unsafeAt(s) < 0 }

// SafeBytes is Safe over a byte slice.
func SafeBytes(b []byte) bool { return unsafeAtBytes(b) < 0 }

// String returns s made safe (see the package doc); s itself when it
// already is.
func String(s string) string {
	i := unsafeAt(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	appendFrom(&b, s, i, -1)
	return b.String()
}

// Bytes returns b made safe as a string (see the package doc).
func Bytes(b []byte) string {
	if unsafeAtBytes(b) < 0 {
		return string(b)
	}
	return String(string(b))
}

// Prefix returns at most n bytes of s's safe text, followed by "…" when
// s was cut: the form in which error text quotes an untrusted value (a
// tool name, an id) without echoing all of it. A rune is never split.
func Prefix(s string, n int) string {
	n = max(n, 0)
	if len(s) <= n && Safe(s) {
		return s
	}
	var b strings.Builder
	if appendFrom(&b, s, 0, n) {
		b.WriteString("…")
	}
	return b.String()
}

// appendFrom writes the safe text of s[i:] to b, stopping before the
// output would exceed limit bytes when limit >= 0; it reports whether it
// stopped early.
func appendFrom(b *strings.Builder, s string, i, limit int) bool {
	var buf [utf8.UTFMax]byte
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		out := s[i : i+size]
		switch {
		case r == utf8.RuneError && size == 1:
			out = "\uFFFD"
		case r == '\t' || r == '\n':
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
		case r < 0x20:
			out = string(buf[:utf8.EncodeRune(buf[:], controlPictures+r)])
		case r == 0x7f:
			out = "\u2421"
		case r >= 0x80 && r <= 0x9f:
			out = "\uFFFD"
		}
		if limit >= 0 && b.Len()+len(out) > limit {
			return true
		}
		b.WriteString(out)
		i += size
	}
	return false
}

// unsafeAt returns the index of the first byte of s that String would
// change, or -1.
func unsafeAt(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < 0x80 {
			if c == '\t' || c == '\n' || (c == '\r' && i+1 < len(s) && s[i+1] == '\n') {
				i++
				continue
			}
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r <= 0x9f {
			return i
		}
		i += size
	}
	return -1
}

// unsafeAtBytes is unsafeAt over a byte slice.
func unsafeAtBytes(b []byte) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < 0x80 {
			if c == '\t' || c == '\n' || (c == '\r' && i+1 < len(b) && b[i+1] == '\n') {
				i++
				continue
			}
			return i
		}
		r, size := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && size == 1) || r <= 0x9f {
			return i
		}
		i += size
	}
	return -1
}
