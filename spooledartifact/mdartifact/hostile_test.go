package mdartifact

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/internal/ctxtest"
)

// The hostile-input suite of the Markdown kind: inputs crafted to make
// goldmark's inline parsing quadratic stop within the parse's work budget,
// with ErrTooComplex, and every parsed query stops as soon as its context
// ends. Work is measured by the meter's units, not by the clock.

// hostileMarkdown are the inputs whose inline parsing is quadratic.
var hostileMarkdown = []string{"[a](", "![a](", "[](", "*a_", "_a*"}

// hostileArtifact stores src as a Markdown artifact of kind k.
func hostileArtifact(t *testing.T, src string, k Kind) *Artifact {
	t.Helper()
	r, err := spooledartifact.WriteString(context.Background(), spooledartifact.NewMemoryStore(), "md", src)
	if err != nil {
		t.Fatal(err)
	}
	return New("md", r, k)
}

// spent parses src with a budget and returns the units charged.
func spent(t *testing.T, ctx context.Context, src string, budget int64) (int64, error) {
	t.Helper()
	m := &meter{ctx: ctx, left: budget}
	_, err := parseWith(m, []byte(src))
	return budget - m.left, err
}

// Each quadratic input stops with ErrTooComplex once the default budget
// is spent, however large it is: the work is bounded, not the input.
func TestHostileMarkdownStopsWithinTheBudget(t *testing.T) {
	check := func(pattern string, size int, budget int64) {
		src := strings.Repeat(pattern, size/len(pattern))
		used, err := spent(t, context.Background(), src, budget)
		if !errors.Is(err, ErrTooComplex) {
			t.Errorf("%q x %d KiB: %v, want ErrTooComplex", pattern, size>>10, err)
		}
		// The last charge may overshoot by one line's scan at most.
		if limit := budget + int64(linkScanCost*len(src)+delimiterCost); used > limit {
			t.Errorf("%q x %d KiB: %d units spent, over the budget's bound %d", pattern, size>>10, used, limit)
		}
	}
	check("[a](", 100<<10, DefaultMaxParseWork)
	for _, pattern := range hostileMarkdown {
		for _, size := range []int{100 << 10, 400 << 10} {
			check(pattern, size, 4<<20) // a smaller budget keeps the suite quick
		}
	}
}

// Ordinary Markdown costs about one unit per byte, so documents up to
// Kind.MaxParseBytes parse well within the default budget, whether written
// on many lines or one.
func TestHostileBudgetIsLinearOnOrdinaryMarkdown(t *testing.T) {
	block := "# Title\n\nSome *emphasis*, a [link](http://example.com/x \"t\"), ![img](i.png), `code`, ~~strike~~, <b>html</b>, <http://a.b>, www.example.com and [ref][r].\n" +
		"- item with __strong__\n- [ ] task\n\n> quote with _em_\n\n| a | b |\n|---|---|\n| 1 | `2` |\n\n```go\nfunc f() {}\n```\n\n[r]: http://example.com/r\n\n"
	for _, oneLine := range []bool{false, true} {
		var prev int64
		for _, n := range []int{250, 500, 1000} {
			src := strings.Repeat(block, n)
			if oneLine {
				src = strings.ReplaceAll(src, "\n", " ")
			}
			used, err := spent(t, context.Background(), src, DefaultMaxParseWork)
			if err != nil {
				t.Fatalf("one line %v, %d blocks: %v", oneLine, n, err)
			}
			if used > int64(2*len(src)) {
				t.Errorf("one line %v, %d bytes: %d units, want at most 2 per byte", oneLine, len(src), used)
			}
			if prev > 0 && used > 2*prev+prev/10 {
				t.Errorf("one line %v: doubling the input took %d units after %d: not linear", oneLine, used, prev)
			}
			prev = used
		}
	}
}

// A parse checks its context at every charge and stops at the first check
// after the context ended: no unit of work is spent after that.
func TestHostileMarkdownParseStopsWhenCtxEnds(t *testing.T) {
	for _, pattern := range hostileMarkdown {
		src := strings.Repeat(pattern, (100<<10)/len(pattern))
		ctx := ctxtest.NewCountdown(100)
		_, err := spent(t, ctx, src, 1<<62)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%q: %v, want context.Canceled", pattern, err)
		}
		if n := ctx.ErrsAfterEnd(); n != 1 {
			t.Errorf("%q: the parse checked its ended context %d times, want once (it must stop at once)", pattern, n)
		}
	}
}

// Every parsed query and its forged tool report the budget's error, and a
// real deadline stops a parse the budget would let run for seconds.
func TestHostileMarkdownQueries(t *testing.T) {
	src := strings.Repeat("[a](", (100<<10)/4)
	a := hostileArtifact(t, src, Kind{MaxParseWork: 4 << 20})
	queries := map[string]func(ctx context.Context, a *Artifact) error{
		"Links":  func(ctx context.Context, a *Artifact) error { _, err := a.Links(ctx, 0, -1); return err },
		"Images": func(ctx context.Context, a *Artifact) error { _, err := a.Images(ctx, 0, -1); return err },
		"Text":   func(ctx context.Context, a *Artifact) error { _, err := a.Text(ctx, 0, -1); return err },
		"AST":    func(ctx context.Context, a *Artifact) error { _, err := a.AST(ctx, 0, -1); return err },
	}
	for name, q := range queries {
		if err := q(context.Background(), a); !errors.Is(err, ErrTooComplex) {
			t.Errorf("%s: %v, want ErrTooComplex", name, err)
		}
	}
	for _, m := range methods() {
		switch m.Tool {
		case "artifact_md_links", "artifact_md_images", "artifact_md_text", "artifact_md_ast":
		default:
			continue
		}
		if _, err := m.Call(context.Background(), a, map[string]any{}); !errors.Is(err, ErrTooComplex) {
			t.Errorf("%s: %v, want ErrTooComplex", m.Tool, err)
		}
	}
	// Without a budget worth the name, only the context stops the parse.
	unbounded := hostileArtifact(t, src, Kind{MaxParseWork: 1 << 62})
	for name, q := range queries {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := q(ctx, unbounded)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s with a 100ms deadline: %v, want context.DeadlineExceeded", name, err)
		}
	}
}
