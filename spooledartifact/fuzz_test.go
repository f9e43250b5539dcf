package spooledartifact

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// naiveLines is the reference line split: '\n' only, "" has none.
func naiveLines(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, "\n")
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
		disk.shape, small.shape, mem.shape = shape, shape, shape
		for name, s := range map[string]Store{"memory": mem, "disk": disk, "disk-small": small} {
			r, err := WriteString(ctx, s, "f", text)
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

// FuzzGrep checks grep's chunked scan modes against a per-line regexp.
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
	f.Fuzz(func(t *testing.T, text, pattern, flags string) {
		g, err := compileGrep(pattern, flags)
		if err != nil {
			return
		}
		want := []string{}
		for _, l := range naiveLines(text) {
			if g.line.MatchString(l) {
				want = append(want, l)
			}
		}
		ctx := context.Background()
		mem := New("m", newMemoryReader([]byte(text), indexShape{}))
		disk, _ := NewDiskStore(t.TempDir(), &DiskOptions{SpillThreshold: -1})
		r, err := WriteString(ctx, disk, "d", text)
		if err != nil {
			t.Fatal(err)
		}
		for name, a := range map[string]*Artifact{"memory": mem, "disk": New("d", r)} {
			res, err := a.Grep(ctx, pattern, &GrepOptions{Flags: flags})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, res.Texts()); diff != "" {
				t.Fatalf("%s: mode %d pattern %q (-want +got)\n%s", name, g.mode, pattern, diff)
			}
		}
	})
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
