// Package mdartifact is the Markdown artifact kind
// ("SpooledMarkdownArtifact"): spooled Markdown tool output the model
// navigates with eight forged tools on top of the base seven.
//
// Use the kind as a tool's artifact kind, or wrap a reader directly:
//
//	opts.ArtifactKind = mdartifact.Kind{}
//	a := mdartifact.New(id, reader, mdartifact.Kind{})
//	secs, err := a.Sections(ctx, 2)
//	text, err := a.Text(ctx, secs[0].BodyStartLine, secs[0].BodyEndLine)
//
// # Structural index
//
// The first query builds the index in one streaming scan that keeps metadata
// only (Index), following the TypeScript original's rules: front matter only when line
// 0 is "---" and a closing "---" is on one of the first 200 lines (its lines
// are then not scanned); ATX headings are 1 to 6 '#' then a space, a tab or
// the end of the line (up to three leading spaces, closing '#'s dropped; "#"
// alone is a heading with empty text, as in CommonMark and the AST); fences
// are three or more backticks or tildes, closed by the same character at
// least as long, and an unclosed fence runs to the last line. A fence may
// follow list item and block quote markers ("- ```sh", "1. ~~~", "> ```",
// found as for MaxNesting): its closing fence is then indented as the
// container's content, and a line out of the container (a '>' missing, or
// indented less than the list item's content) ends it on the line before.
// Markers indented four columns or more are indented code, and an ordered
// marker other than 1 right after paragraph text continues the paragraph
// (CommonMark): neither opens a fence. A line after markers is no heading. A heading's EndLine is the line
// before the next heading of the same or shallower depth, or the last
// line. Lines are 0-based and every range is inclusive at both ends, so a
// heading's or section's range can be passed back as is.
//
// # Parsed queries
//
// Links, Images, Text and AST parse only the requested lines [start, end]
// with goldmark (CommonMark + GFM: tables, strikethrough, task lists,
// autolinks), at most Kind.MaxParseBytes (8 MiB) at a time (ErrTooLarge
// past it); a line nested in more than MaxNesting (1000) block quotes and
// list items is ErrTooDeep, as goldmark's time grows with the square of
// that nesting. Each parse has a work budget, Kind.MaxParseWork (about a
// byte scanned per unit; DefaultMaxParseWork): inline Markdown crafted to
// make parsing quadratic ("[a](" or "*a_" repeated over a long line)
// stops with ErrTooComplex once it is spent, instead of running for
// minutes, and a parse stops with ctx's error as soon as ctx ends. Front matter lines are blanked before parsing; AST returns the
// front matter as a yaml node when the range covers it. The tree is an
// MDAST-like Node (see its doc) with block positions in document lines.
// FrontMatter parses YAML with go.yaml.in/yaml/v3 and renders JSON in
// mapping order (ErrInvalidFrontMatter on bad YAML or alias bombs).
//
// # Forged tools
//
//	artifact_md_frontmatter  front matter as JSON, or (undefined)
//	artifact_md_headings     {depth, text, startLine, endLine}; depth filters exactly
//	artifact_md_code_blocks  {lang|null, startLine, endLine}; lang "" = no language
//	artifact_md_sections     {depth, heading, headingLine, bodyStartLine, bodyEndLine}
//	                         (these three keep the items starting in [startLine, endLine])
//	artifact_md_links        {text, url, title?} in [startLine, endLine]
//	artifact_md_images       {alt, url, title?} in [startLine, endLine]
//	artifact_md_text         plain text of [startLine, endLine]
//	artifact_md_ast          the syntax tree of [startLine, endLine]
//
// Answers are JSON indented two spaces, cut at Kind.MaxAnswerBytes (64 KiB)
// with a "(truncated: ...)" note that says how to read the rest: a capped
// list of headings, sections or code blocks shows whole items and names
// the startLine to continue with; capped front matter names the
// artifact_cat call that reads its YAML.
package mdartifact
