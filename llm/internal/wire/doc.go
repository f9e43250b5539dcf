// Package wire is the HTTP side that the provider adapters share: one POST
// whose response is read as a Server-Sent Events stream, a whole JSON body
// or an error body, bounded by a request timeout (until the headers) and
// an idle timeout (each wait on the body), which a [Watchdog] enforces by
// cancelling the call's context with the expired timeout as cause.
package wire
