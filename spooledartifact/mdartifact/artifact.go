package mdartifact

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/ebbforge/adk/spooledartifact"
)

// Artifact is a Markdown artifact: the base seven queries plus the Markdown
// ones. The structural index is built by one streaming scan on the first
// query and cached; links, images, text and the syntax tree parse only the
// requested line range with goldmark (CommonMark + GFM). Safe for
// concurrent use.
type Artifact struct {
	*spooledartifact.Artifact
	kind Kind

	mu    sync.Mutex
	index *Index
}

// New returns the Markdown artifact over r, stored under id, with k's
// limits. Nothing is read until the first query.
func New(id string, r spooledartifact.Reader, k Kind) *Artifact {
	return &Artifact{Artifact: spooledartifact.New(id, r), kind: k}
}

// Kind returns "SpooledMarkdownArtifact".
func (a *Artifact) Kind() string { return Name }

// ArtifactKind returns the Kind that built a, limits included.
func (a *Artifact) ArtifactKind() spooledartifact.Kind { return a.kind }

// Index returns the structural index (a copy the caller may keep).
func (a *Artifact) Index(ctx context.Context) (Index, error) {
	idx, err := a.loadIndex(ctx)
	if err != nil {
		return Index{}, err
	}
	out := *idx
	out.Headings = slices.Clone(idx.Headings)
	out.CodeBlocks = slices.Clone(idx.CodeBlocks)
	if idx.FrontMatter != nil {
		fm := *idx.FrontMatter
		out.FrontMatter = &fm
	}
	return out, nil
}

func (a *Artifact) loadIndex(ctx context.Context) (*Index, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.index != nil {
		return a.index, nil
	}
	// Front matter is found first, so the main scan never holds lines back
	// (the first FrontMatterLines lines are read twice when it does not
	// close).
	fmEnd, err := frontMatterEnd(ctx, a.Artifact)
	if err != nil {
		return nil, err
	}
	var x indexer
	if fmEnd > 0 {
		x.idx.FrontMatter = &Span{0, fmEnd}
		x.idx.LineCount = fmEnd + 1
	}
	err = a.EachLine(ctx, fmEnd+1, -1, func(i int, line []byte) error {
		x.add(i, line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	idx := x.finish()
	if n := a.Reader().LineCount(); idx.LineCount < n {
		idx.LineCount = n // trailing reader gaps still count as lines
	}
	a.index = &idx
	return a.index, nil
}

// Headings returns the headings; depth 1..6 keeps only that depth, 0 all.
func (a *Artifact) Headings(ctx context.Context, depth int) ([]Heading, error) {
	idx, err := a.loadIndex(ctx)
	if err != nil {
		return nil, err
	}
	out := []Heading{}
	for _, h := range idx.Headings {
		if depth == 0 || h.Depth == depth {
			out = append(out, h)
		}
	}
	return out, nil
}

// Sections returns the heading sections; depth 1..6 keeps only that depth,
// 0 all.
func (a *Artifact) Sections(ctx context.Context, depth int) ([]Section, error) {
	hs, err := a.Headings(ctx, depth)
	if err != nil {
		return nil, err
	}
	out := make([]Section, 0, len(hs))
	for _, h := range hs {
		out = append(out, Section{Depth: h.Depth, Heading: h.Text, HeadingLine: h.StartLine, BodyStartLine: h.StartLine + 1, BodyEndLine: h.EndLine})
	}
	return out, nil
}

// CodeBlocks returns every fenced code block.
func (a *Artifact) CodeBlocks(ctx context.Context) ([]CodeBlock, error) {
	idx, err := a.loadIndex(ctx)
	if err != nil {
		return nil, err
	}
	return append([]CodeBlock{}, idx.CodeBlocks...), nil
}

// CodeBlocksWithLang returns the fenced code blocks whose language is lang;
// "" selects the blocks with no language.
func (a *Artifact) CodeBlocksWithLang(ctx context.Context, lang string) ([]CodeBlock, error) {
	all, err := a.CodeBlocks(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(c CodeBlock) bool { return c.Lang != lang }), nil
}

// FrontMatter returns the YAML front matter rendered as JSON (mapping order
// kept), or nil when the document has none. Invalid YAML is
// ErrInvalidFrontMatter.
func (a *Artifact) FrontMatter(ctx context.Context) (json.RawMessage, error) {
	idx, err := a.loadIndex(ctx)
	if err != nil || idx.FrontMatter == nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = a.EachLine(ctx, idx.FrontMatter.StartLine+1, idx.FrontMatter.EndLine, func(_ int, line []byte) error {
		buf.Write(line)
		buf.WriteByte('\n')
		return nil
	})
	if err != nil {
		return nil, err
	}
	return yamlToJSON(buf.Bytes())
}

// source reads lines [start, end] (inclusive; end < 0 means the last line),
// clamped, joined with '\n', with front matter lines blanked so the parser
// does not read YAML as Markdown. first is the first line read and fm the
// front matter's text when the range covers all of it.
func (a *Artifact) source(ctx context.Context, start, end int) (src []byte, first int, fm string, err error) {
	idx, err := a.loadIndex(ctx)
	if err != nil {
		return nil, 0, "", err
	}
	last := idx.LineCount - 1
	start = max(start, 0)
	if end < 0 || end > last {
		end = last
	}
	if start > end {
		return nil, start, "", nil
	}
	var buf, yaml bytes.Buffer
	limit := a.kind.maxParseBytes()
	err = a.EachLine(ctx, start, end+1, func(i int, line []byte) error {
		if i > start {
			buf.WriteByte('\n')
		}
		if f := idx.FrontMatter; f != nil && i >= f.StartLine && i <= f.EndLine {
			if i > f.StartLine && i < f.EndLine {
				yaml.Write(line)
				yaml.WriteByte('\n')
			}
			return nil
		}
		if buf.Len()+len(line) > limit {
			return ErrTooLarge.With(nil, "mdartifact: lines %d-%d exceed %d bytes (Kind.MaxParseBytes); ask for a narrower startLine/endLine", start, end, limit)
		}
		if maxNesting(line) > MaxNesting {
			return ErrTooDeep.With(nil, "mdartifact: line %d is nested in more than %d block quotes and list items (MaxNesting); ask for a startLine/endLine range without it, or read it with artifact_cat", i, MaxNesting)
		}
		buf.Write(line)
		return nil
	})
	if err != nil {
		return nil, 0, "", err
	}
	if f := idx.FrontMatter; f != nil && start <= f.StartLine && end >= f.EndLine {
		fm = yaml.String()
	}
	return buf.Bytes(), start, fm, nil
}
