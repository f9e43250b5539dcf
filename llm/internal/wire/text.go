package wire

import "strings"

// JoinText is the text of blocks for a provider field that carries text
// only (a tool message, a function response): each block's text as
// text gives it (a media block named by it), blocks that do not end or
// start a line put on separate lines.
func JoinText[B any](blocks []B, text func(B) string) string {
	var b strings.Builder
	prev := ""
	for _, bl := range blocks {
		s := text(bl)
		if prev != "" && s != "" && !strings.HasSuffix(prev, "\n") && !strings.HasPrefix(s, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(s)
		if s != "" {
			prev = s
		}
	}
	return b.String()
}
