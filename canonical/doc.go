// Package canonical renders JSON values as canonical text and computes the
// {tool,args} SHA-256 checksum, byte-identical to the TypeScript reference.
package canonical
