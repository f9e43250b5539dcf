package quoted

import "testing"

// naiveEnd walks the string byte by byte, skipping the byte after every
// backslash: the reference End is held to.
func naiveEnd(data []byte, open int) int {
	for i := open + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case data[open]:
			return i
		}
	}
	return len(data)
}

func TestEnd(t *testing.T) {
	for _, tt := range []struct {
		in   string
		open int
		want int
	}{
		{`"abc"`, 0, 4},
		{`"a\"b"`, 0, 5},
		{`"a\\"b"`, 0, 4},
		{`"a\\\"b"`, 0, 7},
		{`x"a"`, 1, 3},
		{`'it\'s'`, 0, 6},
		{`'a"b'`, 0, 4},
		{`"unclosed`, 0, 9},
		{`"ends in \"`, 0, 11},
		{`""`, 0, 1},
	} {
		if got := End([]byte(tt.in), tt.open); got != tt.want {
			t.Errorf("End(%q, %d) = %d, want %d", tt.in, tt.open, got, tt.want)
		}
	}
}

func FuzzEnd(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `'x\\'`, `"\\\\\"`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		for open, c := range data {
			if c != '"' && c != '\'' {
				continue
			}
			if got, want := End(data, open), naiveEnd(data, open); got != want {
				t.Fatalf("End(%q, %d) = %d, want %d", s, open, got, want)
			}
		}
	})
}
