package forge

import (
	"bytes"
	"encoding/json"
	"math"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Limits of the documents gjson decodes. Its decoding revisits nested
// values once per level, so deep documents go to encoding/json, which also
// keeps its own nesting limit for them.
const (
	maxFastDecode     = 4 << 10
	maxFastContainers = 64 // '{' and '[' bytes, strings included
)

// decodeObject decodes the JSON object b (b[0] == '{') into the map
// encoding/json.Unmarshal would produce, float64 numbers included. names
// (may be nil) are the schema's property names, shared by the keys that
// match one.
//
// Arguments are decoded on every call. An object of scalars, the common
// case, takes decodeFlat's single pass; other small, plain documents take
// gjson's parser, about twice as fast as encoding/json here
// (BenchmarkDecodeOnly). The rest
// goes to encoding/json, which also words the error of invalid input. Where
// the two decoders differ, encoding/json's answer is taken: \u escapes
// (encoding/json turns a lone surrogate into U+FFFD and keeps the escape
// that follows; gjson consumes it), invalid UTF-8 (encoding/json replaces
// it), numbers that overflow a float64 (encoding/json rejects them) and
// repeated keys (the last wins in encoding/json, the first in gjson).
// FuzzDecodeObject holds the two to the same results.
func decodeObject(b []byte, names map[string]string) (map[string]any, error) {
	if m, ok := decodeFlat(b, names); ok {
		return m, nil
	}
	if len(b) <= maxFastDecode && bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) <= maxFastContainers &&
		!bytes.Contains(b, []byte(`\u`)) && utf8.Valid(b) && gjson.ValidBytes(b) {
		doc := gjson.ParseBytes(b)
		if m, ok := doc.Value().(map[string]any); ok {
			if entries, finite := inspect(m); finite && entries == members(doc) {
				return m, nil
			}
		}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// inspect returns how many object entries decoded JSON holds and whether
// all its numbers are finite.
func inspect(v any) (entries int, finite bool) {
	switch v := v.(type) {
	case float64:
		return 0, !math.IsInf(v, 0)
	case map[string]any:
		entries = len(v)
		for _, e := range v {
			n, ok := inspect(e)
			if !ok {
				return 0, false
			}
			entries += n
		}
	case []any:
		for _, e := range v {
			n, ok := inspect(e)
			if !ok {
				return 0, false
			}
			entries += n
		}
	}
	return entries, true
}

// members counts the object members written in the document r: more than
// the decoded entries when a key repeats.
func members(r gjson.Result) (n int) {
	obj := r.IsObject()
	r.ForEach(func(_, v gjson.Result) bool {
		if obj {
			n++
		}
		if v.IsObject() || v.IsArray() {
			n += members(v)
		}
		return true
	})
	return n
}
