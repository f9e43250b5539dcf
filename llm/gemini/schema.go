package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// maxSchemaDepth bounds how deeply $ref is followed: the API's schema has
// no references, so a recursive schema is cut there.
const maxSchemaDepth = 16

// convertSchema turns a tool's JSON Schema into the OpenAPI-style schema
// functionDeclarations take: types upper-case ("OBJECT", "INTEGER"); a
// type list with "null" becomes the type and nullable; local $ref and
// $defs/definitions are inlined (a reference back into itself, or deeper
// than maxSchemaDepth, becomes a schema without constraints); oneOf
// becomes anyOf; an allOf of one schema is merged; const and a string
// enum become enum, and an enum of other values is moved into the
// description; formats other than enum and date-time (strings), int32 and
// int64 (integers), float and double (numbers) are dropped. Everything
// else the API does not take is dropped: additionalProperties, $schema,
// $id, patternProperties, allOf of several schemas, not, if/then/else,
// multipleOf, exclusive bounds, uniqueItems, examples. A schema without
// properties (a tool with no arguments) gives nil: no parameters.
func convertSchema(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("not a JSON Schema object: %w", err)
	}
	c := converter{defs: map[string]any{}}
	for _, key := range []string{"definitions", "$defs"} {
		if defs, ok := root[key].(map[string]any); ok {
			for name, d := range defs {
				c.defs["#/"+key+"/"+name] = d
			}
		}
	}
	out := c.node(root, 0)
	if props, _ := out["properties"].(map[string]any); len(props) == 0 {
		return nil, nil
	}
	return json.Marshal(out)
}

type converter struct {
	defs  map[string]any
	stack []string // references being inlined
}

// keep are the keywords copied as they are.
var keep = []string{"description", "title", "minItems", "maxItems", "minLength", "maxLength", "pattern",
	"minimum", "maximum", "minProperties", "maxProperties", "default", "example", "propertyOrdering"}

// formats are the formats the API takes, by type.
var formats = map[string][]string{"STRING": {"enum", "date-time"}, "INTEGER": {"int32", "int64"}, "NUMBER": {"float", "double"}}

func (c *converter) node(v any, depth int) map[string]any {
	s, ok := v.(map[string]any)
	out := map[string]any{}
	if !ok || depth > maxSchemaDepth {
		return out
	}
	if ref, ok := s["$ref"].(string); ok {
		return c.ref(s, ref, depth)
	}
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
		merged := c.node(all[0], depth+1)
		for k, v := range c.node(without(s, "allOf"), depth) {
			merged[k] = v
		}
		return merged
	}
	for _, k := range keep {
		if v, ok := s[k]; ok {
			out[k] = v
		}
	}
	c.typ(s, out)
	if f, ok := s["format"].(string); ok {
		for _, allowed := range formats[fmt.Sprint(out["type"])] {
			if f == allowed {
				out["format"] = f
			}
		}
	}
	if s["nullable"] == true {
		out["nullable"] = true
	}
	c.enum(s, out)
	if props, ok := s["properties"].(map[string]any); ok {
		conv := map[string]any{}
		for name, p := range props {
			conv[name] = c.node(p, depth+1)
		}
		out["properties"] = conv
		if req, ok := s["required"].([]any); ok {
			var names []any
			for _, r := range req {
				if name, ok := r.(string); ok && props[name] != nil {
					names = append(names, name)
				}
			}
			if len(names) > 0 {
				out["required"] = names
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		out["items"] = c.node(items, depth+1)
	}
	var alts []any
	for _, key := range []string{"anyOf", "oneOf"} {
		if list, ok := s[key].([]any); ok {
			for _, alt := range list {
				alts = append(alts, c.node(alt, depth+1))
			}
		}
	}
	if len(alts) > 0 {
		out["anyOf"] = alts
	}
	if _, ok := out["type"]; !ok {
		switch {
		case out["properties"] != nil:
			out["type"] = "OBJECT"
		case out["items"] != nil:
			out["type"] = "ARRAY"
		}
	}
	return out
}

// ref inlines a local reference; s's own description wins over the
// target's.
func (c *converter) ref(s map[string]any, ref string, depth int) map[string]any {
	target, ok := c.defs[ref]
	if ref == "#" {
		target, ok = nil, false // the root itself: recursive
	}
	for _, r := range c.stack {
		if r == ref {
			ok = false
		}
	}
	out := map[string]any{}
	if ok {
		c.stack = append(c.stack, ref)
		out = c.node(target, depth+1)
		c.stack = c.stack[:len(c.stack)-1]
	}
	if d, ok := s["description"]; ok {
		out["description"] = d
	}
	return out
}

// typ sets out's type: upper-case; from a list, the one non-null type
// (nullable when "null" is listed) or, for several, anyOf one per type.
func (c *converter) typ(s, out map[string]any) {
	switch t := s["type"].(type) {
	case string:
		if t == "null" {
			out["nullable"] = true
			return
		}
		out["type"] = strings.ToUpper(t)
	case []any:
		var types []string
		for _, x := range t {
			switch name, _ := x.(string); name {
			case "":
			case "null":
				out["nullable"] = true
			default:
				types = append(types, strings.ToUpper(name))
			}
		}
		switch len(types) {
		case 0:
		case 1:
			out["type"] = types[0]
		default:
			var alts []any
			for _, t := range types {
				alts = append(alts, map[string]any{"type": t})
			}
			out["anyOf"] = alts
		}
	}
}

// enum sets out's enum from const or enum when every value is a string;
// other values are listed in the description instead.
func (c *converter) enum(s, out map[string]any) {
	values, ok := s["enum"].([]any)
	if cv, has := s["const"]; has {
		values, ok = []any{cv}, true
	}
	if !ok || len(values) == 0 {
		return
	}
	var strs []any
	var text []string
	for _, v := range values {
		if str, isStr := v.(string); isStr {
			strs = append(strs, str)
		}
		b, _ := json.Marshal(v)
		text = append(text, string(b))
	}
	if len(strs) == len(values) {
		out["enum"] = strs
		if out["type"] == nil {
			out["type"] = "STRING"
		}
		return
	}
	note := "One of: " + strings.Join(text, ", ") + "."
	if d, _ := out["description"].(string); d != "" {
		note = d + " " + note
	}
	out["description"] = note
}

func without(s map[string]any, key string) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		if k != key {
			out[k] = v
		}
	}
	return out
}
