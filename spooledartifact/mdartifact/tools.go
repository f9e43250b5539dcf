package mdartifact

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/internal/method"
)

var (
	noParams    = json.RawMessage(`{}`)
	depthParams = json.RawMessage(`{"depth":{"type":"integer","minimum":1,"maximum":6,"description":"Only headings of exactly this depth (1 for #, 2 for ##, ...); omit for all."},` +
		startsParams("items whose heading is") + `}`)
	langParams = json.RawMessage(`{"lang":{"type":"string","description":"Only blocks with this language (the fence's first info word); '' for blocks with no language; omit for all."},` +
		startsParams("blocks whose opening fence is") + `}`)
	rangeParams = json.RawMessage(`{"startLine":{"type":"integer","minimum":0,"description":"First line, 0-based, inclusive (default 0)."},` +
		`"endLine":{"type":"integer","minimum":0,"description":"Last line, 0-based, inclusive (default: the last line). Heading and section line ranges can be passed as they are."}}`)
)

const rangeHelp = " Lines are 0-based; startLine and endLine are both inclusive and optional."

// startsParams declares the startLine and endLine of the index tools,
// which keep the items starting in [startLine, endLine]: what names them.
func startsParams(what string) string {
	return `"startLine":{"type":"integer","minimum":0,"description":"Only ` + what + ` on this line or later, 0-based (default 0); a capped answer names the startLine to continue with."},` +
		`"endLine":{"type":"integer","minimum":0,"description":"Only ` + what + ` on this line or earlier, 0-based, inclusive (default: the last line)."}`
}

// startsHelp ends the index tools' descriptions.
const startsHelp = " Optional startLine/endLine (0-based, inclusive) keep those starting in that range."

func methods() []spooledartifact.Method {
	return []spooledartifact.Method{
		{
			Tool: "artifact_md_frontmatter",
			Description: "YAML front matter of a Markdown artifact produced earlier in this turn, as JSON " +
				"((undefined) when line 0 is not --- or no closing --- is within the first 200 lines).",
			Params: noParams,
			Call:   call(callFrontMatter),
		},
		{
			Tool: "artifact_md_headings",
			Description: "ATX headings of a Markdown artifact produced earlier in this turn as JSON {depth, text, startLine, endLine}: " +
				"a heading's lines run to the line before the next heading of the same or shallower depth (0-based, inclusive)." + startsHelp,
			Params: depthParams,
			Call:   call(callHeadings),
		},
		{
			Tool: "artifact_md_code_blocks",
			Description: "Fenced code blocks of a Markdown artifact produced earlier in this turn as JSON {lang|null, startLine, endLine}, " +
				"fence lines included (0-based, inclusive; an unclosed fence runs to the last line)." + startsHelp,
			Params: langParams,
			Call:   call(callCodeBlocks),
		},
		{
			Tool: "artifact_md_sections",
			Description: "Sections of a Markdown artifact produced earlier in this turn as JSON {depth, heading, headingLine, bodyStartLine, bodyEndLine} " +
				"(0-based, inclusive; pass bodyStartLine/bodyEndLine to artifact_md_text or artifact_cat to read one)." + startsHelp,
			Params: depthParams,
			Call:   call(callSections),
		},
		{
			Tool:        "artifact_md_links",
			Description: "Links in a line range of a Markdown artifact produced earlier in this turn, as JSON {text, url, title?}." + rangeHelp,
			Params:      rangeParams,
			Call:        call(callLinks),
		},
		{
			Tool:        "artifact_md_images",
			Description: "Images in a line range of a Markdown artifact produced earlier in this turn, as JSON {alt, url, title?}." + rangeHelp,
			Params:      rangeParams,
			Call:        call(callImages),
		},
		{
			Tool:        "artifact_md_text",
			Description: "Plain text of a line range of a Markdown artifact produced earlier in this turn, markup stripped, one line per block." + rangeHelp,
			Params:      rangeParams,
			Call:        call(callText),
		},
		{
			Tool: "artifact_md_ast",
			Description: "Syntax tree of a line range of a Markdown artifact produced earlier in this turn, as MDAST-like JSON " +
				"{type, children, value, depth, url, lang, ..., position {startLine, endLine}}." + rangeHelp,
			Params: rangeParams,
			Call:   call(callAST),
		},
	}
}

// call adapts a typed method to Method.Call (a non-Markdown artifact
// answers with an error text, as the TypeScript original's handlers do); each
// method caps its answer at Kind.MaxAnswerBytes (see render).
func call(fn func(ctx context.Context, a *Artifact, args map[string]any) (string, error)) func(context.Context, forge.Artifact, map[string]any) (string, error) {
	return spooledartifact.KindCall(Name, fn)
}

// capHint ends the note of a capped answer of a line range's tool.
const capHint = "ask for a narrower startLine/endLine"

func callFrontMatter(ctx context.Context, a *Artifact, _ map[string]any) (string, error) {
	fm, err := a.FrontMatter(ctx)
	if err != nil {
		return "", err
	}
	if fm == nil {
		return "(undefined)", nil
	}
	idx, err := a.loadIndex(ctx)
	if err != nil {
		return "", err
	}
	// The YAML is the lines between the delimiters; artifact_cat's end is
	// exclusive.
	end := idx.FrontMatter.EndLine
	return a.renderCapped(fm, fmt.Sprintf("read its YAML with %s start=1 end=%d", spooledartifact.ToolCat, end))
}

func callHeadings(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	depth, err := depthArg(args)
	if err != nil {
		return "", err
	}
	start, end, err := rangeArgs(args)
	if err != nil {
		return "", err
	}
	hs, err := a.Headings(ctx, depth)
	if err != nil {
		return "", err
	}
	return renderStarting(a, args, "headings", hs, func(h Heading) int { return h.StartLine }, start, end)
}

func callSections(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	depth, err := depthArg(args)
	if err != nil {
		return "", err
	}
	start, end, err := rangeArgs(args)
	if err != nil {
		return "", err
	}
	ss, err := a.Sections(ctx, depth)
	if err != nil {
		return "", err
	}
	return renderStarting(a, args, "sections", ss, func(s Section) int { return s.HeadingLine }, start, end)
}

func callCodeBlocks(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	lang, ok, err := method.StringArg(args, "lang")
	if err != nil {
		return "", err
	}
	start, end, err := rangeArgs(args)
	if err != nil {
		return "", err
	}
	var blocks []CodeBlock
	if ok {
		blocks, err = a.CodeBlocksWithLang(ctx, lang)
	} else {
		blocks, err = a.CodeBlocks(ctx)
	}
	if err != nil {
		return "", err
	}
	return renderStarting(a, args, "code blocks", blocks, func(c CodeBlock) int { return c.StartLine }, start, end)
}

// renderStarting renders the items (in document order, each on a line of
// its own, given by line) that start in [start, end] (end < 0: the last
// line), as render does. When that is over Kind.MaxAnswerBytes it shows
// the first items that fit whole as a JSON array (or the first one, cut,
// when it alone does not fit), and the note names the call that lists the
// rest: startLine at the next item's line, the other arguments unchanged.
// Following the notes lists every item once.
func renderStarting[T any](a *Artifact, args map[string]any, noun string, items []T, line func(T) int, start, end int) (string, error) {
	kept := []T{}
	for _, it := range items {
		if l := line(it); l >= start && (end < 0 || l <= end) {
			kept = append(kept, it)
		}
	}
	items = kept
	compact, err := compactJSON(items)
	if err != nil {
		return "", err
	}
	limit := a.kind.maxAnswerBytes()
	head, total := method.IndentJSON(nil, compact, "", limit)
	if total <= limit {
		return string(head), nil
	}
	others := ""
	for _, k := range []string{"depth", "lang", "endLine"} {
		if args[k] != nil {
			others = " and the other arguments unchanged"
		}
	}
	hint := func(shown int) string {
		h := fmt.Sprintf("%d of %d %s shown", shown, len(items), noun)
		if shown == 0 {
			l := line(items[0])
			h = fmt.Sprintf("1 of %d %s shown, cut (%s start=%d end=%d reads its first line)", len(items), noun, spooledartifact.ToolCat, l, l+1)
			shown = 1
		}
		if shown < len(items) {
			h += fmt.Sprintf("; continue with startLine=%d%s", line(items[shown]), others)
		}
		return h
	}
	// The longest note any count of shown items can take.
	note := fmt.Sprintf("\n(truncated: answer capped at %d of %d bytes; %s)", limit, total, hint(len(items)-1))
	budget := limit - len(note)
	var b bytes.Buffer
	b.WriteString("[\n")
	shown := 0
	for i, it := range items {
		c, err := compactJSON(it)
		if err != nil {
			return "", err
		}
		ind, n := method.IndentJSON(nil, c, "  ", budget)
		sep := 2 // "  "
		if i > 0 {
			sep += 2 // ",\n"
		}
		if b.Len()+sep+n+len("\n]\n") > budget {
			if i == 0 {
				b.WriteString("  ")
				b.Write(ind)
			}
			break
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  ")
		b.Write(ind)
		shown++
	}
	if shown > 0 {
		b.WriteString("\n]\n") // CapAnswerOf cuts the answer after the "]"
	}
	return method.CapAnswerOf(b.String(), total, limit, hint(shown)), nil
}

func callLinks(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	start, end, err := rangeArgs(args)
	if err != nil {
		return "", err
	}
	ls, err := a.Links(ctx, start, end)
	if err != nil {
		return "", err
	}
	return a.render(ls)
}

func callImages(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	start, end, err := rangeArgs(args)
	if err != nil {
		return "", err
	}
	is, err := a.Images(ctx, start, end)
	if err != nil {
		return "", err
	}
	return a.render(is)
}

func callText(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	start, end, err := rangeArgs(args)
	if err != nil {
		return "", err
	}
	text, err := a.Text(ctx, start, end)
	if err != nil {
		return "", err
	}
	return method.CapAnswer(text, a.kind.maxAnswerBytes(), capHint), nil
}

func callAST(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	start, end, err := rangeArgs(args)
	if err != nil {
		return "", err
	}
	root, err := a.AST(ctx, start, end)
	if err != nil {
		return "", err
	}
	return a.render(root)
}

// render is the default serialiser for non-string results: JSON indented
// two spaces, without HTML escaping, capped at Kind.MaxAnswerBytes. Only
// the compact JSON is built whole: indented, a tree nested 999 deep is
// hundreds of times its size (gigabytes for 256 KiB of Markdown).
func (a *Artifact) render(v any) (string, error) {
	return a.renderCapped(v, capHint)
}

// renderCapped is render with hint ending the note of a capped answer.
func (a *Artifact) renderCapped(v any, hint string) (string, error) {
	compact, err := compactJSON(v)
	if err != nil {
		return "", err
	}
	limit := a.kind.maxAnswerBytes()
	head, total := method.IndentJSON(nil, compact, "", limit)
	return method.CapAnswerOf(string(head), total, limit, hint), nil
}

// compactJSON is v as compact JSON without HTML escaping.
func compactJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func depthArg(args map[string]any) (int, error) {
	d, err := method.IntArg(args, "depth", -1)
	if err != nil || d == -1 { // absent: every depth
		return 0, err
	}
	if d < 1 || d > 6 {
		return 0, forge.ErrInvalidToolArgs.With(nil, "mdartifact: depth must be 1 to 6, got %d", d)
	}
	return d, nil
}

func rangeArgs(args map[string]any) (start, end int, err error) {
	if start, err = method.IntArg(args, "startLine", 0); err != nil {
		return 0, 0, err
	}
	if end, err = method.IntArg(args, "endLine", -1); err != nil {
		return 0, 0, err
	}
	return start, end, nil
}
