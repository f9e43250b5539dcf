package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/media"
)

// Defaults used when the corresponding Options field is zero.
const (
	// DefaultMaxResultBytes caps the text of one result (1 MiB).
	DefaultMaxResultBytes = 1 << 20
	// DefaultMaxMediaBytes caps one media item of a result (16 MiB).
	DefaultMaxMediaBytes = 16 << 20
)

// Options configure a [Server]; nil means all defaults.
type Options struct {
	// Implementation is how the server introduces itself; nil means
	// {Name: "adk", Version: "1"}.
	Implementation *mcp.Implementation
	// Instructions, when set, tell clients how to use the server.
	Instructions string
	// MaxResultBytes caps the text of one result; 0 means
	// DefaultMaxResultBytes.
	MaxResultBytes int
	// MaxMediaBytes caps one media item; a larger one is replaced by a
	// note. 0 means DefaultMaxMediaBytes.
	MaxMediaBytes int
	// Observer, when set, sees every call start and end (forge's events).
	Observer forge.ExecutionObserver
	// Logger receives diagnostics; the zero value is silent.
	Logger zerolog.Logger
}

// Server serves a registry's visible tools over MCP. Create it with [New].
// Safe for concurrent use.
type Server struct {
	reg  *forge.Registry
	opts Options
	srv  *mcp.Server

	mu     sync.Mutex // serialises Sync
	served map[string]*forge.Tool
}

// ErrInvalidTool: a tool of the registry cannot be served (its schema's
// root type is not the single "object" MCP requires).
var ErrInvalidTool = &forge.Error{Code: "E_MCP_INVALID_TOOL", Status: 500, Fatal: true}

// New returns a server offering reg's visible tools. A tool MCP cannot
// describe is [ErrInvalidTool]; negative limits are
// forge.ErrInvalidInitialToolValue.
func New(reg *forge.Registry, opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if reg == nil {
		reg = &forge.Registry{}
	}
	if o.MaxResultBytes < 0 || o.MaxMediaBytes < 0 {
		return nil, forge.ErrInvalidInitialToolValue.With(nil, "mcpserver: limits must be >= 0")
	}
	if o.MaxResultBytes == 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.MaxMediaBytes == 0 {
		o.MaxMediaBytes = DefaultMaxMediaBytes
	}
	impl := o.Implementation
	if impl == nil {
		impl = &mcp.Implementation{Name: "adk", Version: "1"}
	}
	s := &Server{
		reg:  reg,
		opts: o,
		srv: mcp.NewServer(impl, &mcp.ServerOptions{
			Instructions: o.Instructions,
			// Announce list changes even while no tool is served yet.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		}),
		served: map[string]*forge.Tool{},
	}
	if err := s.Sync(); err != nil {
		return nil, err
	}
	return s, nil
}

// MCP returns the SDK server, to run it over another transport.
func (s *Server) MCP() *mcp.Server { return s.srv }

// ServeStdio serves one client over the process's standard input and
// output until the client disconnects or ctx ends.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.srv.Run(ctx, &mcp.StdioTransport{})
}

// Sync makes the served tools the registry's visible tools again: tools
// added, replaced or unhidden since are added, the others removed, and
// connected clients are told the list changed. A tool MCP cannot describe
// is [ErrInvalidTool]; the others are served all the same.
func (s *Server) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	visible := s.reg.Visible()
	keep := make(map[string]bool, len(visible))
	var errs []error
	for _, t := range visible {
		keep[t.Name()] = true
		if s.served[t.Name()] == t {
			continue
		}
		if err := s.add(t); err != nil {
			errs = append(errs, err)
			keep[t.Name()] = false
		}
	}
	var gone []string
	for name := range s.served {
		if !keep[name] {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		s.srv.RemoveTools(gone...)
		for _, n := range gone {
			delete(s.served, n)
		}
	}
	return errors.Join(errs...)
}

// add serves t with the schema document forge publishes for it.
func (s *Server) add(t *forge.Tool) (err error) {
	schema := t.Schema()
	var root struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(schema, &root) != nil || root.Type != "object" {
		return ErrInvalidTool.With(nil, "mcpserver: tool %q: MCP needs an input schema of type \"object\", got %s", t.Name(), schema)
	}
	defer func() {
		// The SDK panics on a tool it cannot serve; it is reported, not
		// passed on.
		if p := recover(); p != nil {
			err = ErrInvalidTool.With(nil, "mcpserver: tool %q: %v", t.Name(), p)
		}
	}()
	s.srv.AddTool(&mcp.Tool{Name: t.Name(), Description: t.Description(), InputSchema: json.RawMessage(schema)}, s.handler(t))
	s.served[t.Name()] = t
	return nil
}

// handler runs t for one call.
func (s *Server) handler(t *forge.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		obs := &checksumObserver{next: s.opts.Observer}
		out, err := t.Execute(ctx, req.Params.Arguments, forge.Invocation{}, obs)
		var meta mcp.Meta
		if obs.callID != "" {
			meta = mcp.Meta{"checksum": obs.callID}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Meta: meta, IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s.capped(err.Error())}}}, nil
		}
		content, err := s.content(ctx, out)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Meta: meta, IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s.capped(
				fmt.Sprintf("tool %q succeeded but its output could not be read: %v", t.Name(), err))}}}, nil
		}
		return &mcp.CallToolResult{Meta: meta, Content: content}, nil
	}
}

// checksumObserver records the call's checksum and passes the events on.
type checksumObserver struct {
	next   forge.ExecutionObserver
	callID string
}

func (o *checksumObserver) ToolExecutionStart(e forge.ExecutionStart) {
	o.callID = e.CallID
	if o.next != nil {
		o.next.ToolExecutionStart(e)
	}
}

func (o *checksumObserver) ToolExecutionEnd(e forge.ExecutionEnd) {
	if o.next != nil {
		o.next.ToolExecutionEnd(e)
	}
}

// copier is what artifacts offer to read their bytes (spooledartifact's
// and the artifacts built on them).
type copier interface {
	Copy(ctx context.Context, w io.Writer) (int64, error)
}

// content turns a tool's output into MCP content.
func (s *Server) content(ctx context.Context, out forge.Output) ([]mcp.Content, error) {
	switch out.Kind() {
	case forge.OutputText:
		return []mcp.Content{&mcp.TextContent{Text: s.capped(out.Text())}}, nil
	case forge.OutputBytes:
		return s.bytesContent(out.Bytes()), nil
	case forge.OutputReader:
		r := out.Reader()
		if c, ok := r.(io.Closer); ok {
			defer c.Close()
		}
		b, err := io.ReadAll(io.LimitReader(r, int64(s.opts.MaxResultBytes)+1))
		if err != nil {
			return nil, err
		}
		return s.bytesContent(b), nil
	case forge.OutputArtifact:
		a := out.Artifact()
		c, ok := a.(copier)
		if !ok {
			return []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("[artifact %s of kind %s]", a.ID(), a.Kind())}}, nil
		}
		w := &limitWriter{max: s.opts.MaxResultBytes + 1}
		if _, err := c.Copy(ctx, w); err != nil && !errors.Is(err, errFull) {
			return nil, err
		}
		return s.bytesContent(w.buf.Bytes()), nil
	case forge.OutputMedia:
		var content []mcp.Content
		for _, m := range out.Media() {
			c, err := s.mediaContent(ctx, m)
			if err != nil {
				return nil, err
			}
			content = append(content, c)
		}
		return content, nil
	}
	return nil, errors.New("no output")
}

// bytesContent is b as text when it is UTF-8, else as an embedded binary
// resource. b longer than MaxResultBytes is cut, saying so (binary is left
// out: cut, it would be broken).
func (s *Server) bytesContent(b []byte) []mcp.Content {
	cut := len(b) > s.opts.MaxResultBytes
	if cut {
		b = b[:cutPoint(b, s.opts.MaxResultBytes)]
	}
	if !utf8.Valid(b) {
		if cut {
			return []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("[binary result of more than %d bytes left out]", s.opts.MaxResultBytes)}}
		}
		return []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "adk:result", MIMEType: "application/octet-stream", Blob: b,
		}}}
	}
	text := safetext.Bytes(b)
	if cut {
		text += s.truncationNote(-1)
	}
	return []mcp.Content{&mcp.TextContent{Text: text}}
}

// mediaContent is m as image or audio content, or else as an embedded
// resource.
func (s *Server) mediaContent(ctx context.Context, m *media.Media) (mcp.Content, error) {
	if n := m.Size(); n > int64(s.opts.MaxMediaBytes) {
		return &mcp.TextContent{Text: fmt.Sprintf("[%s %s of %d bytes left out: over the %d-byte limit]", m.Kind(), m.Marker(), n, s.opts.MaxMediaBytes)}, nil
	}
	b, err := m.Bytes(ctx, int64(s.opts.MaxMediaBytes))
	if err != nil {
		return nil, err
	}
	switch m.Kind() {
	case media.KindImage:
		return &mcp.ImageContent{Data: b, MIMEType: m.MIMEType()}, nil
	case media.KindAudio:
		return &mcp.AudioContent{Data: b, MIMEType: m.MIMEType()}, nil
	}
	return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
		URI: "adk:media/" + m.ID(), MIMEType: m.MIMEType(), Blob: b,
	}}, nil
}

// capped makes text safe (internal/safetext) and cuts it to
// MaxResultBytes, saying so.
func (s *Server) capped(text string) string {
	text = safetext.String(text)
	if len(text) <= s.opts.MaxResultBytes {
		return text
	}
	return text[:cutPoint([]byte(text), s.opts.MaxResultBytes)] + s.truncationNote(len(text))
}

func (s *Server) truncationNote(total int) string {
	if total < 0 {
		return fmt.Sprintf("\n[truncated: only the first %d bytes are shown]", s.opts.MaxResultBytes)
	}
	return fmt.Sprintf("\n[truncated: %d bytes, only the first %d are shown]", total, s.opts.MaxResultBytes)
}

// cutPoint is the largest n' <= n that does not split a UTF-8 character
// of b.
func cutPoint(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	if n < 0 {
		return 0
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}

// errFull stops a copy at the limit.
var errFull = errors.New("mcpserver: result limit reached")

// limitWriter keeps the first max bytes written to it, then fails.
type limitWriter struct {
	buf bytes.Buffer
	max int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); len(p) > room {
		w.buf.Write(p[:room])
		return room, errFull
	}
	return w.buf.Write(p)
}
