package spooledartifact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/heapwatch"
	"github.com/google/go-cmp/cmp"
)

// bigText is n bytes of numbered 64-byte lines ("line 0000000 xxx…\n").
func bigText(n int) string {
	var b strings.Builder
	b.Grow(n)
	for i := 0; b.Len()+64 <= n; i++ {
		s := "line " + strconv.Itoa(i)
		b.WriteString(s)
		b.WriteString(strings.Repeat("x", 63-len(s)))
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkCatWholeArtifact is artifact_cat{} on a 64 MiB artifact through
// the forged tool: before the answer cap it returned (and allocated) the
// whole artifact several times over.
func BenchmarkCatWholeArtifact(b *testing.B) {
	ctx := context.Background()
	s := NewMemoryStore()
	a, err := SpoolString(ctx, s, "big", nil, bigText(64<<20))
	if err != nil {
		b.Fatal(err)
	}
	reg, err := forgeTools([]*forge.ToolCall{makeCall(b, "big", a, false)}, 0)
	if err != nil {
		b.Fatal(err)
	}
	tl, _ := reg.Get(ToolCat)
	inv := forge.Invocation{CallID: strings.Repeat("b", 64)}
	b.ReportAllocs()
	var size int
	for b.Loop() {
		out, err := tl.Execute(ctx, []byte(`{"callId":"big"}`), inv, nil)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out.Text())
	}
	b.ReportMetric(float64(size), "answer-bytes")
}

// toolStores are the two stores the base tools are tested on: memory, and disk
// with every artifact spilled to a file.
func toolStores(t *testing.T) map[string]Store {
	t.Helper()
	disk, err := NewDiskStore(t.TempDir(), &DiskOptions{SpillThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Store{"memory": NewMemoryStore(), "disk": disk}
}

// forgeOne forges the base tools over one artifact holding text, id "c".
func forgeOne(t *testing.T, s Store, text string, maxAnswerBytes int) *forge.Registry {
	t.Helper()
	reg, err := forgeTools([]*forge.ToolCall{makeCall(t, "c", spoolText(t, s, "c", nil, text), false)}, maxAnswerBytes)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// continueRe finds the start that continues a capped answer.
var continueRe = regexp.MustCompile(` with start=(\d+) to continue\)$`)

// splitNote splits a capped answer into its lines part and the start=K its
// note names (-1: no continuation); note is "" when the answer is whole.
func splitNote(t *testing.T, out string) (body, note string, next int) {
	t.Helper()
	i := strings.LastIndex(out, "\n(truncated: answer capped at ")
	if i < 0 {
		return out, "", -1
	}
	body, note, next = out[:i], out[i+1:], -1
	if m := continueRe.FindStringSubmatch(note); m != nil {
		k, err := strconv.Atoi(m[1])
		if err != nil {
			t.Fatalf("note %q: %v", note, err)
		}
		next = k
	}
	return body, note, next
}

func TestBaseToolsAnswerCap(t *testing.T) {
	text := bigText(300 << 10) // 4800 lines of 64 bytes, and an empty last line
	lines := naiveLines(text)
	for name, s := range toolStores(t) {
		t.Run(name, func(t *testing.T) {
			reg := forgeOne(t, s, text, 0)
			perLine := 64 // a line and its '\n'
			tests := []struct {
				tool, args string
				first      int // first line of the range
			}{
				{ToolCat, `{"callId":"c"}`, 0},
				{ToolCat, `{"callId":"c","start":100}`, 100},
				{ToolHead, `{"callId":"c","n":1000000000}`, 0},
				{ToolTail, `{"callId":"c","n":4000}`, len(lines) - 4000},
				{ToolGrep, `{"callId":"c","pattern":"x"}`, 0},
				{ToolGrep, `{"callId":"c","pattern":"x","start":7}`, 7},
			}
			for _, tt := range tests {
				t.Run(tt.tool+tt.args, func(t *testing.T) {
					out, err := call(t, reg, tt.tool, tt.args)
					if err != nil {
						t.Fatal(err)
					}
					if len(out) > DefaultMaxAnswerBytes {
						t.Errorf("answer is %d bytes, over the %d cap", len(out), DefaultMaxAnswerBytes)
					}
					body, note, next := splitNote(t, out)
					shown := next - tt.first
					if note == "" || shown < (DefaultMaxAnswerBytes-200)/perLine || shown > DefaultMaxAnswerBytes/perLine {
						t.Fatalf("note %q after %d lines", note, shown)
					}
					wantNote := "(truncated: answer capped at 65536 bytes; use " + tt.tool + " with start=" + strconv.Itoa(next) + " to continue)"
					if tt.tool != ToolGrep {
						wantNote = "(truncated: answer capped at 65536 bytes; use artifact_cat with start=" + strconv.Itoa(next) + " to continue)"
					}
					if note != wantNote {
						t.Errorf("note %q, want %q", note, wantNote)
					}
					if want := strings.Join(lines[tt.first:next], "\n"); body != want {
						t.Errorf("body is not lines [%d, %d)", tt.first, next)
					}
				})
			}
		})
	}
}

// TestBaseToolsContinue reads a whole artifact back through capped answers,
// following each note's start.
func TestBaseToolsContinue(t *testing.T) {
	text := bigText(20 << 10)
	lines := naiveLines(text)
	var matching []string
	for _, l := range lines {
		if strings.Contains(l, "7") {
			matching = append(matching, l)
		}
	}
	for name, s := range toolStores(t) {
		t.Run(name, func(t *testing.T) {
			reg := forgeOne(t, s, text, 1000)
			for _, tt := range []struct {
				tool, args string
				want       []string
			}{
				{ToolCat, `{"callId":"c","start":%d}`, lines},
				{ToolGrep, `{"callId":"c","pattern":"7","start":%d}`, matching},
			} {
				var got []string
				calls := 0
				for next := 0; next >= 0; calls++ {
					if calls > 1000 {
						t.Fatal("no end")
					}
					out, err := call(t, reg, tt.tool, fmt.Sprintf(tt.args, next))
					if err != nil {
						t.Fatal(err)
					}
					if len(out) > 1000 {
						t.Fatalf("answer of %d bytes", len(out))
					}
					var body string
					body, _, next = splitNote(t, out)
					got = append(got, strings.Split(body, "\n")...)
				}
				if calls < 3 {
					t.Errorf("%s: %d calls: the cap did not apply", tt.tool, calls)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: lines read back (-want +got)\n%s", tt.tool, diff)
				}
			}
		})
	}
}

func TestBaseToolsLongLine(t *testing.T) {
	long := strings.Repeat("é", 50<<10) // 100 KiB, 2-byte runes
	for name, s := range toolStores(t) {
		t.Run(name, func(t *testing.T) {
			reg := forgeOne(t, s, long+"\nnext\n"+long, 0)
			for _, tt := range []struct{ tool, args, note string }{
				{ToolCat, `{"callId":"c"}`, "(truncated: answer capped at 65536 bytes; line 0 is longer and was cut; use artifact_cat with start=1 to continue)"},
				{ToolCat, `{"callId":"c","start":1}`, "(truncated: answer capped at 65536 bytes; use artifact_cat with start=2 to continue)"},
				{ToolCat, `{"callId":"c","start":2}`, "(truncated: answer capped at 65536 bytes; line 2 is longer and was cut)"},
				{ToolGrep, `{"callId":"c","pattern":"é","lineNumbers":true}`, "(truncated: answer capped at 65536 bytes; line 0 is longer and was cut; use artifact_grep with start=1 to continue)"},
			} {
				out, err := call(t, reg, tt.tool, tt.args)
				if err != nil {
					t.Fatal(err)
				}
				body, note, _ := splitNote(t, out)
				if note != tt.note {
					t.Errorf("%s %s: note %q, want %q", tt.tool, tt.args, note, tt.note)
				}
				if len(out) > DefaultMaxAnswerBytes || !utf8.ValidString(body) || (strings.Contains(note, "cut") && len(body) < DefaultMaxAnswerBytes-200) {
					t.Errorf("%s %s: %d bytes, valid UTF-8 %v", tt.tool, tt.args, len(out), utf8.ValidString(body))
				}
			}
		})
	}
}

func TestBaseToolsCapOptions(t *testing.T) {
	text := bigText(100 << 10)
	s := NewMemoryStore()
	whole := strings.TrimSuffix(text, "\n") // the last '\n' ends the last line
	unlimited := forgeOne(t, s, text, -1)
	for _, tool := range []string{ToolCat, ToolHead, ToolTail} {
		args := `{"callId":"c","n":100000}`
		if tool == ToolCat {
			args = `{"callId":"c"}`
		}
		if out, err := call(t, unlimited, tool, args); err != nil || out != whole {
			t.Errorf("%s unlimited: %d bytes, %v; want the whole %d", tool, len(out), err, len(whole))
		}
	}
	if out, _ := call(t, unlimited, ToolGrep, `{"callId":"c","pattern":"line"}`); out != strings.TrimSuffix(whole, "\n") {
		t.Errorf("grep unlimited: %d bytes", len(out))
	}
	small := forgeOne(t, s, text, 500)
	out, _ := call(t, small, ToolCat, `{"callId":"c"}`)
	if want := strings.Join(strings.Split(whole, "\n")[:5], "\n") + "\n(truncated: answer capped at 500 bytes; use artifact_cat with start=5 to continue)"; out != want {
		t.Errorf("cap 500: %q\nwant %q", out, want)
	}
	// Under the cap nothing changes, whatever the cap.
	for _, limit := range []int{0, 500, -1} {
		reg := forgeOne(t, s, greek, limit)
		if out, _ := call(t, reg, ToolCat, `{"callId":"c"}`); out != greek {
			t.Errorf("%d: cat = %q", limit, out)
		}
		if out, _ := call(t, reg, ToolCat, `{"callId":"c","start":9}`); out != "(empty list)" {
			t.Errorf("%d: empty cat = %q", limit, out)
		}
	}
}

// TestGrepAnswerMatchesFormat checks the streamed grep answer against the
// collected GrepResult rendering, options by options, when nothing is capped.
func TestGrepAnswerMatchesFormat(t *testing.T) {
	ctx := context.Background()
	text := "a1\nb\nc\na2\nd\ne\nf\ng\na3\na4\nh\n\na5"
	a := spoolText(t, NewMemoryStore(), "g", nil, text).(*Artifact)
	for _, pattern := range []string{"a", "^a[13]", "zzz", "^$", "."} {
		for _, c := range []int{0, 1, 2, 5} {
			for _, mm := range []int{0, 1, 3} {
				for _, mb := range []int{0, 1, 7} {
					for _, numbers := range []bool{false, true} {
						res, err := a.Grep(ctx, pattern, &GrepOptions{MaxMatches: mm, MaxBytes: mb, Before: c, After: c})
						if err != nil {
							t.Fatal(err)
						}
						want := "(empty list)"
						if len(res.Lines) > 0 {
							want = res.Format(numbers)
							if res.Truncated {
								want += grepCapsNote(res.Matches)
							}
						}
						g := grepQuery{pattern: pattern, maxMatches: mm, maxBytes: mb, context: c, lineNumbers: numbers}
						got, err := grepAnswer(ctx, a, g, DefaultMaxAnswerBytes)
						if err != nil || got != want {
							t.Errorf("%+v: got %q, %v\nwant %q", g, got, err, want)
						}
					}
				}
			}
		}
	}
}

// TestBaseToolsBoundedMemory: a query allocates about the cap, not the
// artifact (8 MiB here; BenchmarkCatWholeArtifact measures 64 MiB).
func TestBaseToolsBoundedMemory(t *testing.T) {
	text := bigText(8 << 20)
	for name, s := range toolStores(t) {
		reg := forgeOne(t, s, text, 0)
		for _, tt := range []struct{ tool, args string }{
			{ToolCat, `{"callId":"c"}`},
			{ToolHead, `{"callId":"c","n":1000000000}`},
			{ToolTail, `{"callId":"c","n":1000000000}`},
			{ToolGrep, `{"callId":"c","pattern":"line"}`},
			{ToolGrep, `{"callId":"c","pattern":"line","context":3,"lineNumbers":true}`},
		} {
			var err error
			n := heapwatch.AllocatedBy(func() { _, err = call(t, reg, tt.tool, tt.args) })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s %s: allocated %d KiB", name, tt.tool, tt.args, n>>10)
			if n > 2<<20 {
				t.Errorf("%s %s %s: allocated %d KiB for a 8 MiB artifact", name, tt.tool, tt.args, n>>10)
			}
		}
	}
}

func TestGrepBadPatternIsArgumentError(t *testing.T) {
	reg := forgeOne(t, NewMemoryStore(), greek, 0)
	for _, tt := range []struct {
		pattern string
		code    error
		says    string
	}{
		{`(?<=a)b`, ErrUnsupportedRegex, "lookahead or lookbehind"},
		{`(?=a)`, ErrUnsupportedRegex, "lookahead or lookbehind"},
		{`(a)\1`, ErrUnsupportedRegex, "backreference"},
		{`(a`, ErrInvalidRegex, "missing closing )"},
	} {
		args, _ := json.Marshal(map[string]any{"callId": "c", "pattern": tt.pattern})
		_, err := call(t, reg, ToolGrep, string(args))
		if !errors.Is(err, forge.ErrInvalidToolArgs) || !errors.Is(err, tt.code) ||
			!strings.Contains(err.Error(), "invalid argument pattern") || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v", tt.pattern, err)
		}
		// The method's own error is an argument error first of all.
		_, err = EffectiveMethods(nil)[2].Call(context.Background(), spoolText(t, NewMemoryStore(), "x", nil, "a"), map[string]any{"pattern": tt.pattern})
		var fe *forge.Error
		if !errors.As(err, &fe) || fe.Code != forge.ErrInvalidToolArgs.Code {
			t.Errorf("%s: Call error %v", tt.pattern, err)
		}
	}
	desc := EffectiveMethods(nil)[2].Description
	if !strings.Contains(desc, "with the m flag $ does not match before a \\r") || !strings.Contains(desc, `\r?$`) {
		t.Errorf("artifact_grep description does not warn about $ and \\r: %q", desc)
	}
}

func TestBaseMethodArgs(t *testing.T) {
	ctx := context.Background()
	a := spoolText(t, NewMemoryStore(), "x", nil, greek)
	byTool := map[string]Method{}
	for _, m := range EffectiveMethods(nil) {
		byTool[m.Tool] = m
	}
	bad := []struct {
		tool string
		args map[string]any
	}{
		{ToolHead, map[string]any{"n": "5"}},
		{ToolHead, map[string]any{"n": -1}},
		{ToolHead, map[string]any{"n": 2.5}},
		{ToolTail, map[string]any{"n": true}},
		{ToolCat, map[string]any{"start": -3}},
		{ToolCat, map[string]any{"end": "x"}},
		{ToolCat, map[string]any{"start": 1e300}},
		{ToolGrep, map[string]any{"pattern": "a", "maxMatches": 1.5}},
		{ToolGrep, map[string]any{"pattern": "a", "context": -1}},
		{ToolGrep, map[string]any{"pattern": "a", "start": "0"}},
		{ToolGrep, map[string]any{"pattern": "a", "lineNumbers": "yes"}},
		{ToolGrep, map[string]any{"pattern": "a", "flags": 3}},
		{ToolGrep, map[string]any{"pattern": 5}},
		{ToolGrep, map[string]any{}},
		{ToolEstimateTokens, map[string]any{"encoding": 3}},
	}
	for _, tt := range bad {
		if out, err := byTool[tt.tool].Call(ctx, a, tt.args); !errors.Is(err, forge.ErrInvalidToolArgs) {
			t.Errorf("%s %v = %q, %v; want ErrInvalidToolArgs", tt.tool, tt.args, out, err)
		}
	}
	good := []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolHead, map[string]any{"n": 2.0}, "alpha\nbeta"},
		{ToolHead, map[string]any{"n": json.Number("2")}, "alpha\nbeta"},
		{ToolHead, map[string]any{"n": nil}, greek},
		{ToolTail, map[string]any{"n": int64(1)}, "epsilon"},
		{ToolCat, map[string]any{"start": 1, "end": uint8(2)}, "beta"},
		{ToolGrep, map[string]any{"pattern": "^[ab]", "start": 1, "lineNumbers": false}, "beta"},
	}
	for _, tt := range good {
		if out, err := byTool[tt.tool].Call(ctx, a, tt.args); err != nil || out != tt.want {
			t.Errorf("%s %v = %q, %v; want %q", tt.tool, tt.args, out, err, tt.want)
		}
	}
}

// dupKind has two methods of one new name and overrides a base one twice:
// the last of a name wins, at the place its name was first seen.
type dupKind struct{}

func (dupKind) Name() string { return "DupArtifact" }
func (dupKind) Wrap(ctx context.Context, id string, r Reader) (forge.Artifact, error) {
	return &dupArtifact{Artifact: New(id, r)}, nil
}
func (dupKind) Methods() []Method {
	answer := func(s string) func(context.Context, forge.Artifact, map[string]any) (string, error) {
		return func(context.Context, forge.Artifact, map[string]any) (string, error) { return s, nil }
	}
	return []Method{
		{Tool: "artifact_dup", Description: "first", Params: json.RawMessage(`{}`), Call: answer("first")},
		{Tool: ToolHead, Description: "head 1", Params: json.RawMessage(`{}`), Call: answer("head 1")},
		{Tool: "artifact_other", Description: "other", Params: json.RawMessage(`{}`), Call: answer("other")},
		{Tool: "artifact_dup", Description: "second", Params: json.RawMessage(`{}`), Call: answer("second")},
		{Tool: ToolHead, Description: "head 2", Params: json.RawMessage(`{}`), Call: answer("head 2")},
	}
}

type dupArtifact struct{ *Artifact }

func (d *dupArtifact) Kind() string       { return dupKind{}.Name() }
func (d *dupArtifact) ArtifactKind() Kind { return dupKind{} }

func TestEffectiveMethodsAndForgeToolsAgree(t *testing.T) {
	eff := EffectiveMethods(dupKind{})
	var effNames []string
	for _, m := range eff {
		effNames = append(effNames, m.Tool+"="+m.Description)
	}
	want := []string{ToolHead + "=head 2"}
	for _, m := range EffectiveMethods(nil)[1:] {
		want = append(want, m.Tool+"="+m.Description)
	}
	want = append(want, "artifact_dup=second", "artifact_other=other")
	if diff := cmp.Diff(want, effNames); diff != "" {
		t.Errorf("EffectiveMethods (-want +got)\n%s", diff)
	}
	reg, err := forgeTools([]*forge.ToolCall{makeCall(t, "d", spoolText(t, NewMemoryStore(), "d", dupKind{}, "x"), false)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var forged []string
	for _, tl := range reg.All() {
		name := tl.Name()
		if name == ToolHead || name == "artifact_dup" || name == "artifact_other" {
			out, err := call(t, reg, name, `{"callId":"d"}`)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			name += "=" + out
		}
		forged = append(forged, name)
	}
	wantForged := append([]string{ToolHead + "=head 2"}, baseNames[1:]...)
	wantForged = append(wantForged, "artifact_dup=second", "artifact_other=other")
	if diff := cmp.Diff(wantForged, forged); diff != "" {
		t.Errorf("ForgeTools (-want +got)\n%s", diff)
	}
}

// shownLine is a line an answer showed: a grep match, or context (grep's,
// or artifact_cat's, which shows no match: see grepContextNote).
type shownLine struct {
	Match bool
	Text  string
}

var (
	grepContinueRe = regexp.MustCompile(`use artifact_grep with start=(\d+) to continue\)$`)
	grepCatRe      = regexp.MustCompile(`with artifact_cat with start=(\d+), end=(\d+)`)
	catContinueRe  = regexp.MustCompile(`use artifact_cat with start=(\d+) to continue\)$`)
	cutRe          = regexp.MustCompile(`line (\d+) is longer and was cut`)
	grepLineRe     = regexp.MustCompile(`^(\d+)([:-])(.*)$`)
)

// followGrep calls artifact_grep with args (a JSON object missing its
// start, lineNumbers on) and follows the notes as a model would: the
// artifact_cat range a note names (through cat's own notes), then the grep
// start. It returns the lines shown by number and the lines shown cut,
// failing on a line shown twice or a grep start that does not advance.
func followGrep(t *testing.T, reg *forge.Registry, args string) (map[int]shownLine, map[int]bool) {
	t.Helper()
	shown, cut := map[int]shownLine{}, map[int]bool{}
	show := func(n int, l shownLine) {
		if _, dup := shown[n]; dup {
			t.Fatalf("line %d shown twice", n)
		}
		shown[n] = l
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	calls := 0
	for start := 0; start >= 0; {
		if calls++; calls > 1000 {
			t.Fatal("following the notes does not end")
		}
		out, err := call(t, reg, ToolGrep, fmt.Sprintf(`%s,"lineNumbers":true,"start":%d}`, strings.TrimSuffix(args, "}"), start))
		if err != nil {
			t.Fatal(err)
		}
		body, note, _ := splitNote(t, out)
		if m := cutRe.FindStringSubmatch(note); m != nil {
			cut[num(m[1])] = true
		}
		for _, l := range strings.Split(body, "\n") {
			if l == "--" || l == "(empty list)" {
				continue
			}
			m := grepLineRe.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("answer line %q", l)
			}
			show(num(m[1]), shownLine{m[2] == ":", m[3]})
		}
		if m := grepCatRe.FindStringSubmatch(note); m != nil {
			for from, to := num(m[1]), num(m[2]); from < to; {
				if calls++; calls > 1000 {
					t.Fatal("following the cat notes does not end")
				}
				out, err := call(t, reg, ToolCat, fmt.Sprintf(`{"callId":"c","start":%d,"end":%d}`, from, to))
				if err != nil {
					t.Fatal(err)
				}
				body, note, _ := splitNote(t, out)
				for i, l := range strings.Split(body, "\n") {
					show(from+i, shownLine{Text: l})
				}
				if m := cutRe.FindStringSubmatch(note); m != nil {
					cut[num(m[1])] = true
				}
				next := to
				if m := catContinueRe.FindStringSubmatch(note); m != nil {
					next = num(m[1])
				}
				if next <= from {
					t.Fatalf("artifact_cat note %q does not advance from %d", note, from)
				}
				from = next
			}
		}
		next := -1
		if m := grepContinueRe.FindStringSubmatch(note); m != nil {
			if next = num(m[1]); next <= start {
				t.Fatalf("grep note %q does not advance from start=%d", note, start)
			}
		}
		start = next
	}
	return shown, cut
}

// TestGrepContextContinue follows capped artifact_grep answers with
// context: every line the uncapped answer shows is shown once, including
// after-context the cap cut (which no grep start shows again: start selects
// matches) and the context of a match group larger than the cap; and the
// notes always lead to the end.
func TestGrepContextContinue(t *testing.T) {
	ctx := context.Background()
	x := func(c string, n int) string { return strings.Repeat(c, n) }
	var group, spread []string
	for i := range 100 { // one group of 10 KiB: a match every 10 lines
		if i%10 == 0 {
			group = append(group, "MATCH "+strconv.Itoa(i))
		} else {
			group = append(group, x("g", 99))
		}
	}
	for i := range 400 {
		if i%7 == 0 {
			spread = append(spread, "MATCH "+strconv.Itoa(i))
		} else {
			spread = append(spread, strconv.Itoa(i)+x("s", 60))
		}
	}
	tests := []struct {
		name    string
		lines   []string
		context int
	}{
		{"after-context cut", append([]string{"MATCH", x("a", 500), x("b", 500)}, strings.Split(x("f", 10), "")...), 2},
		{"after-context cut at the end", []string{"MATCH", x("a", 500), x("b", 500)}, 2},
		{"group larger than the cap", group, 8},
		{"context larger than the cap", append([]string{"MATCH"}, strings.Split(strings.Repeat("\n"+x("c", 99), 40)[1:], "\n")...), 30},
		{"long match cut", []string{"MATCH" + x("m", 2000), "a", "b", "c", "d", "MATCH", "e", "f"}, 2},
		{"long match cut, next match in its context", []string{"MATCH" + x("m", 2000), "a", "MATCH", "b", "c"}, 3},
		{"long context line", []string{"MATCH", x("l", 2000), "a", "b", "MATCH", "c"}, 2},
		{"spread matches", spread, 3},
	}
	for name, s := range toolStores(t) {
		for _, tt := range tests {
			for _, limit := range []int{600, 1000} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, tt.name, limit), func(t *testing.T) {
					text := strings.Join(tt.lines, "\n")
					a := spoolText(t, s, "c", nil, text).(*Artifact)
					res, err := a.Grep(ctx, "MATCH", &GrepOptions{Before: tt.context, After: tt.context})
					if err != nil {
						t.Fatal(err)
					}
					want := map[int]shownLine{}
					for _, l := range res.Lines {
						want[l.Line] = shownLine{l.Match, l.Text}
					}
					reg := forgeOne(t, s, text, limit)
					got, cut := followGrep(t, reg, fmt.Sprintf(`{"callId":"c","pattern":"MATCH","context":%d}`, tt.context))
					for n := range cut {
						if g, w := got[n], want[n]; strings.HasPrefix(w.Text, g.Text) {
							got[n] = shownLine{g.Match, w.Text}
						}
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("lines shown following the notes (-want +got)\n%s", diff)
					}
				})
			}
		}
	}
}

// TestGrepContextNote pins the notes of answers the cap cut in a match's
// after-context.
func TestGrepContextNote(t *testing.T) {
	a5, b5 := strings.Repeat("a", 500), strings.Repeat("b", 500)
	tests := []struct {
		name, text, args, wantNote string
	}{
		{"then grep", "MATCH\n" + a5 + "\n" + b5 + "\nf\nf", `"context":2`,
			"(truncated: answer capped at 1000 bytes; read the rest of the context of the match at line 0 with artifact_cat with start=2, end=3, then use artifact_grep with start=3 to continue)"},
		{"up to the next match's before-context", "MATCH\n" + a5 + "\n" + b5 + "\nf\nf\nf\nf\nMATCH", `"context":3`,
			"(truncated: answer capped at 1000 bytes; read the rest of the context of the match at line 0 with artifact_cat with start=2, end=4, then use artifact_grep with start=4 to continue)"},
		{"in the next match's before-context", "MATCH\n" + a5 + "\n" + b5 + "\nf\nMATCH", `"context":3`,
			"(truncated: answer capped at 1000 bytes; use artifact_grep with start=2 to continue)"},
		{"a match maxMatches left out in the context", "MATCH\n" + a5 + "\n" + b5 + "\nMATCH\nf", `"context":3,"maxMatches":1`,
			"(truncated: answer capped at 1000 bytes; use artifact_grep with start=2 to continue)"},
		{"the artifact ends", "MATCH\n" + a5 + "\n" + b5, `"context":2`,
			"(truncated: answer capped at 1000 bytes; read the rest of the context of the match at line 0 with artifact_cat with start=2, end=3)"},
		{"long match", "MATCH" + strings.Repeat("m", 2000) + "\nf\nf\nf", `"context":1`,
			"(truncated: answer capped at 1000 bytes; line 0 is longer and was cut; read the rest of the context of the match at line 0 with artifact_cat with start=1, end=2, then use artifact_grep with start=2 to continue)"},
		{"no context", "MATCH\nMATCH" + a5 + "\nMATCH" + b5 + "\nMATCH", `"context":0`,
			"(truncated: answer capped at 1000 bytes; use artifact_grep with start=2 to continue)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := forgeOne(t, NewMemoryStore(), tt.text, 1000)
			out, err := call(t, reg, ToolGrep, `{"callId":"c","pattern":"MATCH",`+tt.args+`}`)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) > 1000 {
				t.Errorf("answer of %d bytes, over the cap", len(out))
			}
			if _, note, _ := splitNote(t, out); note != tt.wantNote {
				t.Errorf("note %q\nwant %q", note, tt.wantNote)
			}
		})
	}
}
