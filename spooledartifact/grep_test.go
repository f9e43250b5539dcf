package spooledartifact

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGrepOverLongLine greps a 33 MiB line (longer than maxGrepLine) on
// every store: it is matched whole (`^a+$` does not match at the 32 MiB
// mark, `b$` matches at the real end), the answer is the same everywhere,
// and its text is its first maxGrepLine bytes, marked Truncated, match or
// context. About 1 s per pattern per store (RE2 over a reader): skipped
// under -short and -race, like TestOneGiBBoundedMemory (SPOOLEDARTIFACT_BIG=1
// forces it). TestGrepStreamLongLines covers the same paths with a tiny
// maxLine everywhere.
func TestGrepOverLongLine(t *testing.T) {
	if os.Getenv("SPOOLEDARTIFACT_BIG") == "" && (testing.Short() || raceEnabled) {
		t.Skip("33 MiB grep: skipped under -short and -race (SPOOLEDARTIFACT_BIG=1 forces it)")
	}
	ctx := context.Background()
	text := strings.Repeat("a", 33<<20) + "b\nfoo\nbar foo"
	type hit struct {
		Line           int
		Len            int
		Match, Trunced bool
	}
	long := hit{0, maxGrepLine, true, true}
	tests := []struct {
		pattern string
		opts    *GrepOptions
		want    []hit
	}{
		{`^a+$`, nil, []hit{}},
		{`(?i)AB$`, nil, []hit{long}},
		{`foo`, nil, []hit{{1, 3, true, false}, {2, 7, true, false}}},
		{`^foo`, &GrepOptions{Before: 1}, []hit{{0, maxGrepLine, false, true}, {1, 3, true, false}}},
	}
	// Every disk store spills 33 MiB: one of them is enough.
	for name, s := range map[string]Store{"memory": NewMemoryStore(), "disk": mustDisk(t, nil)} {
		a := artifactOf(t, s, text)
		for _, tc := range tests {
			res, err := a.Grep(ctx, tc.pattern, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := []hit{}
			for _, l := range res.Lines {
				got = append(got, hit{l.Line, len(l.Text), l.Match, l.Truncated})
				if l.Truncated && l.Text != text[:maxGrepLine] {
					t.Errorf("%s %s: truncated text is not the line's prefix", name, tc.pattern)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s %s (-want +got)\n%s", name, tc.pattern, diff)
			}
			if len(got) > 0 && got[0].Trunced {
				if f := res.Format(true); !strings.Contains(f, "a …[line truncated after 33554432 bytes]") {
					t.Errorf("%s %s: Format does not say the line is truncated: %q", name, tc.pattern, f[len(f)-100:])
				}
			}
		}
	}
}
