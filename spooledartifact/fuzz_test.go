package spooledartifact

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// naiveLines is the reference line split: '\n' only, "" has none, and a
// final '\n' ends the last line rather than starting another.
func naiveLines(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// FuzzLineIndex checks every store path (memory, disk with the default and a
// tiny threshold, checkpoint strides 1..4 and spans 1..8 bytes, and the
// defaults) against a naive split.
func FuzzLineIndex(f *testing.F) {
	for _, s := range []string{"", "\n", "a", "a\nb\n", "\r\n\r\n", "x\n\n\ny", "bad\xff\n\xfe", greek} {
		f.Add(s, uint8(0), 3, 1)
	}
	f.Fuzz(func(t *testing.T, text string, stride uint8, start, n int) {
		ctx := context.Background()
		want := naiveLines(text)
		// Small strides and spans put a checkpoint at nearly every line;
		// stride >= 128 uses the defaults.
		shape := indexShape{stride: int(stride%4) + 1, span: int64(stride/4%8) + 1}
		if stride >= 128 {
			shape = indexShape{}.norm()
		}
		disk, err := NewDiskStore(t.TempDir(), &DiskOptions{SpillThreshold: -1})
		if err != nil {
			t.Fatal(err)
		}
		small, _ := NewDiskStore(t.TempDir(), &DiskOptions{SpillThreshold: 2})
		mem := NewMemoryStore()
		// chunked keeps a stream of unknown length in pieces of 1 to 4 bytes.
		chunked := NewMemoryStore()
		chunked.limits = readLimits{first: int(stride%3) + 1, max: 4, join: 1}
		disk.shape, small.shape, mem.shape, chunked.shape = shape, shape, shape, shape
		for name, s := range map[string]Store{"memory": mem, "disk": disk, "disk-small": small, "memory-chunked": chunked} {
			var src io.Reader = newTextReader(text) // WriteString's path: the string kept
			if s == chunked {
				src = io.MultiReader(src) // a stream of unknown length
			}
			r, err := s.Write(ctx, "f", src)
			if err != nil {
				t.Fatal(err)
			}
			a := New("f", r)
			if r.LineCount() != len(want) || r.ByteLength() != int64(len(text)) {
				t.Fatalf("%s: count %d bytes %d, want %d %d", name, r.LineCount(), r.ByteLength(), len(want), len(text))
			}
			for i, w := range want {
				got, ok, err := r.Line(ctx, i)
				if err != nil || !ok || string(got) != w {
					t.Fatalf("%s: Line(%d) = %q %v %v, want %q", name, i, got, ok, err, w)
				}
			}
			s0, e0 := start%(len(want)+3)-1, start%(len(want)+3)-1+n%(len(want)+3)
			got, err := a.Cat(ctx, s0, e0)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := max(s0, 0), min(e0, len(want))
			if e0 < 0 {
				hi = len(want)
			}
			exp := []string{}
			if lo < hi {
				exp = want[lo:hi]
			}
			if diff := cmp.Diff(exp, got); diff != "" {
				t.Fatalf("%s: Cat(%d,%d) (-want +got)\n%s", name, s0, e0, diff)
			}
			all, _ := a.ReadAll(ctx)
			if !bytes.Equal(all, []byte(text)) {
				t.Fatalf("%s: ReadAll not byte-faithful", name)
			}
		}
	})
}

// numberedLine is a grep hit as the tests compare it: number and text.
type numberedLine struct {
	Line int
	Text string
}

// naiveGrep is the reference grep: every line on its own through the
// user's regexp.
func naiveGrep(g *grepPattern, text string) []numberedLine {
	want := []numberedLine{}
	for i, l := range naiveLines(text) {
		if g.line.MatchString(l) {
			want = append(want, numberedLine{i, l})
		}
	}
	return want
}

// grepArtifacts returns text as a memory artifact and a disk-spilled one.
func grepArtifacts(t *testing.T, text string) map[string]*Artifact {
	t.Helper()
	disk, err := NewDiskStore(t.TempDir(), &DiskOptions{SpillThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := WriteString(context.Background(), disk, "d", text)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.(*spoolReader).Close() })
	var parts [][]byte // pieces of 1, 7, 64 and 4,096 bytes, in turn
	for i, rest := 0, []byte(text); len(rest) > 0; i++ {
		n := min(len(rest), []int{1, 7, 64, 4096}[i%4])
		parts, rest = append(parts, rest[:n]), rest[n:]
	}
	return map[string]*Artifact{"memory": New("m", newMemoryReader([]byte(text), indexShape{})), "disk": New("d", r),
		"memory-chunked": New("c", newChunkedReader(parts, indexShape{}))}
}

// checkGrep compares Grep on the artifacts of text with naiveGrep, line
// numbers included.
func checkGrep(t *testing.T, arts map[string]*Artifact, text, pattern, flags string) {
	t.Helper()
	g, err := compileGrep(pattern, flags)
	if err != nil {
		return
	}
	want := naiveGrep(g, text)
	for name, a := range arts {
		res, err := a.Grep(context.Background(), pattern, &GrepOptions{Flags: flags})
		if err != nil {
			t.Fatal(err)
		}
		got := []numberedLine{}
		for _, l := range res.Lines {
			got = append(got, numberedLine{l.Line, l.Text})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: mode %d pattern %q flags %q (-want +got)\n%s", name, g.mode, pattern, flags, diff)
		}
	}
}

// FuzzGrep checks grep's chunked scan modes against a per-line regexp,
// line numbers included.
func FuzzGrep(f *testing.F) {
	for _, p := range []string{"a", "a$", "^b", `\s`, `[^x]+`, "(?s).", "", `\Aa|b\z`, "ab|c", `x\ny`, `\bfoo\b`, "é",
		`[0-9]{2}ab`, `a+bab`, `^ba?b$`, `fo+ ba.`, `(?i)é+oo`, `x(ab|c)*ab[^b]`, `\Bab`, `^$`, `(?m)^ab$`, `ä.b`, `(?i)ab`, `(?i)fo+B`, `(?i)bA`} {
		f.Add("a\nbab\n\nfoo bar\r\nxé\n", p, "")
	}
	f.Add("A\na", "a", "i")
	f.Add("xAB\nab\naB yy", "ab", "i")
	f.Add("12ab 3ab\nzabab ab", `[0-9]ab`, "")
	f.Add("aaab aab\nab", `a*aab`, "")
	f.Add("ab ab ab ab ab ab ab ab ab ab abc", `ab.*bc`, "")
	f.Add("\n\nx\n\n", "^$", "m")
	f.Add("a\r\nb\xff\n\xff", `\x{FFFD}|\r$`, "s")
	f.Fuzz(func(t *testing.T, text, pattern, flags string) {
		if _, err := compileGrep(pattern, flags); err == nil {
			checkGrep(t, grepArtifacts(t, text), text, pattern, flags)
		}
	})
}

// TestGrepAcrossChunks greps a ~600 KiB text, which crosses the 256 KiB
// read chunk twice (and the memory scan's chunk cuts), with anchors, empty
// matches, every flag, '\r' and invalid UTF-8, comparing line numbers and
// texts with the per-line reference: what FuzzGrep's small inputs never
// reach.
func TestGrepAcrossChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"a", "b", "ab", "\n", "\r", "\r\n", "é", "\xff", "\xe2\x82", "x", "K", "\u212a", " ", "1", "A", "foo", "Bar", "\n\n", "ab ab"}
	var b strings.Builder
	for b.Len() < 600<<10 {
		b.WriteString(pieces[rng.IntN(len(pieces))])
		if rng.IntN(5000) == 0 { // a few lines longer than a chunk boundary region
			b.WriteString(strings.Repeat("z", rng.IntN(40<<10)))
		}
	}
	text := b.String()
	if text[grepChunk-1] != '\n' { // and one line break right at a chunk edge
		text = text[:grepChunk-1] + "\n" + text[grepChunk:]
	}
	patterns := []string{"", "^", "$", "^$", "a$", "^b", `\r$`, `a\r`, `^\r?$`, "x*", `\bfoo\b`, "é", `\x{FFFD}`, "[^a]",
		"(?:ab)+$", "K", "k", "^a.b", "z{100}", `(?s)a.b`, `\Aab`, `b\z`, "foo|Bar", `1\s*A`}
	arts := grepArtifacts(t, text)
	flags := []string{"", "i", "m", "s", "ims"}
	step := 1
	if testing.Short() || raceEnabled { // regexp is ~10x slower under -race
		step = 4
	}
	for i := 0; i < len(patterns); i += step {
		p := patterns[i]
		checkGrep(t, arts, text, p, flags[i%len(flags)])
		checkGrep(t, arts, text, p, flags[(i+2)%len(flags)])
	}
}

func FuzzLowerASCII(f *testing.F) {
	f.Add([]byte("Hello, WORLD @[`{ é\xff AZaz"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var scratch []byte
		got := lowerASCII(b, &scratch)
		want := make([]byte, len(b))
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			want[i] = c
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("lowerASCII(%q) = %q, want %q", b, got, want)
		}
	})
}
