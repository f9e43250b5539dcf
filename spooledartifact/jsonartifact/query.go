package jsonartifact

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"strings"

	"github.com/tidwall/gjson"
)

// Record is one JSON value of an artifact: the root of a json/json5
// document, or one non-empty line of JSON Lines.
type Record struct {
	// Index is the 0-based record number (always 0 for a document).
	Index int
	// Line is the 0-based line the record is on (0 for a document).
	Line int
	// Value is the record: compact JSON for json/json5, the trimmed line for
	// JSON Lines.
	Value json.RawMessage
}

// query is a prepared gjson path (https://github.com/tidwall/gjson/blob/master/SYNTAX.md)
// with three conveniences: a leading "$." is dropped and "$" alone is the
// record itself (models reach for JSONPath), and a path starting with "#("
// tests the record itself, so "#(age>30)" matches records whose age is over
// 30 (it runs on the record wrapped in [ ], like gjson's "[@this].#(age>30)"
// but without its allocations). A query is not safe for concurrent use.
type query struct {
	path  string
	wrap  bool
	depth int
	buf   []byte
}

// newQuery refuses JSONPath-looking paths with ErrInvalidPath (see
// checkPath).
func newQuery(p string) (*query, error) {
	p = strings.TrimSpace(p)
	if err := checkPath(p); err != nil {
		return nil, err
	}
	switch {
	case p == "$" || p == "":
		p = "@this"
	case strings.HasPrefix(p, "$."):
		p = p[2:]
	}
	return &query{path: p, wrap: strings.HasPrefix(p, "#("), depth: multiDepth(p)}, nil
}

// lookup evaluates q on one valid JSON value; ok is false when the path
// does not match, including a multi-match path that matched nothing.
func (q *query) lookup(value []byte) (r gjson.Result, ok bool) {
	if q.wrap {
		q.buf = append(append(append(q.buf[:0], '['), value...), ']')
		value = q.buf
	}
	r = gjson.GetBytes(value, q.path)
	if !r.Exists() {
		return r, false
	}
	if q.depth > 0 && r.IsArray() {
		empty := true
		r.ForEach(func(_, _ gjson.Result) bool { empty = false; return false })
		if empty {
			return r, false
		}
	}
	return r, true
}

// multiDepth counts the multi-match operators of a gjson path: a "#"
// segment that is not the last one (items.#.id; a final "#" is a count) and
// a query ending in ")#" (items.#(price>10)#). gjson packs each level of
// matches into an array, so a result nested that deep is a list of matches
// and an empty one means no match.
func multiDepth(p string) int {
	depth, parens, inString := 0, 0, false
	segStart := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			i++
		case inString:
			if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '(':
			parens++
		case c == ')':
			parens--
			if parens == 0 && i+1 < len(p) && p[i+1] == '#' {
				depth++
			}
		case parens == 0 && (c == '.' || c == '|'):
			if p[segStart:i] == "#" {
				depth++
			}
			segStart = i + 1
		}
	}
	return depth
}

// each visits every record in order; value is only valid during fn, which
// returns false to stop. JSON Lines are streamed and each line is validated.
func (a *Artifact) each(ctx context.Context, fn func(index, line int, value []byte) (bool, error)) error {
	f, root, err := a.load(ctx)
	if err != nil {
		return err
	}
	if !f.lines() {
		_, err := fn(0, 0, root)
		return err
	}
	rc, err := a.Reader().Open(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	index := 0
	return eachLine(ctx, rc, a.kind.maxRecordBytes(), func(line []byte, n int) (bool, error) {
		if ok, err := validLine(line, n); err != nil {
			return false, err
		} else if !ok {
			return false, ErrInvalidRecord.With(nil, "jsonartifact: line %d is not valid json", n)
		}
		more, err := fn(index, n, line)
		index++
		return more, err
	})
}

// Keys returns the top-level keys of a json/json5 root object (ok is false
// when the root is not an object), or for JSON Lines the union of the
// top-level keys of every object record in first-seen order (ok is false
// when that union is empty).
func (a *Artifact) Keys(ctx context.Context) (keys []string, ok bool, err error) {
	keys, ok, _, err = a.keys(ctx, 0)
	return keys, ok, err
}

// keys is Keys stopping after max distinct keys (0: no cap); truncated
// reports that more were found.
func (a *Artifact) keys(ctx context.Context, max int) (keys []string, ok, truncated bool, err error) {
	seen := map[string]struct{}{}
	keys = []string{}
	f, _, err := a.load(ctx)
	if err != nil {
		return nil, false, false, err
	}
	err = a.each(ctx, func(_, _ int, value []byte) (bool, error) {
		r := gjson.ParseBytes(value)
		if !r.IsObject() {
			return true, nil
		}
		ok = true
		r.ForEach(func(k, _ gjson.Result) bool {
			if _, dup := seen[k.Str]; dup {
				return true
			}
			if max > 0 && len(keys) == max {
				truncated = true
				return false
			}
			seen[k.Str] = struct{}{}
			keys = append(keys, k.Str)
			return true
		})
		return !truncated, nil
	})
	if err != nil {
		return nil, false, false, err
	}
	if f.lines() {
		ok = len(keys) > 0
	}
	return keys, ok, truncated, nil
}

// Length returns 1 for json/json5 and the record count (non-empty lines) for
// JSON Lines; the count is cached after the first full scan.
func (a *Artifact) Length(ctx context.Context) (int, error) {
	f, _, err := a.load(ctx)
	if err != nil {
		return 0, err
	}
	if !f.lines() {
		return 1, nil
	}
	a.mu.Lock()
	n := a.count
	a.mu.Unlock()
	if n >= 0 {
		return n, nil
	}
	n = 0
	if err := a.each(ctx, func(_, _ int, _ []byte) (bool, error) { n++; return true, nil }); err != nil {
		return 0, err
	}
	a.mu.Lock()
	a.count = n
	a.mu.Unlock()
	return n, nil
}

// Records yields every record in order, streaming JSON Lines from the
// reader. Iteration stops at the first error, which is yielded last.
func (a *Artifact) Records(ctx context.Context) iter.Seq2[Record, error] {
	return a.records(ctx, func(int, []byte) bool { return true }, -1)
}

// Filter yields the records for which path matches at least once (see
// Record paths: gjson syntax, e.g. "user.name", "items.#(price>10)#",
// "#(status==\"active\")"). For json/json5 it yields the root or nothing.
// A JSONPath-looking path yields only ErrInvalidPath, as do Get and Pluck.
func (a *Artifact) Filter(ctx context.Context, path string) iter.Seq2[Record, error] {
	q, err := newQuery(path)
	if err != nil {
		return func(yield func(Record, error) bool) { yield(Record{}, err) }
	}
	return a.records(ctx, func(_ int, v []byte) bool { _, ok := q.lookup(v); return ok }, -1)
}

// Slice yields the records with index in [start, end); end < 0 means to the
// last record. For json/json5 it yields the root whatever the range, like
// the reference.
func (a *Artifact) Slice(ctx context.Context, start, end int) iter.Seq2[Record, error] {
	if f, _, err := a.load(ctx); err == nil && !f.lines() {
		// No stop either: end=0 would end the scan before the root.
		return a.records(ctx, func(int, []byte) bool { return true }, -1)
	}
	start = max(start, 0)
	keep := func(i int, _ []byte) bool { return i >= start && (end < 0 || i < end) }
	return a.records(ctx, keep, end)
}

// records yields copies of the records keep accepts; stop >= 0 ends the
// scan at that record index (stop=0 yields nothing), stop < 0 never.
func (a *Artifact) records(ctx context.Context, keep func(int, []byte) bool, stop int) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		err := a.each(ctx, func(i, line int, v []byte) (bool, error) {
			if stop >= 0 && i >= stop {
				return false, nil
			}
			if !keep(i, v) {
				return true, nil
			}
			return yield(Record{Index: i, Line: line, Value: bytes.Clone(v)}, nil), nil
		})
		if err != nil {
			yield(Record{}, err)
		}
	}
}

// Get yields, for every record where path matches, the value at path (one
// value per record; multi-match paths such as "items.#.id" give one array).
// For json/json5 that is at most one value.
func (a *Artifact) Get(ctx context.Context, path string) iter.Seq2[json.RawMessage, error] {
	return a.values(ctx, path, false)
}

// Pluck yields every value path matches across all records, flattening the
// arrays that multi-match paths ("items.#.id", "items.#(price>10)#",
// "orders.#.items.#.sku") pack their matches into, one level per operator.
func (a *Artifact) Pluck(ctx context.Context, path string) iter.Seq2[json.RawMessage, error] {
	return a.values(ctx, path, true)
}

func (a *Artifact) values(ctx context.Context, path string, flatten bool) iter.Seq2[json.RawMessage, error] {
	return func(yield func(json.RawMessage, error) bool) {
		err := a.matches(ctx, path, flatten, func(raw string) bool {
			return yield(json.RawMessage(raw), nil)
		})
		if err != nil {
			yield(nil, err)
		}
	}
}

// matches calls fn with the raw JSON of every match (a fresh string), in
// record order; fn returns false to stop.
func (a *Artifact) matches(ctx context.Context, path string, flatten bool, fn func(raw string) bool) error {
	q, err := newQuery(path)
	if err != nil {
		return err
	}
	depth := 0
	if flatten {
		depth = q.depth
	}
	return a.each(ctx, func(_, _ int, v []byte) (bool, error) {
		r, ok := q.lookup(v)
		if !ok {
			return true, nil
		}
		return spread(r, depth, fn), nil
	})
}

// spread calls fn with r, or with the elements of r's nested arrays depth
// levels down; it returns false once fn does.
func spread(r gjson.Result, depth int, fn func(raw string) bool) bool {
	if depth == 0 || !r.IsArray() {
		return fn(r.Raw)
	}
	more := true
	r.ForEach(func(_, e gjson.Result) bool { more = spread(e, depth-1, fn); return more })
	return more
}
