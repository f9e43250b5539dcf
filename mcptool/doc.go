// Package mcptool turns the tools of a Model Context Protocol server into
// [forge.Tool] values the turn runner calls like any other.
//
//	ts, err := mcptool.New(mcptool.Command("my-mcp-server", "--stdio"), nil)
//	if err != nil {
//		return err
//	}
//	defer ts.Close() // ends the subprocess
//	tools, err := ts.Tools(ctx) // connects on first use
//	runner, err := turnrunner.New(model, &turnrunner.Options{Tools: tools})
//
// A [Toolset] connects lazily, over any transport of the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): a stdio subprocess ([Command]),
// streamable HTTP ([StreamableHTTP]) or one of your own. [Toolset.Tools]
// lists the server's tools once and again only after the server announces
// that its list changed, or after a reconnection.
//
// # Tools
//
// Each server tool becomes an untyped forge tool: Options.Filter picks
// them by their server name and Options.Prefix is put before every name. A
// name providers would refuse (outside ^[a-zA-Z0-9_-]{1,64}$) is mapped,
// never dropped: the characters outside the set become '_', the name is cut
// to fit, and eight hex digits of its SHA-256 are appended so two mapped
// names cannot meet; the tool's Meta holds the server's name under
// [MetaServerName]. The server's input schema keeps its own semantics
// (forge's OpenSchema): a schema that says nothing about unknown keys
// accepts them, as the server does. A schema forge cannot use (a reference
// outside the document, say) leaves that one tool out, with a warning in
// Options.Logger.
//
// # Calls and results
//
// Arguments are validated by forge and sent as validated: with the
// schema's defaults filled in, and numbers as float64 (an integer beyond
// 2^53 arrives rounded). A result the
// server marks IsError is an [ErrToolError] carrying its text, which the
// runner shows the model as a failed call. Text content is the tool's text
// output (spooled by the runner like any text); structured content is kept
// as its JSON text unless a text item already carries it; resource links
// and embedded text resources are rendered as text. Images, audio and
// embedded binary resources become [media.Media] with the third-party trust
// tier of Options.TrustTier; when a result mixes media and text, the text
// travels as a text/plain document beside them. Everything a server returns
// is third-party output: its tools are never Trusted (the runner renders
// their results in the untrusted envelope), and text beyond
// Options.MaxResultBytes and media beyond Options.MaxMediaBytes are cut,
// with a note saying so.
//
// # Connections
//
// A session that ends (the subprocess exits, the HTTP server drops it) is
// noticed and re-established on the next call. A call the server refused
// because it no longer knows the session (an HTTP server that restarted),
// or that the transport could not deliver (a dead kept-alive connection),
// is sent once more on a new session; a connection lost while a call was
// running is [ErrConnectionLost], since the call may have run. [Toolset.Close]
// ends the session and the subprocess; a Toolset is safe for concurrent use.
package mcptool
