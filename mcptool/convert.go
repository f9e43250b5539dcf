package mcptool

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/media"
)

// MetaServerName is the key of a tool's Meta holding the tool's name on
// the server, which differs from the forge name when Options.Prefix is set
// or the name had to be mapped.
const MetaServerName = "mcpServerName"

// maxDescriptionBytes caps a tool description taken from the server; it
// goes into every request to the model.
const maxDescriptionBytes = 8 << 10

// build turns the listed server tools into forge tools, leaving out (with
// a warning) those filtered out, listed twice or whose schema forge cannot
// use.
func (ts *Toolset) build(listed []*mcp.Tool) []*forge.Tool {
	out := make([]*forge.Tool, 0, len(listed))
	taken := map[string]bool{}
	for _, t := range listed {
		if t == nil || ts.opts.Filter != nil && !ts.opts.Filter(t.Name) {
			continue
		}
		name := toolName(ts.opts.Prefix, t.Name)
		if taken[name] {
			ts.opts.Logger.Warn().Str("tool", t.Name).Msg("mcptool: the server lists this tool name twice; the first is kept")
			continue
		}
		if name != ts.opts.Prefix+t.Name {
			ts.opts.Logger.Info().Str("tool", t.Name).Str("as", name).Msg("mcptool: tool name mapped to one providers accept")
		}
		ft, err := ts.forgeTool(name, t)
		if err != nil {
			ts.opts.Logger.Warn().Err(err).Str("tool", t.Name).Msg("mcptool: tool left out")
			continue
		}
		taken[name] = true
		out = append(out, ft)
	}
	return out
}

// forgeTool builds the forge tool name for the server tool t.
func (ts *Toolset) forgeTool(name string, t *mcp.Tool) (*forge.Tool, error) {
	schema := json.RawMessage(`{"type":"object"}`)
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("input schema: %v", err)
		}
		schema = b
	}
	server := t.Name
	h := func(ctx context.Context, args map[string]any, _ forge.Invocation) (forge.Output, error) {
		res, err := ts.call(ctx, server, args)
		if err != nil {
			return forge.Output{}, err
		}
		return ts.output(server, res)
	}
	return forge.NewTool(name, description(t), schema, h, &forge.ToolOptions{
		OpenSchema: true,
		Timeout:    ts.opts.Timeout,
		Meta:       map[string]any{MetaServerName: t.Name},
	})
}

// description is the server's description of t, or else its title, made
// safe text and capped: it goes to the model as it is.
func description(t *mcp.Tool) string {
	d := strings.TrimSpace(t.Description)
	if d == "" {
		d = strings.TrimSpace(t.Title)
	}
	if d == "" && t.Annotations != nil {
		d = strings.TrimSpace(t.Annotations.Title)
	}
	if d == "" {
		d = "The MCP server's tool " + t.Name + "."
	}
	return safetext.Prefix(d, maxDescriptionBytes)
}

// toolName is prefix+name, or when providers would refuse that, a mapping
// of it: characters outside [a-zA-Z0-9_-] become '_', the name is cut to
// fit and "_" and eight hex digits of SHA-256(name) end it.
func toolName(prefix, name string) string {
	n := prefix + name
	if len(n) <= 64 && validName(n, false) {
		return n
	}
	var b strings.Builder
	for _, r := range n {
		if r < utf8.RuneSelf && validName(string(r), false) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:4])
	s := b.String()
	if len(s) > 64-len(suffix) {
		s = s[:64-len(suffix)]
	}
	return s + suffix
}

// validName reports whether s is made of [a-zA-Z0-9_-] only, and not
// empty unless emptyOK.
func validName(s string, emptyOK bool) bool {
	if s == "" {
		return emptyOK
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// output turns a call result into the tool's output (see the package doc).
func (ts *Toolset) output(tool string, res *mcp.CallToolResult) (forge.Output, error) {
	var texts []string
	var items []*media.Media
	for i, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			texts = append(texts, c.Text)
		case *mcp.ImageContent:
			texts, items = ts.addMedia(texts, items, tool, i, media.KindImage, c.MIMEType, "", c.Data)
		case *mcp.AudioContent:
			texts, items = ts.addMedia(texts, items, tool, i, media.KindAudio, c.MIMEType, "", c.Data)
		case *mcp.ResourceLink:
			texts = append(texts, fmt.Sprintf("[resource link: %s %s]", c.Name, c.URI))
		case *mcp.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
			case r.Blob != nil:
				texts, items = ts.addMedia(texts, items, tool, i, media.KindForMIME(r.MIMEType), r.MIMEType, path.Base(r.URI), r.Blob)
			default:
				texts = append(texts, r.Text)
			}
		default:
			texts = append(texts, fmt.Sprintf("[content of an unsupported type %T]", c))
		}
	}
	if res.StructuredContent != nil {
		if s, err := json.Marshal(res.StructuredContent); err == nil && !carried(texts, s) {
			texts = append(texts, string(s))
		}
	}
	text := ts.capped(strings.Join(texts, "\n"))
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without saying more"
		}
		return forge.Output{}, ErrToolError.With(nil, "%s", safetext.String(text))
	}
	if len(items) == 0 {
		return forge.TextOutput(text), nil
	}
	if text != "" {
		doc, err := ts.newMedia(tool, len(res.Content), media.KindDocument, "text/plain; charset=utf-8", "text.txt", []byte(text))
		if err != nil {
			return forge.Output{}, err
		}
		items = append(items, doc)
	}
	return forge.MediaOutput(items...), nil
}

// carried reports whether one of texts is the JSON document s (as
// json.Marshal writes a decoded value).
func carried(texts []string, s []byte) bool {
	for _, t := range texts {
		var v any
		if json.Unmarshal([]byte(t), &v) != nil {
			continue
		}
		if b, err := json.Marshal(v); err == nil && bytes.Equal(b, s) {
			return true
		}
	}
	return false
}

// addMedia appends data as a media item, or a note in its place when it
// is too large or invalid.
func (ts *Toolset) addMedia(texts []string, items []*media.Media, tool string, i int, kind media.Kind, mimeType, filename string, data []byte) ([]string, []*media.Media) {
	if len(data) > ts.opts.MaxMediaBytes {
		return append(texts, fmt.Sprintf("[%s of %d bytes left out: over the %d-byte limit]", kind, len(data), ts.opts.MaxMediaBytes)), items
	}
	m, err := ts.newMedia(tool, i, kind, mimeType, filename, data)
	if err != nil {
		return append(texts, fmt.Sprintf("[%s left out: %v]", kind, err)), items
	}
	return texts, append(items, m)
}

// newMedia builds a media item of the configured trust tier.
func (ts *Toolset) newMedia(tool string, i int, kind media.Kind, mimeType, filename string, data []byte) (*media.Media, error) {
	r := media.NewMemoryReader(data)
	if strings.TrimSpace(mimeType) == "" {
		mimeType, _ = media.Sniff(context.Background(), r)
	}
	if filename == "" || filename == "." || filename == "/" {
		filename = fmt.Sprintf("%s-%d%s", tool, i+1, extension(mimeType))
	}
	return media.New(media.Raw{
		Kind:      kind,
		MIMEType:  mimeType,
		Filename:  filename,
		Reader:    r,
		TrustTier: ts.opts.TrustTier,
		Hazard:    media.HazardFor(kind),
		Source:    "mcp tool " + tool,
	})
}

// extension guesses a file extension from a MIME type's subtype.
func extension(mimeType string) string {
	_, sub, ok := strings.Cut(media.SanitizeMIMEType(mimeType), "/")
	if !ok {
		return ""
	}
	sub, _, _ = strings.Cut(sub, "+")
	if sub == "" || len(sub) > 8 || !validName(sub, false) {
		return ""
	}
	return "." + sub
}

// capped cuts text to MaxResultBytes, saying so.
func (ts *Toolset) capped(text string) string {
	if len(text) <= ts.opts.MaxResultBytes {
		return text
	}
	return cut(text, ts.opts.MaxResultBytes) + fmt.Sprintf("\n[truncated: the MCP server returned %d bytes, the first %d are shown]",
		len(text), ts.opts.MaxResultBytes)
}

// cut returns the longest prefix of s of at most n bytes that does not
// split a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
