// Package forge defines tools, tool calls, token-counted text and the tool
// registry: the primitives every other package of the kit builds on.
package forge
