package spooledartifact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ebbforge/adk/forge"
	"github.com/google/go-cmp/cmp"
)

const greek = "alpha\nbeta\ngamma\ndelta\nepsilon"

// stores returns a fresh instance of every store flavour: memory, disk with
// everything spilled to files (tiny threshold) and disk kept in memory.
func stores(t *testing.T) map[string]Store {
	t.Helper()
	return map[string]Store{
		"memory":       NewMemoryStore(),
		"disk-spilled": mustDisk(t, &DiskOptions{SpillThreshold: -1, IndexStride: 2}),
		"disk-default": mustDisk(t, nil),
	}
}

func mustDisk(t *testing.T, opts *DiskOptions) *DiskStore {
	t.Helper()
	s, err := NewDiskStore(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func artifactOf(t *testing.T, s Store, text string) *Artifact {
	t.Helper()
	r, err := WriteString(context.Background(), s, "a1", text)
	if err != nil {
		t.Fatal(err)
	}
	return New("a1", r)
}

func TestArtifactQueries(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			a := artifactOf(t, s, greek)
			tests := []struct {
				name string
				got  func() ([]string, error)
				want []string
			}{
				{"head3", func() ([]string, error) { return a.Head(ctx, 3) }, []string{"alpha", "beta", "gamma"}},
				{"head default", func() ([]string, error) { return a.Head(ctx, 0) }, strings.Split(greek, "\n")},
				{"tail2", func() ([]string, error) { return a.Tail(ctx, 2) }, []string{"delta", "epsilon"}},
				{"tail default", func() ([]string, error) { return a.Tail(ctx, 0) }, strings.Split(greek, "\n")},
				{"cat 1,4", func() ([]string, error) { return a.Cat(ctx, 1, 4) }, []string{"beta", "gamma", "delta"}},
				{"cat -5,2", func() ([]string, error) { return a.Cat(ctx, -5, 2) }, []string{"alpha", "beta"}},
				{"cat 3,100", func() ([]string, error) { return a.Cat(ctx, 3, 100) }, []string{"delta", "epsilon"}},
				{"cat end<start", func() ([]string, error) { return a.Cat(ctx, 4, 2) }, []string{}},
				{"cat all", func() ([]string, error) { return a.Cat(ctx, 0, -1) }, strings.Split(greek, "\n")},
				{"grep a$", func() ([]string, error) { return grepTexts(ctx, a, "a$", "") }, []string{"alpha", "beta", "gamma", "delta"}},
				{"grep ^a anchored like JS y", func() ([]string, error) { return grepTexts(ctx, a, "^a", "") }, []string{"alpha"}},
				{"grep literal", func() ([]string, error) { return grepTexts(ctx, a, "lt", "") }, []string{"delta"}},
				{"grep i", func() ([]string, error) { return grepTexts(ctx, a, "ALPHA|Beta", "i") }, []string{"alpha", "beta"}},
				{"grep none", func() ([]string, error) { return grepTexts(ctx, a, "zeta", "") }, []string{}},
				{"grep empty pattern", func() ([]string, error) { return grepTexts(ctx, a, "", "") }, strings.Split(greek, "\n")},
				{"grep prefilter", func() ([]string, error) { return grepTexts(ctx, a, `[a-z]ps[a-z]+`, "") }, []string{"epsilon"}},
				{"grep class never crosses lines", func() ([]string, error) { return grepTexts(ctx, a, `a\s+b`, "") }, []string{}},
				{"grep s flag", func() ([]string, error) { return grepTexts(ctx, a, `a.b`, "s") }, []string{}},
				{"grep m flag", func() ([]string, error) { return grepTexts(ctx, a, `^g`, "m") }, []string{"gamma"}},
				{"grep \\A", func() ([]string, error) { return grepTexts(ctx, a, `\Ad`, "") }, []string{"delta"}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got, err := tt.got()
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("(-want +got)\n%s", diff)
					}
				})
			}
		})
	}
}

func grepTexts(ctx context.Context, a *Artifact, pattern, flags string) ([]string, error) {
	res, err := a.Grep(ctx, pattern, &GrepOptions{Flags: flags})
	if err != nil {
		return nil, err
	}
	return res.Texts(), nil
}

func TestLineSemantics(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		text  string
		lines []string
	}{
		{"", []string{}},
		{"a\nb\n", []string{"a", "b"}},
		{"a\nb\n\n", []string{"a", "b", ""}},
		{"a\r\nb", []string{"a\r", "b"}},
		{"\n", []string{""}},
		{"héllo\nwörld", []string{"héllo", "wörld"}},
		{"bad\xff\xfe\nok", []string{"bad\xff\xfe", "ok"}},
	}
	for name, s := range stores(t) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.text, func(t *testing.T) {
				a := artifactOf(t, s, tt.text)
				n, _ := a.LineCount(ctx)
				if n != len(tt.lines) {
					t.Errorf("LineCount = %d, want %d", n, len(tt.lines))
				}
				b, _ := a.ByteLength(ctx)
				if b != int64(len(tt.text)) {
					t.Errorf("ByteLength = %d, want %d", b, len(tt.text))
				}
				got, err := a.Cat(ctx, 0, -1)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.lines, got); diff != "" {
					t.Errorf("Cat (-want +got)\n%s", diff)
				}
				all, err := a.ReadAll(ctx)
				if err != nil || string(all) != tt.text {
					t.Errorf("ReadAll = %q, %v; want %q", all, err, tt.text)
				}
				var buf bytes.Buffer
				if _, err := a.Copy(ctx, &buf); err != nil || buf.String() != tt.text {
					t.Errorf("Copy not byte-faithful: %q", buf.String())
				}
				// grep never breaks on invalid UTF-8 and finds every line with ""
				res, err := a.Grep(ctx, "", nil)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.lines, res.Texts()); diff != "" {
					t.Errorf("Grep(\"\") (-want +got)\n%s", diff)
				}
				r := a.Reader()
				if _, ok, err := r.Line(ctx, len(tt.lines)); ok || err != nil {
					t.Errorf("Line(out of range) = ok %v, err %v", ok, err)
				}
				if _, ok, err := r.Line(ctx, -1); ok || err != nil {
					t.Errorf("Line(-1) = ok %v, err %v", ok, err)
				}
			})
		}
	}
}

func TestGrepOptions(t *testing.T) {
	ctx := context.Background()
	text := "e0\nx1\nx2\ne3\nx4\nx5\nx6\nx7\ne8\nx9"
	for name, s := range stores(t) {
		a := artifactOf(t, s, text)
		t.Run(name+"/maxMatches", func(t *testing.T) {
			res, err := a.Grep(ctx, "e", &GrepOptions{MaxMatches: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Truncated || res.Matches != 2 || res.Format(true) != "0:e0\n3:e3" {
				t.Errorf("got %+v", res)
			}
			res, _ = a.Grep(ctx, "e", &GrepOptions{MaxMatches: 3})
			if res.Truncated || res.Matches != 3 {
				t.Errorf("exact cap reported truncated: %+v", res)
			}
		})
		t.Run(name+"/maxBytes", func(t *testing.T) {
			res, _ := a.Grep(ctx, "e", &GrepOptions{MaxBytes: 4})
			if !res.Truncated || res.Matches != 1 {
				t.Errorf("got %+v", res)
			}
		})
		t.Run(name+"/context", func(t *testing.T) {
			res, err := a.Grep(ctx, "e", &GrepOptions{Before: 1, After: 1})
			if err != nil {
				t.Fatal(err)
			}
			want := "0:e0\n1-x1\n2-x2\n3:e3\n4-x4\n--\n7-x7\n8:e8\n9-x9"
			if got := res.Format(true); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if res.Matches != 3 {
				t.Errorf("Matches = %d", res.Matches)
			}
		})
	}
}

// TestGrepLongInputs covers the windowed and chunked scans: matches on
// both sides of window and chunk boundaries, in every mode.
func TestGrepLongInputs(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	var want []string
	for i := 0; b.Len() < grepChunk+grepChunk/2; i++ {
		line := fmt.Sprintf("line %07d filler filler filler", i)
		if i%1013 == 0 {
			line += " Needle-42 END"
			want = append(want, line)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	text := b.String()
	for name, s := range stores(t) {
		a := artifactOf(t, s, text)
		for _, p := range []struct{ pattern, flags string }{
			{"Needle-42", ""}, {"needle-42", "i"}, {`Needle-\d+ END$`, ""}, {`[A-Z]eedle-42`, ""},
			{`\d{7} filler filler filler N`, ""}, {`(?i)NEEDLE-42 end`, ""},
		} {
			res, err := a.Grep(ctx, p.pattern, &GrepOptions{Flags: p.flags})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, res.Texts()); diff != "" {
				t.Errorf("%s %q: %d matches, want %d", name, p.pattern, len(res.Texts()), len(want))
			}
		}
	}
}

// TestGrepStreamLongLines drives the stream scanner with tiny buffers: lines
// longer than a chunk grow the buffer, lines longer than maxLine are matched
// whole (a match past maxLine, an anchor at the line's real end) and
// reported cut to maxLine, and numbering stays right.
func TestGrepStreamLongLines(t *testing.T) {
	long := strings.Repeat("x", 40) + "needle" + strings.Repeat("y", 30) // 76 bytes
	huge := "needle" + strings.Repeat("z", 200)                          // > maxLine
	lost := strings.Repeat("z", 200) + "needle"                          // match past maxLine
	exact := "needle" + strings.Repeat("w", 122)                         // exactly maxLine
	// needle across the maxLine cut, and across two reads of the line's rest
	straddle := strings.Repeat("s", 125) + "needle" + strings.Repeat("s", 9)
	straddle2 := strings.Repeat("t", 253) + "needle" + strings.Repeat("t", 9)
	text := strings.Join([]string{"a needle", long, "b", huge, "needle c", lost, exact, "needle", straddle, straddle2, huge}, "\n")
	type hit struct {
		Line int
		Len  int
		Cut  bool
	}
	all := []hit{{0, 8, false}, {1, 76, false}, {3, 128, true}, {4, 8, false}, {5, 128, true}, {6, 128, false}, {7, 6, false},
		{8, 128, true}, {9, 128, true}, {10, 128, true}}
	for _, tc := range []struct {
		pattern string
		want    []hit
	}{
		{"needle", all},
		{"ne+dle", all},
		{"(?i)NEEDLE", all},
		{"needle$", []hit{{0, 8, false}, {5, 128, true}, {7, 6, false}}},
		{`z\z`, []hit{{3, 128, true}, {10, 128, true}}},
		{"^z+$", nil},
		{"^[a-z]{129,}$", []hit{{3, 128, true}, {5, 128, true}, {8, 128, true}, {9, 128, true}, {10, 128, true}}},
	} {
		g, err := compileGrep(tc.pattern, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []hit
		err = scanStream(context.Background(), strings.NewReader(text), g, 16, 128, func(line int, b []byte, cut bool) bool {
			got = append(got, hit{line, len(b), cut})
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s stream (-want +got)\n%s", tc.pattern, diff)
		}
		got = nil
		err = scanMemory(context.Background(), []byte(text), g, 128, func(line int, b []byte, cut bool) bool {
			got = append(got, hit{line, len(b), cut})
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s memory (-want +got)\n%s", tc.pattern, diff)
		}
	}
}

func TestGrepRegexErrors(t *testing.T) {
	a := New("x", newMemoryReader([]byte(greek), indexShape{}))
	tests := []struct {
		pattern, flags string
		want           error
	}{
		{"(?=a)", "", ErrUnsupportedRegex},
		{"(?!a)", "", ErrUnsupportedRegex},
		{"(?<=a)b", "", ErrUnsupportedRegex},
		{"(?<!a)b", "", ErrUnsupportedRegex},
		{"(?>a)", "", ErrUnsupportedRegex},
		{`(a)\1`, "", ErrUnsupportedRegex},
		{`(?<n>a)\k<n>`, "", ErrUnsupportedRegex},
		{"(a", "", ErrInvalidRegex},
		{"a", "g", ErrInvalidRegex},
		{"a", "y", ErrInvalidRegex},
		{"a", "gi", ErrInvalidRegex},
		{"a", "u", ErrInvalidRegex},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+"/"+tt.flags, func(t *testing.T) {
			_, err := a.Grep(context.Background(), tt.pattern, &GrepOptions{Flags: tt.flags})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), "spooledartifact:") {
				t.Errorf("message lacks package prefix: %v", err)
			}
			if strings.Contains(err.Error(), "((?") || strings.Contains(err.Error(), `(\`) {
				t.Errorf("doubled parenthesis in %q", err)
			}
		})
	}
	// Go 1.22+ accepts JS-style named groups.
	res, err := a.Grep(context.Background(), `(?<first>al)pha`, &GrepOptions{Flags: "ims"})
	if err != nil || len(res.Lines) != 1 {
		t.Fatalf("named group: %v %+v", err, res)
	}
}

// plainReader hides lineRanger so Artifact's fallback path is tested.
type plainReader struct{ r Reader }

func (p plainReader) ByteLength() int64 { return p.r.ByteLength() }
func (p plainReader) LineCount() int    { return p.r.LineCount() }
func (p plainReader) Line(ctx context.Context, i int) ([]byte, bool, error) {
	return p.r.Line(ctx, i)
}
func (p plainReader) Open(ctx context.Context) (io.ReadCloser, error) { return p.r.Open(ctx) }

func TestForeignReader(t *testing.T) {
	ctx := context.Background()
	a := New("x", plainReader{newMemoryReader([]byte(greek+"\n"), indexShape{})})
	got, err := a.Cat(ctx, 3, -1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"delta", "epsilon"}, got); diff != "" {
		t.Error(diff)
	}
	res, err := a.Grep(ctx, "ps", nil)
	if err != nil || res.Format(true) != "4:epsilon" {
		t.Errorf("grep: %v %q", err, res.Format(true))
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := New("x", newMemoryReader([]byte(greek), indexShape{}))
	if _, err := a.Head(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("Head: %v", err)
	}
	if _, err := a.Grep(ctx, "a", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Grep: %v", err)
	}
	if _, err := a.ReadAll(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadAll: %v", err)
	}
	if _, err := NewMemoryStore().Write(ctx, "x", strings.NewReader("a")); !errors.Is(err, context.Canceled) {
		t.Errorf("Write: %v", err)
	}
}

func TestEstimateTokens(t *testing.T) {
	ctx := context.Background()
	text := "line one\r\nline two\r\n\r\n"
	a := New("x", newMemoryReader([]byte(text), indexShape{}))
	got, err := a.EstimateTokens(ctx, forge.EncodingCL100K)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := new(forge.Estimators).Estimate(text, forge.EncodingCL100K)
	if got != want || got == 0 {
		t.Errorf("EstimateTokens = %d, want %d", got, want)
	}
	if _, err := a.EstimateTokens(ctx, "nope"); !errors.Is(err, forge.ErrUnknownTokenEncoding) {
		t.Errorf("unknown encoding: %v", err)
	}
}

func TestEstimateChunked(t *testing.T) {
	// Count characters so chunking must be exact: every byte counted once.
	var b strings.Builder
	for b.Len() < 3*tokenChunkBytes {
		b.WriteString("some words héllo\n")
	}
	b.WriteString(strings.Repeat("x", tokenChunkBytes+5)) // no newline: forced cut
	text := b.String()
	n, err := estimateStream(context.Background(), newMemoryReader([]byte(text), indexShape{}),
		func(s string) (int, error) { return len(s), nil })
	if err != nil || n != len(text) {
		t.Errorf("chunked count = %d, %v; want %d", n, err, len(text))
	}
}

// TestEstimateChunkBoundary: content of up to tokenChunkBytes is counted in
// one call, as documented (its last '\n' must not cut it), and a chunk never
// exceeds tokenChunkBytes.
func TestEstimateChunkBoundary(t *testing.T) {
	ctx := context.Background()
	text := func(n int) string { return "\n" + strings.Repeat("b", n-1) } // a cut would fall after byte 0
	tests := []struct {
		size   int
		chunks []int // the lengths counted, in order
	}{
		{tokenChunkBytes - 1, []int{tokenChunkBytes - 1}},
		{tokenChunkBytes, []int{tokenChunkBytes}},
		{tokenChunkBytes + 1, []int{1, tokenChunkBytes}},
		{0, []int{0}},
	}
	for _, tt := range tests {
		var chunks []int
		s := ""
		if tt.size > 0 {
			s = text(tt.size)
		}
		n, err := estimateStream(ctx, newMemoryReader([]byte(s), indexShape{}),
			func(s string) (int, error) { chunks = append(chunks, len(s)); return len(s), nil })
		if err != nil || n != tt.size {
			t.Errorf("size %d: count = %d, %v", tt.size, n, err)
		}
		if diff := cmp.Diff(tt.chunks, chunks); diff != "" {
			t.Errorf("size %d: chunks (-want +got)\n%s", tt.size, diff)
		}
	}
	// The same through EstimateTokens: exact at tokenChunkBytes.
	s := text(tokenChunkBytes)
	got, err := New("x", newMemoryReader([]byte(s), indexShape{})).EstimateTokens(ctx, forge.EncodingClaude)
	if want, _ := new(forge.Estimators).Estimate(s, forge.EncodingClaude); got != want || err != nil {
		t.Errorf("EstimateTokens of tokenChunkBytes bytes = %d, %v; want the exact %d", got, err, want)
	}
}

// TestCatBounds pins Cat's clamping: the original's [start, end) with
// end < start empty, and ToEnd (any negative end) for "through the last
// line".
func TestCatBounds(t *testing.T) {
	ctx := context.Background()
	a := New("x", newMemoryReader([]byte(greek), indexShape{}))
	all := strings.Split(greek, "\n")
	tests := []struct {
		start, end int
		want       []string
	}{
		{1, 4, all[1:4]},
		{-5, 2, all[:2]},
		{3, 100, all[3:]},
		{3, 2, []string{}},
		{3, 3, []string{}},
		{7, 9, []string{}},
		{0, ToEnd, all},
		{2, ToEnd, all[2:]},
		{2, -7, all[2:]},
		{9, ToEnd, []string{}},
	}
	for _, tt := range tests {
		got, err := a.Cat(ctx, tt.start, tt.end)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Cat(%d, %d) (-want +got)\n%s", tt.start, tt.end, diff)
		}
	}
}
