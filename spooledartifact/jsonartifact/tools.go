package jsonartifact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/internal/method"
)

// pathHelp is appended to every path-taking tool description: the original
// used JSONPath, so the model must be told the syntax is gjson's.
const pathHelp = " Paths use gjson syntax, not JSONPath: `user.name`, `items.0.id`, `items.#.id` (every item's id), " +
	"`items.#(price>10)#` (every item with price over 10), `#(status==\"ok\")` (the record itself, if its status is ok)."

const truncNote = "Long answers end with a (truncated: ...) note."

// capHint ends the note of an answer cut by method.CapAnswer.
const capHint = "narrow the path"

var (
	noParams   = json.RawMessage(`{}`)
	pathParams = json.RawMessage(`{"path":{"type":"string","minLength":1,"description":"gjson path, e.g. user.name, items.#.id or items.#(price>10)#"}}`)
	sliceParam = json.RawMessage(`{"start":{"type":"integer","minimum":0,"description":"First record index, inclusive (default 0)."},` +
		`"end":{"type":"integer","minimum":0,"description":"Record index to stop before, exclusive (default: the record count)."}}`)
)

func methods() []spooledartifact.Method {
	return []spooledartifact.Method{
		{
			Tool:        "artifact_json_type",
			Description: "Format of a JSON artifact produced earlier in this turn: json, json5, jsonl or ndjson.",
			Params:      noParams,
			Call:        spooledartifact.KindCall(Name, callType),
		},
		{
			Tool: "artifact_json_keys",
			Description: "Top-level keys of a JSON artifact produced earlier in this turn, one per line: the root object's keys " +
				"(json/json5), or the union of every record's keys in first-seen order (jsonl/ndjson).",
			Params: noParams,
			Call:   spooledartifact.KindCall(Name, callKeys),
		},
		{
			Tool:        "artifact_json_length",
			Description: "Record count of a JSON artifact produced earlier in this turn: 1 for json/json5, the number of non-empty lines for jsonl/ndjson.",
			Params:      noParams,
			Call:        spooledartifact.KindCall(Name, callLength),
		},
		{
			Tool: "artifact_json_get",
			Description: "Value at a path in a JSON artifact produced earlier in this turn. json/json5: the value itself; " +
				"jsonl/ndjson: a JSON array of each record's value, skipping records where the path does not match." + pathHelp + " " + truncNote,
			Params:   pathParams,
			Required: []string{"path"},
			Call:     spooledartifact.KindCall(Name, callGet),
		},
		{
			Tool: "artifact_json_filter",
			Description: "Records of a JSON artifact produced earlier in this turn for which a path matches at least once, as a JSON array " +
				"(json/json5: [root] or []). A multi-match path that matches nothing (empty array) does not match." + pathHelp + " " + truncNote,
			Params:   pathParams,
			Required: []string{"path"},
			Call:     spooledartifact.KindCall(Name, callFilter),
		},
		{
			Tool: "artifact_json_slice",
			Description: "Records [start, end) of a JSON artifact produced earlier in this turn by 0-based record index, as a JSON array " +
				"(start inclusive, end exclusive, both optional); json/json5 always give [root]. " + truncNote,
			Params: sliceParam,
			Call:   spooledartifact.KindCall(Name, callSlice),
		},
		{
			Tool: "artifact_json_pluck",
			Description: "Every value a path matches across all records of a JSON artifact produced earlier in this turn, as one flat JSON array " +
				"(multi-match paths such as items.#.id contribute each match)." + pathHelp + " " + truncNote,
			Params:   pathParams,
			Required: []string{"path"},
			Call:     spooledartifact.KindCall(Name, callPluck),
		},
	}
}

func callType(ctx context.Context, a *Artifact, _ map[string]any) (string, error) {
	f, err := a.Format(ctx)
	return string(f), err
}

func callKeys(ctx context.Context, a *Artifact, _ map[string]any) (string, error) {
	keys, ok, truncated, err := a.keys(ctx, a.kind.maxMatches())
	if err != nil {
		return "", err
	}
	if !ok {
		return "(undefined)", nil
	}
	if len(keys) == 0 {
		return "(empty list)", nil
	}
	out := strings.Join(keys, "\n")
	if truncated {
		out += fmt.Sprintf("\n(truncated: first %d keys shown; more exist)", len(keys))
	}
	return method.CapAnswer(out, a.kind.maxAnswerBytes(), capHint), nil
}

func callLength(ctx context.Context, a *Artifact, _ map[string]any) (string, error) {
	n, err := a.Length(ctx)
	return strconv.Itoa(n), err
}

func callGet(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	path, err := pathArg(args)
	if err != nil {
		return "", err
	}
	f, _, err := a.load(ctx)
	if err != nil {
		return "", err
	}
	if !f.lines() {
		out, total, limit := "(undefined)", len("(undefined)"), a.kind.maxAnswerBytes()
		err := a.matches(ctx, path, false, func(raw string) bool {
			head, n := method.IndentJSON(nil, []byte(raw), "", limit)
			out, total = string(head), n
			return false
		})
		return method.CapAnswerOf(out, total, limit, capHint), err
	}
	l := a.newList(f)
	err = a.matches(ctx, path, false, l.add)
	return l.String(), err
}

func callPluck(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	path, err := pathArg(args)
	if err != nil {
		return "", err
	}
	f, _, err := a.load(ctx)
	if err != nil {
		return "", err
	}
	l := a.newList(f)
	err = a.matches(ctx, path, true, l.add)
	return l.String(), err
}

func callFilter(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	path, err := pathArg(args)
	if err != nil {
		return "", err
	}
	return a.renderRecords(ctx, a.Filter(ctx, path))
}

func callSlice(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	start, err := method.IntArg(args, "start", 0)
	if err != nil {
		return "", err
	}
	end, err := method.IntArg(args, "end", -1)
	if err != nil {
		return "", err
	}
	return a.renderRecords(ctx, a.Slice(ctx, start, end))
}

func (a *Artifact) renderRecords(ctx context.Context, seq func(func(Record, error) bool)) (string, error) {
	f, _, err := a.load(ctx)
	if err != nil {
		return "", err
	}
	l := a.newList(f)
	seq(func(r Record, e error) bool {
		if e != nil {
			err = e
			return false
		}
		return l.add(string(r.Value))
	})
	return l.String(), err
}

// list renders a JSON array indented two spaces, capped at maxItems values
// and maxBytes of text; past a cap it stops and notes the truncation. An
// item is indented only as far as the answer has room (see
// method.IndentJSON).
type list struct {
	buf                bytes.Buffer
	item               []byte // scratch for the item being added
	n                  int
	maxItems, maxBytes int
	hint               string // how to reach what a cap left out
	note               string
}

// Hints ending a capped list. Only JSON Lines can be paged, by record with
// artifact_json_slice; a json/json5 document is one record, which slice
// always answers whole.
const (
	linesHint = "Narrow the path or page with artifact_json_slice"
	docHint   = "Narrow the path to fewer values with an index or a query, e.g. items.1000.id or items.#(price>10)#.id " +
		"(a single json document has one record, so artifact_json_slice cannot page it)"
)

// newList returns an empty list capped by a's limits, for an answer over
// format f.
func (a *Artifact) newList(f Format) *list {
	hint := docHint
	if f.lines() {
		hint = linesHint
	}
	return &list{maxItems: a.kind.maxMatches(), maxBytes: a.kind.maxAnswerBytes(), hint: hint}
}

func (l *list) add(raw string) bool {
	if l.n == l.maxItems {
		l.note = fmt.Sprintf("(truncated: first %d values shown; more exist. %s)", l.n, l.hint)
		return false
	}
	var size int
	l.item, size = method.IndentJSON(l.item[:0], []byte(raw), "  ", l.maxBytes-l.buf.Len()-8)
	if l.buf.Len()+size+8 > l.maxBytes {
		l.note = fmt.Sprintf("(truncated: %d values shown; the next is %d bytes and the answer is capped at %d bytes. %s)", l.n, size, l.maxBytes, l.hint)
		return false
	}
	if l.n == 0 {
		l.buf.WriteString("[\n  ")
	} else {
		l.buf.WriteString(",\n  ")
	}
	l.buf.Write(l.item)
	l.n++
	return true
}

func (l *list) String() string {
	out := "[]"
	if l.n > 0 {
		out = l.buf.String() + "\n]"
	}
	if l.note != "" {
		out += "\n" + l.note
	}
	return out
}

func pathArg(args map[string]any) (string, error) {
	s, ok, err := method.StringArg(args, "path")
	if err != nil {
		return "", err
	}
	if !ok || strings.TrimSpace(s) == "" {
		return "", forge.ErrInvalidToolArgs.With(nil, "jsonartifact: path must be a non-empty string")
	}
	if err := checkPath(strings.TrimSpace(s)); err != nil {
		var fe *forge.Error
		errors.As(err, &fe)
		return "", forge.ErrInvalidToolArgs.With(nil, "%s", fe.Message)
	}
	return s, nil
}
