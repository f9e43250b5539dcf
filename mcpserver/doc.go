// Package mcpserver serves the visible tools of a [forge.Registry] over the
// Model Context Protocol, so that any MCP client (an IDE, another agent
// framework) can call them.
//
//	srv, err := mcpserver.New(registry, nil)
//	if err != nil {
//		return err
//	}
//	err = srv.ServeStdio(ctx) // or, over streamable HTTP:
//
//	ln, err := mcpserver.Listen(":8080") // 127.0.0.1:8080: loopback unless a host is named
//	err = srv.ServeHTTP(ctx, ln, nil)
//
// The server is the official Go SDK's (github.com/modelcontextprotocol/go-sdk);
// [Server.MCP] returns it for any other transport. Every tool is registered
// with the schema document forge publishes for it ([forge.Tool.Schema]), and
// every call runs [forge.Tool.Execute]: forge's own validation (a bad call is
// an IsError result whose text names each bad field), timeouts and panic
// recovery, and the call's checksum, returned in the result's _meta under
// "checksum". [Server.Sync] re-reads the registry and tells connected clients
// when its tools changed.
//
// # Results
//
// Text and UTF-8 bytes are text content; other bytes are an embedded
// binary resource; a stream is read; an artifact is returned as its text.
// Text beyond Options.MaxResultBytes is cut, with a note saying so. Images
// and audio are image and audio content, other media embedded resources.
// A tool's error is an IsError result carrying the error's text.
//
// # HTTP safety
//
// [Listen] binds to loopback unless told otherwise, and the handler of
// [Server.Handler] refuses (403) a request whose Host is not a loopback
// name or one of HTTPOptions.AllowedHosts, and a browser request whose
// Origin is not a loopback origin or one of HTTPOptions.AllowedOrigins: a
// web page cannot reach a local server through DNS rebinding.
package mcpserver
