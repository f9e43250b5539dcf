package spooledartifact

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// matchMode is how a compiled grep pattern scans a chunk of lines.
type matchMode int

const (
	modeNever     matchMode = iota // no line can match (a literal '\n')
	modeLiteral                    // the whole pattern is a case-sensitive literal: bytes.Index
	modePrefilter                  // a required literal is searched, then the line is verified
	modeChunk                      // a line-confined rewrite of the regex runs over the chunk
)

// grepPattern is a compiled artifact_grep pattern.
type grepPattern struct {
	mode    matchMode
	lit     []byte         // modeLiteral, modePrefilter
	line    *regexp.Regexp // the user's regex, applied to one line (original semantics)
	chunk   *regexp.Regexp // modeChunk: cannot match '\n'; ^ $ \A \z are line anchors
	pattern string
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
	g := &grepPattern{line: line, pattern: pattern}

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
	confined := confine(simple)
	if confined.Op == syntax.OpNoMatch {
		g.mode = modeNever
		return g, nil
	}
	if lit := requiredLiteral(simple); len(lit) >= 2 {
		g.lit = lit
		g.mode = modePrefilter
		return g, nil
	}
	g.chunk, err = regexp.Compile(confined.String())
	if err != nil { // cannot happen for a tree that parsed; stay correct anyway
		g.chunk = nil
	}
	g.mode = modeChunk
	if g.chunk == nil {
		g.mode = modePrefilter // with no literal: verify every line
	}
	return g, nil
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
					"spooledartifact: pattern %q uses lookahead or lookbehind (%s), which RE2 does not support; match the surrounding text directly or run several greps", pattern, se.Expr)
			}
			if strings.HasPrefix(se.Expr, "(?>") {
				return ErrUnsupportedRegex.With(nil,
					"spooledartifact: pattern %q uses an atomic group (?>, which RE2 does not support; use a plain group", pattern)
			}
		case syntax.ErrInvalidEscape:
			if len(se.Expr) >= 2 && (se.Expr[1] >= '1' && se.Expr[1] <= '9' || se.Expr[1] == 'k') {
				return ErrUnsupportedRegex.With(nil,
					"spooledartifact: pattern %q uses a backreference (%s), which RE2 does not support; repeat the text you expect instead", pattern, se.Expr)
			}
		}
		return ErrInvalidRegex.With(nil, "spooledartifact: invalid regex %q: %s: %s (RE2 syntax)", pattern, se.Code, se.Expr)
	}
	return ErrInvalidRegex.With(err, "spooledartifact: invalid regex %q", pattern)
}

// confine rewrites re so that no match can contain '\n' and the text anchors
// become line anchors. Lines hold no '\n', so over one line the rewrite
// matches exactly what re does; over a chunk of lines it finds exactly the
// lines re matches, and a match never crosses a line.
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

// requiredLiteral returns the longest case-sensitive literal every match of
// re must contain (a direct literal child of a top-level concatenation), or
// nil. It holds no '\n' (such patterns are modeNever already).
func requiredLiteral(re *syntax.Regexp) []byte {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil
	}
	var best []rune
	for _, s := range re.Sub {
		for s.Op == syntax.OpCapture {
			s = s.Sub[0]
		}
		if s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0 && len(s.Rune) > len(best) {
			best = s.Rune
		}
	}
	if best == nil || strings.ContainsRune(string(best), '\n') || strings.ContainsRune(string(best), utf8.RuneError) {
		return nil
	}
	return []byte(string(best))
}
