package jsonartifact

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
)

// pathHelp is appended to every path-taking tool description: the original
// used JSONPath, so the model must be told the syntax is gjson's.
const pathHelp = " Paths use gjson syntax, not JSONPath: `user.name`, `items.0.id`, `items.#.id` (every item's id), " +
	"`items.#(price>10)#` (every item with price over 10), `#(status==\"ok\")` (the record itself, if its status is ok)."

const truncNote = "Long answers end with a (truncated: ...) note."

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
			Call:        call(callType),
		},
		{
			Tool: "artifact_json_keys",
			Description: "Top-level keys of a JSON artifact produced earlier in this turn, one per line: the root object's keys " +
				"(json/json5), or the union of every record's keys in first-seen order (jsonl/ndjson).",
			Params: noParams,
			Call:   call(callKeys),
		},
		{
			Tool:        "artifact_json_length",
			Description: "Record count of a JSON artifact produced earlier in this turn: 1 for json/json5, the number of non-empty lines for jsonl/ndjson.",
			Params:      noParams,
			Call:        call(callLength),
		},
		{
			Tool: "artifact_json_get",
			Description: "Value at a path in a JSON artifact produced earlier in this turn. json/json5: the value itself; " +
				"jsonl/ndjson: a JSON array of each record's value, skipping records where the path does not match." + pathHelp + " " + truncNote,
			Params:   pathParams,
			Required: []string{"path"},
			Call:     call(callGet),
		},
		{
			Tool: "artifact_json_filter",
			Description: "Records of a JSON artifact produced earlier in this turn for which a path matches at least once, as a JSON array " +
				"(json/json5: [root] or []). A multi-match path that matches nothing (empty array) does not match." + pathHelp + " " + truncNote,
			Params:   pathParams,
			Required: []string{"path"},
			Call:     call(callFilter),
		},
		{
			Tool: "artifact_json_slice",
			Description: "Records [start, end) of a JSON artifact produced earlier in this turn by 0-based record index, as a JSON array " +
				"(start inclusive, end exclusive, both optional); json/json5 always give [root]. " + truncNote,
			Params: sliceParam,
			Call:   call(callSlice),
		},
		{
			Tool: "artifact_json_pluck",
			Description: "Every value a path matches across all records of a JSON artifact produced earlier in this turn, as one flat JSON array " +
				"(multi-match paths such as items.#.id contribute each match)." + pathHelp + " " + truncNote,
			Params:   pathParams,
			Required: []string{"path"},
			Call:     call(callPluck),
		},
	}
}

// call adapts a typed method to Method.Call. A non-JSON artifact answers
// with an error text, as the reference's forged handlers do.
func call(fn func(ctx context.Context, a *Artifact, args map[string]any) (string, error)) func(context.Context, forge.Artifact, map[string]any) (string, error) {
	return func(ctx context.Context, fa forge.Artifact, args map[string]any) (string, error) {
		a, ok := fa.(*Artifact)
		if !ok {
			id := "<nil>"
			if fa != nil {
				id = fa.ID()
			}
			return fmt.Sprintf("Error: tool call %s results are not a %s instance", id, Name), nil
		}
		return fn(ctx, a, args)
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
	return capText(out, a.kind.maxAnswerBytes()), nil
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
		out := "(undefined)"
		err := a.matches(ctx, path, false, func(raw string) bool { out = indent(raw, ""); return false })
		return capText(out, a.kind.maxAnswerBytes()), err
	}
	l := a.newList()
	err = a.matches(ctx, path, false, l.add)
	return l.String(), err
}

func callPluck(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	path, err := pathArg(args)
	if err != nil {
		return "", err
	}
	l := a.newList()
	err = a.matches(ctx, path, true, l.add)
	return l.String(), err
}

func callFilter(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	path, err := pathArg(args)
	if err != nil {
		return "", err
	}
	return a.renderRecords(a.Filter(ctx, path))
}

func callSlice(ctx context.Context, a *Artifact, args map[string]any) (string, error) {
	start, _, err := intArg(args, "start")
	if err != nil {
		return "", err
	}
	end, ok, err := intArg(args, "end")
	if err != nil {
		return "", err
	}
	if !ok {
		end = -1
	}
	return a.renderRecords(a.Slice(ctx, start, end))
}

func (a *Artifact) renderRecords(seq func(func(Record, error) bool)) (string, error) {
	l := a.newList()
	var err error
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
// and maxBytes of text; past a cap it stops and notes the truncation.
type list struct {
	buf                bytes.Buffer
	n                  int
	maxItems, maxBytes int
	note               string
}

func (a *Artifact) newList() *list {
	return &list{maxItems: a.kind.maxMatches(), maxBytes: a.kind.maxAnswerBytes()}
}

func (l *list) add(raw string) bool {
	if l.n == l.maxItems {
		l.note = fmt.Sprintf("(truncated: first %d values shown; more exist. Narrow the path or page with artifact_json_slice)", l.n)
		return false
	}
	item := indent(raw, "  ")
	if l.buf.Len()+len(item)+8 > l.maxBytes {
		l.note = fmt.Sprintf("(truncated: %d values shown; the next is %d bytes and the answer is capped at %d bytes. Narrow the path or page with artifact_json_slice)", l.n, len(item), l.maxBytes)
		return false
	}
	if l.n == 0 {
		l.buf.WriteString("[\n  ")
	} else {
		l.buf.WriteString(",\n  ")
	}
	l.buf.WriteString(item)
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

// indent renders raw JSON indented two spaces, each line after the first
// prefixed by prefix.
func indent(raw, prefix string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(raw), prefix, "  "); err != nil {
		return raw
	}
	return buf.String()
}

// capText cuts s to at most max bytes at a line boundary and notes it.
func capText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], '\n')
	if cut < 0 {
		cut = max
	}
	return s[:cut] + fmt.Sprintf("\n(truncated: answer capped at %d of %d bytes. Narrow the path)", max, len(s))
}

func pathArg(args map[string]any) (string, error) {
	v, ok := args["path"]
	s, isString := v.(string)
	if !ok || !isString || strings.TrimSpace(s) == "" {
		return "", forge.ErrInvalidToolArgs.With(nil, "jsonartifact: path must be a non-empty string")
	}
	return s, nil
}

// intArg reads an optional non-negative integer argument, accepting the
// number types a JSON decoder or a Go caller produces.
func intArg(args map[string]any, name string) (int, bool, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return 0, false, nil
	}
	var n float64
	switch t := v.(type) {
	case float64:
		n = t
	case float32:
		n = float64(t)
	case int:
		n = float64(t)
	case int64:
		n = float64(t)
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return 0, false, forge.ErrInvalidToolArgs.With(err, "jsonartifact: %s must be an integer", name)
		}
		n = f
	default:
		return 0, false, forge.ErrInvalidToolArgs.With(nil, "jsonartifact: %s must be an integer, got %T", name, v)
	}
	if n < 0 || n != float64(int(n)) {
		return 0, false, forge.ErrInvalidToolArgs.With(nil, "jsonartifact: %s must be a non-negative integer, got %v", name, v)
	}
	return int(n), true, nil
}
