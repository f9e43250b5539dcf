package wire

import "testing"

func TestJoinText(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a", "b"}, "a\nb"},
		{[]string{"a\n", "b", "", "\nc"}, "a\nb\nc"},
		{[]string{"", "a", ""}, "a"},
	}
	for _, tt := range tests {
		if got := JoinText(tt.in, func(s string) string { return s }); got != tt.want {
			t.Errorf("JoinText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
