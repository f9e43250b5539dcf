package spooledartifact

import (
	"bytes"
	"encoding/binary"
	"errors"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode/utf8"
)

// matchMode is how a compiled grep pattern scans a chunk of lines.
type matchMode int

const (
	modeNever     matchMode = iota // no line can match (the pattern needs a '\n')
	modeLiteral                    // the whole pattern is a case-sensitive literal: bytes.Index
	modePrefilter                  // a required literal is searched, then the line is verified
	modeLine                       // every line is matched with the regex
)

// grepPattern is a compiled artifact_grep pattern.
type grepPattern struct {
	mode matchMode
	lit  []byte         // modeLiteral, modePrefilter
	line *regexp.Regexp // the user's regex, applied to one line (original semantics)
	// split verification (modePrefilter): the regex is A·lit·B at top level,
	// so a line matches iff at some occurrence of lit, reverse(A) matches
	// the reversed text before it anchored, and B the text after it
	// anchored. Anchored checks touch only the bytes they need, where
	// matching the whole line would retry every start position.
	split         bool
	before, after *regexp.Regexp // nil when A or B is empty
	beforeRunes   int            // the most runes A can match; -1: unbounded

	// candidates are the prefilters of every literal child; choose picks
	// the rarest in the first chunk scanned.
	candidates []*grepPattern
	chosen     bool
	// fold: lit is lower-case ASCII and searched case-insensitively (a
	// (?i) literal); lines are then verified whole.
	fold  bool
	lower []byte // scratch of the lowered chunk when fold
}

// compileGrep compiles pattern under flags, a subset of "ims" (i: case
// folding, m: multi-line anchors, s: '.' matches '\n'; each maps to the RE2
// flag of the same letter). Flags "g" and "y" of JavaScript are rejected.
func compileGrep(pattern, flags string) (*grepPattern, error) {
	for _, c := range flags {
		if !strings.ContainsRune("ims", c) {
			return nil, ErrInvalidRegex.With(nil,
				"spooledartifact: flag %q is not supported; flags may only hold i (ignore case), m (multi-line) and s (dot matches newline)", c)
		}
	}
	expr := pattern
	if flags != "" {
		expr = "(?" + flags + ")" + pattern
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, regexError(pattern, err)
	}
	line, err := regexp.Compile(expr)
	if err != nil {
		return nil, regexError(pattern, err)
	}
	g := &grepPattern{line: line, mode: modeLine}

	simple := tree.Simplify()
	for simple.Op == syntax.OpCapture {
		simple = simple.Sub[0]
	}
	// A literal holding U+FFFD stays a regex: RE2 also matches it against
	// an invalid UTF-8 byte, bytes.Index does not.
	if simple.Op == syntax.OpLiteral && simple.Flags&syntax.FoldCase == 0 && !strings.ContainsRune(string(simple.Rune), utf8.RuneError) {
		g.lit = []byte(string(simple.Rune))
		g.mode = modeLiteral
		if strings.ContainsRune(string(simple.Rune), '\n') {
			g.mode = modeNever
		}
		return g, nil
	}
	if confine(simple).Op == syntax.OpNoMatch {
		g.mode = modeNever
		return g, nil
	}
	for _, i := range literalChildren(simple) {
		c := &grepPattern{mode: modePrefilter, line: line, lit: []byte(string(literalOf(simple.Sub[i]).Rune))}
		c.before, c.after, c.split = splitChecks(simple.Sub[:i], simple.Sub[i+1:])
		c.beforeRunes = maxRunes(&syntax.Regexp{Op: syntax.OpConcat, Sub: simple.Sub[:i]})
		g.candidates = append(g.candidates, c)
	}
	if len(g.candidates) == 0 {
		// Case-insensitive literals prefilter too, when ASCII folding finds
		// every match (see foldable).
		var subs []*syntax.Regexp
		if simple.Op == syntax.OpConcat {
			subs = simple.Sub
		} else {
			subs = []*syntax.Regexp{simple}
		}
		for i, sub := range subs {
			if l := literalOf(sub); l != nil && l.Flags&syntax.FoldCase != 0 && foldable(l.Rune) {
				c := &grepPattern{mode: modePrefilter, line: line, fold: true, lit: bytes.ToLower([]byte(string(l.Rune)))}
				c.before, c.after, c.split = splitChecks(subs[:i], subs[i+1:])
				c.beforeRunes = maxRunes(&syntax.Regexp{Op: syntax.OpConcat, Sub: subs[:i]})
				g.candidates = append(g.candidates, c)
			}
		}
	}
	if len(g.candidates) > 0 {
		g.usePrefilter(g.candidates[0])
	}
	return g, nil
}

// foldable reports whether an ASCII-lower-cased search finds every
// case-insensitive match of the literal r: ASCII only, at least 2 bytes,
// and no k or s, whose folds include the Kelvin sign and the long s.
func foldable(r []rune) bool {
	if len(r) < 2 {
		return false
	}
	for _, c := range r {
		if c >= utf8.RuneSelf || c == 'k' || c == 'K' || c == 's' || c == 'S' || c == '\n' {
			return false
		}
	}
	return true
}

// lowerASCII writes b with ASCII upper-case letters lowered into *scratch,
// eight bytes at a time (SWAR); other bytes are unchanged, so offsets match.
func lowerASCII(b []byte, scratch *[]byte) []byte {
	out := *scratch
	if cap(out) < len(b) {
		out = make([]byte, len(b))
	}
	out = out[:len(b)]
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(out); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		h := w &^ highs // low 7 bits of each byte
		geA := h + (0x80-'A')*ones
		gtZ := h + (0x7f-'Z')*ones
		upper := (geA ^ gtZ) &^ w & highs // ASCII bytes in 'A'..'Z'
		binary.LittleEndian.PutUint64(out[i:], w|upper>>2)
	}
	for ; i < len(out); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	*scratch = out
	return out
}

func (g *grepPattern) usePrefilter(c *grepPattern) {
	g.mode, g.lit, g.split, g.before, g.after, g.beforeRunes, g.fold = c.mode, c.lit, c.split, c.before, c.after, c.beforeRunes, c.fold
}

// choose picks, once, the prefilter literal that occurs least in sample (the
// first chunk): how often a literal occurs cannot be known from the pattern,
// and verifying fewer candidate lines is most of a regex grep's cost.
func (g *grepPattern) choose(sample []byte) {
	if g.chosen || len(g.candidates) < 2 {
		return
	}
	g.chosen = true
	sample = sample[:min(len(sample), 1<<20)]
	best, bestN := g.candidates[0], -1
	var lower []byte
	for _, c := range g.candidates {
		n := 0
		if c.fold {
			n = bytes.Count(lowerASCII(sample, &lower), c.lit)
		} else {
			n = bytes.Count(sample, c.lit)
		}
		if bestN < 0 || n < bestN || n == bestN && len(c.lit) > len(best.lit) {
			best, bestN = c, n
		}
	}
	g.usePrefilter(best)
}

// splitChecks compiles the anchored checks of the parts a and b around the
// required literal; ok is false when an assertion would look across a cut
// (a word boundary, say) and the whole line must be verified instead.
func splitChecks(a, b []*syntax.Regexp) (before, after *regexp.Regexp, ok bool) {
	for i, s := range a {
		if hasAssertion(s) && !(i == 0 && (s.Op == syntax.OpBeginLine || s.Op == syntax.OpBeginText)) {
			return nil, nil, false
		}
	}
	for i, s := range b {
		if hasAssertion(s) && !(i == len(b)-1 && (s.Op == syntax.OpEndLine || s.Op == syntax.OpEndText)) {
			return nil, nil, false
		}
	}
	var err error
	if len(a) > 0 {
		rev := make([]*syntax.Regexp, len(a))
		for i, s := range a {
			rev[len(a)-1-i] = reverse(s)
		}
		if before, err = regexp.Compile(`^(?:` + (&syntax.Regexp{Op: syntax.OpConcat, Sub: rev}).String() + `)`); err != nil {
			return nil, nil, false
		}
	}
	if len(b) > 0 {
		if after, err = regexp.Compile(`^(?:` + (&syntax.Regexp{Op: syntax.OpConcat, Sub: b}).String() + `)`); err != nil {
			return nil, nil, false
		}
	}
	return before, after, true
}

// hasAssertion reports whether re holds a zero-width assertion.
func hasAssertion(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range re.Sub {
		if hasAssertion(s) {
			return true
		}
	}
	return false
}

// reverse returns a regex matching the reversed strings of re's language.
func reverse(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		c.Sub[i] = reverse(s)
	}
	switch re.Op {
	case syntax.OpConcat:
		for i, j := 0, len(c.Sub)-1; i < j; i, j = i+1, j-1 {
			c.Sub[i], c.Sub[j] = c.Sub[j], c.Sub[i]
		}
	case syntax.OpLiteral:
		c.Rune = make([]rune, len(re.Rune))
		for i, r := range re.Rune {
			c.Rune[len(re.Rune)-1-i] = r
		}
	case syntax.OpBeginLine:
		c.Op = syntax.OpEndLine
	case syntax.OpEndLine:
		c.Op = syntax.OpBeginLine
	case syntax.OpBeginText:
		c.Op = syntax.OpEndText
	case syntax.OpEndText:
		c.Op = syntax.OpBeginText
		c.Flags &^= syntax.WasDollar
	}
	return &c
}

// verify reports whether line (no '\n') matches, given that the required
// literal occurs at offset at; hay is line, or its lowered copy when fold.
func (g *grepPattern) verify(line, hay []byte, at int, scratch *[]byte) bool {
	if !g.split {
		return g.line.Match(line)
	}
	// Each attempt may read the whole line; after a few, one full match
	// keeps the cost linear in the line's length.
	for tries := 0; at >= 0; tries++ {
		if tries == 8 {
			return g.line.Match(line)
		}
		if (g.after == nil || g.after.Match(line[at+len(g.lit):])) &&
			(g.before == nil || g.before.Match(reverseRunes(g.window(line[:at]), scratch))) {
			return true
		}
		q := bytes.Index(hay[at+1:], g.lit)
		if q < 0 {
			return false
		}
		at += 1 + q
	}
	return false
}

// window trims prefix to the bytes A can reach: at most beforeRunes runes
// of 4 bytes. A cut inside a rune leaves stray bytes only beyond that reach.
// An A anchored at the line start is unbounded (maxRunes says so).
func (g *grepPattern) window(prefix []byte) []byte {
	if g.beforeRunes >= 0 && len(prefix) > 4*g.beforeRunes {
		return prefix[len(prefix)-4*g.beforeRunes:]
	}
	return prefix
}

// maxRunes returns the most runes re can match, or -1 when unbounded or
// anchored at a line or text start (the reach must then be the whole
// prefix).
func maxRunes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpEmptyMatch, syntax.OpNoMatch, syntax.OpEndLine, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpCapture, syntax.OpQuest:
		return maxRunes(re.Sub[0])
	case syntax.OpRepeat:
		n := maxRunes(re.Sub[0])
		if re.Max < 0 || n < 0 {
			return -1
		}
		return n * re.Max
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, s := range re.Sub {
			n := maxRunes(s)
			if n < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
		}
		return total
	}
	return -1 // star, plus, begin anchors
}

// reverseRunes writes b's runes in reverse order into *scratch (an invalid
// byte counts as one rune, as RE2 reads it).
func reverseRunes(b []byte, scratch *[]byte) []byte {
	out := (*scratch)[:0]
	for len(b) > 0 {
		if c := b[len(b)-1]; c < utf8.RuneSelf {
			out = append(out, c)
			b = b[:len(b)-1]
			continue
		}
		_, n := utf8.DecodeLastRune(b)
		out = append(out, b[len(b)-n:]...)
		b = b[:len(b)-n]
	}
	*scratch = out
	return out
}

// regexError turns a parse error into a model-readable coded error.
func regexError(pattern string, err error) error {
	var se *syntax.Error
	if errors.As(err, &se) {
		switch se.Code {
		case syntax.ErrInvalidPerlOp, syntax.ErrInvalidNamedCapture:
			if strings.HasPrefix(se.Expr, "(?=") || strings.HasPrefix(se.Expr, "(?!") ||
				strings.HasPrefix(se.Expr, "(?<=") || strings.HasPrefix(se.Expr, "(?<!") {
				return ErrUnsupportedRegex.With(nil,
					"spooledartifact: pattern %q uses lookahead or lookbehind %s, which RE2 does not support; match the surrounding text directly or run several greps", pattern, se.Expr)
			}
			if strings.HasPrefix(se.Expr, "(?>") {
				return ErrUnsupportedRegex.With(nil,
					"spooledartifact: pattern %q uses an atomic group (?>, which RE2 does not support; use a plain group", pattern)
			}
		case syntax.ErrInvalidEscape:
			if len(se.Expr) >= 2 && (se.Expr[1] >= '1' && se.Expr[1] <= '9' || se.Expr[1] == 'k') {
				return ErrUnsupportedRegex.With(nil,
					"spooledartifact: pattern %q uses a backreference %s, which RE2 does not support; repeat the text you expect instead", pattern, se.Expr)
			}
		}
		return ErrInvalidRegex.With(nil, "spooledartifact: invalid regex %q: %s: %s (RE2 syntax)", pattern, se.Code, se.Expr)
	}
	return ErrInvalidRegex.With(err, "spooledartifact: invalid regex %q", pattern)
}

// confine rewrites re so that no match can contain '\n' and the text anchors
// become line anchors. Lines hold no '\n', so over one line the rewrite
// matches exactly what re does; compileGrep uses it to spot patterns no line
// can match (OpNoMatch), which then skip the scan.
func confine(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = nil
	for _, s := range re.Sub {
		c.Sub = append(c.Sub, confine(s))
	}
	switch re.Op {
	case syntax.OpAnyChar:
		c.Op = syntax.OpAnyCharNotNL
	case syntax.OpBeginText:
		c.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		c.Op = syntax.OpEndLine
		c.Flags &^= syntax.WasDollar
	case syntax.OpCharClass:
		c.Rune = withoutNL(re.Rune)
		if len(c.Rune) == 0 {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
	case syntax.OpLiteral:
		if strings.ContainsRune(string(re.Rune), '\n') {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
	case syntax.OpConcat:
		for _, s := range c.Sub {
			if s.Op == syntax.OpNoMatch {
				return &syntax.Regexp{Op: syntax.OpNoMatch}
			}
		}
	case syntax.OpAlternate:
		var keep []*syntax.Regexp
		for _, s := range c.Sub {
			if s.Op != syntax.OpNoMatch {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
		c.Sub = keep
	case syntax.OpCapture, syntax.OpPlus:
		if c.Sub[0].Op == syntax.OpNoMatch {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
	case syntax.OpStar, syntax.OpQuest:
		if c.Sub[0].Op == syntax.OpNoMatch {
			return &syntax.Regexp{Op: syntax.OpEmptyMatch}
		}
	case syntax.OpRepeat:
		if c.Sub[0].Op == syntax.OpNoMatch {
			if c.Min == 0 {
				return &syntax.Regexp{Op: syntax.OpEmptyMatch}
			}
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
	}
	return &c
}

// withoutNL removes '\n' from a rune-range class.
func withoutNL(r []rune) []rune {
	var out []rune
	for i := 0; i+1 < len(r); i += 2 {
		lo, hi := r[i], r[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

// literalChildren returns the indexes of the case-sensitive literal
// children of a top-level concatenation, longest first: every match
// contains each of them.
func literalChildren(re *syntax.Regexp) []int {
	if re.Op != syntax.OpConcat {
		return nil
	}
	var out []int
	for i, s := range re.Sub {
		l := literalOf(s)
		if l == nil || l.Flags&syntax.FoldCase != 0 {
			continue
		}
		text := string(l.Rune)
		if strings.ContainsRune(text, '\n') || strings.ContainsRune(text, utf8.RuneError) {
			continue
		}
		out = append(out, i)
	}
	sort.SliceStable(out, func(a, b int) bool {
		return len(literalOf(re.Sub[out[a]]).Rune) > len(literalOf(re.Sub[out[b]]).Rune)
	})
	return out
}

// literalOf returns re, or the literal inside its captures, if it is a
// literal; nil otherwise.
func literalOf(re *syntax.Regexp) *syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpLiteral {
		return re
	}
	return nil
}
