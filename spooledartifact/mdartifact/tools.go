package mdartifact

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
)

var (
	noParams    = json.RawMessage(`{}`)
	depthParams = json.RawMessage(`{"depth":{"type":"integer","minimum":1,"maximum":6,"description":"Only headings of exactly this depth (1 for #, 2 for ##, ...); omit for all."}}`)
	langParams  = json.RawMessage(`{"lang":{"type":"string","description":"Only blocks with this language (the fence's first info word); '' for blocks with no language; omit for all."}}`)
	rangeParams = json.RawMessage(`{"startLine":{"type":"integer","minimum":0,"description":"First line, 0-based, inclusive (default 0)."},` +
		`"endLine":{"type":"integer","minimum":0,"description":"Last line, 0-based, inclusive (default: the last line). Heading and section line ranges can be passed as they are."}}`)
)

const rangeHelp = " Lines are 0-based; startLine and endLine are both inclusive and optional."

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
				"a heading's lines run to the line before the next heading of the same or shallower depth (0-based, inclusive).",
			Params: depthParams,
			Call:   call(callHeadings),
		},
		{
			Tool: "artifact_md_code_blocks",
			Description: "Fenced code blocks of a Markdown artifact produced earlier in this turn as JSON {lang|null, startLine, endLine}, " +
				"fence lines included (0-based, inclusive; an unclosed fence runs to the last line).",
			Params: langParams,
			Call:   call(callCodeBlocks),
		},
		{
			Tool: "artifact_md_sections",
			Description: "Sections of a Markdown artifact produced earlier in this turn as JSON {depth, heading, headingLine, bodyStartLine, bodyEndLine} " +
				"(0-based, inclusive; pass bodyStartLine/bodyEndLine to artifact_md_text or artifact_cat to read one).",
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
// answers with an error text, as the reference's forged handlers do); each
// method caps its answer at Kind.MaxAnswerBytes (see render).
func call(fn func(ctx context.Context, a *Artifact, args map[string]any) (string, error)) func(context.Context, forge.Artifact, map[string]any) (string, error) {
	return spooledartifact.KindCall(Name, fn)
}

// capHint ends the note of a capped answer.
const capHint = "ask for a narrower startLine/endLine"

func callFrontMatter(ctx context.Context, a *Artifact, _ map[string]any) (string, error) {
	fm, err := a.FrontMatter(ctx)
	if err != nil {
		return "", err
	}
	if fm == nil {
		return "(undefined)", nil
	}
	return a.render(fm)
}

func callHeadings(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	depth, err := depthArg(args)
	if err != nil {
		return "", err
	}
	hs, err := a.Headings(ctx, depth)
	if err != nil {
		return "", err
	}
	return a.render(hs)
}

func callSections(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	depth, err := depthArg(args)
	if err != nil {
		return "", err
	}
	ss, err := a.Sections(ctx, depth)
	if err != nil {
		return "", err
	}
	return a.render(ss)
}

func callCodeBlocks(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	lang, ok, err := spooledartifact.StringArg(args, "lang")
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
	return a.render(blocks)
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
	return spooledartifact.CapAnswer(text, a.kind.maxAnswerBytes(), capHint), nil
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
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	limit := a.kind.maxAnswerBytes()
	head, total := spooledartifact.IndentJSON(nil, bytes.TrimSuffix(b.Bytes(), []byte("\n")), "", limit)
	return spooledartifact.CapAnswerOf(string(head), total, limit, capHint), nil
}

func depthArg(args map[string]any) (int, error) {
	d, err := spooledartifact.IntArg(args, "depth", -1)
	if err != nil || d == -1 { // absent: every depth
		return 0, err
	}
	if d < 1 || d > 6 {
		return 0, forge.ErrInvalidToolArgs.With(nil, "mdartifact: depth must be 1 to 6, got %d", d)
	}
	return d, nil
}

func rangeArgs(args map[string]any) (start, end int, err error) {
	if start, err = spooledartifact.IntArg(args, "startLine", 0); err != nil {
		return 0, 0, err
	}
	if end, err = spooledartifact.IntArg(args, "endLine", -1); err != nil {
		return 0, 0, err
	}
	return start, end, nil
}
