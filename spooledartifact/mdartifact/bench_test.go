package mdartifact

import (
	"context"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// BenchmarkHostileParse compares the metered parse (default budget) with
// goldmark's own parser on quadratic inputs and on ordinary Markdown:
// go test -run '^$' -bench HostileParse -benchtime 1x ./spooledartifact/mdartifact/
func BenchmarkHostileParse(b *testing.B) {
	ordinary := strings.Repeat("# Title\n\nSome *emphasis*, a [link](http://example.com/x \"t\"), `code`, ~~strike~~ and <b>html</b>.\n- [ ] task\n\n", 2000)
	inputs := []struct{ name, src string }{{"ordinary-200KiB", ordinary}}
	for _, kib := range []int{25, 50, 100} {
		inputs = append(inputs, struct{ name, src string }{"link-" + itoa(kib) + "KiB", strings.Repeat("[a](", kib<<10/4)})
	}
	inputs = append(inputs, struct{ name, src string }{"emphasis-100KiB", strings.Repeat("*a_", 100<<10/3)})
	for _, in := range inputs {
		b.Run(in.name+"/goldmark", func(b *testing.B) {
			md := goldmark.New(goldmark.WithExtensions(extension.GFM))
			for b.Loop() {
				md.Parser().Parse(text.NewReader([]byte(in.src)))
			}
		})
		b.Run(in.name+"/metered", func(b *testing.B) {
			for b.Loop() {
				_, _ = parse(context.Background(), []byte(in.src), DefaultMaxParseWork)
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
