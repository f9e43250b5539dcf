package spooledartifact

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// lineStarts is the reference: the byte offset of every line start.
func lineStarts(b []byte) []int64 {
	if len(b) == 0 {
		return nil
	}
	starts := []int64{0}
	for i, c := range b {
		if c == '\n' && i+1 < len(b) { // a final '\n' starts no line
			starts = append(starts, int64(i+1))
		}
	}
	return starts
}

// indexTexts are shapes of content the index must stay small and fast on.
func indexTexts() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var mixed bytes.Buffer
	for mixed.Len() < 3<<20 {
		n := []int{0, 1, 40, 2000, 70 << 10, 300 << 10}[rng.IntN(6)]
		mixed.WriteString(strings.Repeat("m", n))
		mixed.WriteByte('\n')
	}
	lines := func(n, width int) []byte {
		return bytes.Repeat([]byte(strings.Repeat("x", width-1)+"\n"), n)
	}
	return map[string][]byte{
		"newlines":      bytes.Repeat([]byte{'\n'}, 4<<20),
		"log lines":     lines(40000, 100),
		"3 KiB lines":   lines(1000, 3<<10),
		"300 KiB lines": lines(12, 300<<10),
		"one 5 MiB":     bytes.Repeat([]byte{'y'}, 5<<20),
		"mixed":         mixed.Bytes(),
	}
}

// TestIndexBounded checks the checkpoint spacing on every shape of content:
// at most one checkpoint per defaultIndexSpan bytes (bounded memory however
// dense the newlines), and every line reachable by scanning fewer than
// defaultIndexStride lines or defaultIndexSpan bytes, and always fewer than
// indexMaxSpans spans, from its checkpoint.
func TestIndexBounded(t *testing.T) {
	shape := indexShape{}.norm()
	for name, text := range indexTexts() {
		t.Run(name, func(t *testing.T) {
			b := newIndexBuilder(shape)
			// Odd write sizes: checkpoints must not depend on how the bytes arrive.
			for rest := text; len(rest) > 0; {
				n := min(len(rest), 77777)
				b.Write(rest[:n])
				rest = rest[n:]
			}
			idx := b.done()
			starts := lineStarts(text)
			if idx.lines != len(starts) || idx.size != int64(len(text)) {
				t.Fatalf("lines %d size %d, want %d %d", idx.lines, idx.size, len(starts), len(text))
			}
			if max := len(text)/defaultIndexSpan + 1; len(idx.marks) > max {
				t.Errorf("%d checkpoints for %d bytes, want at most %d", len(idx.marks), len(text), max)
			}
			for i, st := range starts {
				l, off := idx.checkpoint(i)
				if l > i || off != starts[l] {
					t.Fatalf("checkpoint(%d) = line %d at %d, want a line start at or before", i, l, off)
				}
				d := st - off
				if d >= shape.span*indexMaxSpans || (i-l >= shape.stride && d >= shape.span) {
					t.Fatalf("line %d is %d lines and %d bytes past its checkpoint", i, i-l, d)
				}
			}
		})
	}
}

// TestIndexLookups reads lines around checkpoints through both reader
// paths (memory and file) with the default spacing, which the fuzz test,
// with its tiny inputs, does not reach.
func TestIndexLookups(t *testing.T) {
	ctx := context.Background()
	disk := mustDisk(t, &DiskOptions{SpillThreshold: -1})
	for name, text := range indexTexts() {
		starts := lineStarts(text)
		want := func(i int) string {
			end := int64(len(text))
			if i+1 < len(starts) {
				end = starts[i+1] - 1
			} else if text[end-1] == '\n' {
				end--
			}
			return string(text[starts[i]:end])
		}
		r, err := disk.Write(ctx, "x", bytes.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		for rname, r := range map[string]Reader{"memory": newMemoryReader(text, indexShape{}), "file": r} {
			idx := r.(*spoolReader).idx
			probe := []int{0, len(starts) - 1, len(starts) / 2}
			for _, m := range idx.marks {
				probe = append(probe, m.line-1, m.line, m.line+1, m.line+63)
			}
			for _, i := range probe {
				if i < 0 || i >= len(starts) {
					continue
				}
				got, ok, err := r.Line(ctx, i)
				if err != nil || !ok || string(got) != want(i) {
					t.Fatalf("%s %s: Line(%d) = %d bytes %v %v, want %d bytes", name, rname, i, len(got), ok, err, len(want(i)))
				}
			}
			a := New("x", r)
			tail, err := a.Tail(ctx, 3)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(len(tail)) != fmt.Sprint(min(3, len(starts))) || tail[len(tail)-1] != want(len(starts)-1) {
				t.Fatalf("%s %s: Tail wrong", name, rname)
			}
		}
		r.(*spoolReader).Close()
	}
}

// BenchmarkTailNewlines is Tail(10) of 64 MiB of "\n" from a file: the
// lookup scans at most one span from its checkpoint.
func BenchmarkTailNewlines(b *testing.B) {
	ctx := context.Background()
	disk, err := NewDiskStore(b.TempDir(), &DiskOptions{SpillThreshold: -1})
	if err != nil {
		b.Fatal(err)
	}
	r, err := disk.Write(ctx, "nl", bytes.NewReader(bytes.Repeat([]byte{'\n'}, 64<<20)))
	if err != nil {
		b.Fatal(err)
	}
	defer r.(*spoolReader).Close()
	a := New("nl", r)
	for b.Loop() {
		if _, err := a.Tail(ctx, 10); err != nil {
			b.Fatal(err)
		}
	}
}
