// Package quoted finds where a quoted string in JSON-like text ends, the
// one lexical rule the packages that scan JSON without parsing it (indenting
// answers, bounding nesting) share: a quote is escaped when an odd run of
// backslashes precedes it.
package quoted
