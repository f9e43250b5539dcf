// Package spooledartifact spools tool output to a store and gives the model
// line-indexed, queryable handles to it through forged artifact_* tools.
package spooledartifact
