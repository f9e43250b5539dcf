package mcptool

import (
	"fmt"
	"strings"

	"github.com/ebbforge/adk/forge"
)

// Error codes of this package.
const (
	CodeInvalidOptions = forge.Code("E_MCP_INVALID_OPTIONS")
	CodeConnect        = forge.Code("E_MCP_CONNECT")
	CodeToolError      = forge.Code("E_MCP_TOOL_ERROR")
	CodeCallFailed     = forge.Code("E_MCP_CALL_FAILED")
	CodeConnectionLost = forge.Code("E_MCP_CONNECTION_LOST")
	CodeClosed         = forge.Code("E_MCP_CLOSED")
)

// Sentinels for errors.Is; errors.As with *forge.Error reads the details.
var (
	// ErrInvalidOptions: New was given bad options.
	ErrInvalidOptions = &forge.Error{Code: CodeInvalidOptions, Status: 500, Fatal: true}
	// ErrConnect: the server could not be reached, or would not list its tools.
	ErrConnect = &forge.Error{Code: CodeConnect, Status: 502}
	// ErrToolError: the server's tool reported an error (IsError); the
	// message is the tool's own text, capped.
	ErrToolError = &forge.Error{Code: CodeToolError, Status: 502}
	// ErrCallFailed: the server refused the call itself (an unknown tool,
	// a protocol error).
	ErrCallFailed = &forge.Error{Code: CodeCallFailed, Status: 502}
	// ErrConnectionLost: the connection ended while a call was running;
	// the call may have run. The next call reconnects.
	ErrConnectionLost = &forge.Error{Code: CodeConnectionLost, Status: 503}
	// ErrClosed: the toolset was closed.
	ErrClosed = &forge.Error{Code: CodeClosed, Status: 503}
)

// problems collects what is wrong with the options.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return ErrInvalidOptions.With(nil, "mcptool: invalid options: %s", strings.Join(p, "; "))
}
