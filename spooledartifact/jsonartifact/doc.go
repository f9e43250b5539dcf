// Package jsonartifact is the JSON artifact kind ("SpooledJsonArtifact"):
// spooled JSON, JSON5 or JSON Lines tool output the model queries with seven
// forged tools on top of the base seven.
//
// Use the kind as a tool's artifact kind, or wrap a reader directly:
//
//	tool := ...; opts.ArtifactKind = jsonartifact.Kind{}          // infer the format
//	a := jsonartifact.New(id, reader, jsonartifact.Kind{Format: jsonartifact.FormatNDJSON})
//	for rec, err := range a.Filter(ctx, "#(status==\"failed\")") { ... }
//
// # Formats
//
// With no hint the format is inferred on the first query, as the reference
// does: strict JSON (after trimming whitespace and a leading UTF-8 byte
// order mark, as JavaScript's trim does), else JSON Lines (every non-empty
// line is JSON; a one-line file is json; an empty one is JSON Lines with no
// records), else JSON5 (github.com/titanous/json5), else
// ErrUnsupportedFormat. ndjson is never inferred, only hinted. A leading
// byte order mark is dropped whatever the format, hinted or inferred.
//
// A json/json5 document is parsed in memory, so it is refused above
// Kind.MaxDocumentBytes (64 MiB by default) with ErrTooLarge; above that
// size only JSON Lines is inferred, from its first MiB of lines. JSON Lines
// have no size limit: every query streams the reader line by line, holding
// one 256 KiB buffer and one record (at most Kind.MaxRecordBytes), and
// validates each record with gjson.Valid (a bad line is ErrInvalidRecord
// with its line number). A document or record nested more than MaxDepth
// (1000) arrays and objects deep is refused with ErrTooDeep before any
// parser reads it: they recurse per level, and a Go stack overflow is
// fatal. JSON5 objects keep their members in document order
// (a repeated key keeps its first position and last value, as JSON.parse
// does); NaN and Infinity become strings.
//
// # Paths
//
// Paths use gjson syntax (https://github.com/tidwall/gjson/blob/master/SYNTAX.md),
// not the JSONPath of the TypeScript original: "user.name", "items.0",
// "items.#.id" (every id), "items.#(price>10)#" (every item over 10). A
// leading "$." is ignored and a path starting with "#(" tests the record
// itself: "#(age>30)". The forged tool descriptions say so, with examples.
// JSONPath brackets ("items[0]", "[*]", "[?(...)]") and recursive descent
// ("..name") outside gjson queries are refused with ErrInvalidPath (the
// tools: forge.ErrInvalidToolArgs) whose message gives the gjson spelling,
// rather than silently matching nothing; gjson multipaths ("[a,b]") stay
// valid. Paths over 4 KiB and the @fromstr modifier (which would parse a
// string's content as JSON past the MaxDepth check) are ErrInvalidPath too,
// as are @group, @pretty with options, more than one @dig or @pretty in a
// path (they grow a value beyond its size times its depth), and a path
// that may multiply its input more than 16 times: each
// multipath or object literal multiplies by its member count, chained or
// nested ones together ("[@this,@this]|[@this,@this]" is 4), and @tostr by
// 6. gjson builds a result whole before it can be capped or cancelled, so
// doubling per stage would exhaust memory in a few hundred bytes of path.
//
// # Forged tools
//
//	artifact_json_type    the format: json, json5, jsonl or ndjson
//	artifact_json_keys    root object keys, or the union of the records' keys
//	artifact_json_length  1, or the number of records
//	artifact_json_get     the value at path (json/json5), or each record's value (lines)
//	artifact_json_filter  the records where path matches (an empty multi-match is no match)
//	artifact_json_slice   records [start, end); json/json5 give [root]
//	artifact_json_pluck   every match across records, multi-matches flattened
//
// Answers are JSON indented two spaces (keys one per line, "(empty list)",
// "(undefined)"), capped at Kind.MaxMatches values (1000) and
// Kind.MaxAnswerBytes (64 KiB); a capped answer stops scanning early and
// ends with a "(truncated: ...)" note, so an answer over a 1 GiB artifact
// is never gigabytes. The Go iterators (Records, Get, Filter, Slice, Pluck)
// are not capped.
package jsonartifact
