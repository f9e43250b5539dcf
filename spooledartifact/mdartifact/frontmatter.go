package mdartifact

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// yamlNodeBudget bounds the nodes visited while converting, so aliases
// cannot expand exponentially ("billion laughs").
const yamlNodeBudget = 100_000

// yamlToJSON converts the first YAML document of src to compact JSON,
// keeping mapping order. An empty document is null. Scalars keep their YAML
// types (int, float, bool, null); NaN and infinities, timestamps and
// binary become strings; a non-scalar mapping key is its JSON text.
func yamlToJSON(src []byte) (json.RawMessage, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, ErrInvalidFrontMatter.With(err, "mdartifact: front matter is not valid yaml")
	}
	c := converter{budget: yamlNodeBudget}
	var buf bytes.Buffer
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return json.RawMessage("null"), nil
	}
	if err := c.write(&buf, doc.Content[0], 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type converter struct{ budget int }

func (c *converter) write(buf *bytes.Buffer, n *yaml.Node, depth int) error {
	c.budget--
	if c.budget < 0 || depth > 1000 {
		return ErrInvalidFrontMatter.With(nil, "mdartifact: front matter expands beyond %d nodes", yamlNodeBudget)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			buf.WriteString("null")
			return nil
		}
		return c.write(buf, n.Content[0], depth+1)
	case yaml.AliasNode:
		return c.write(buf, n.Alias, depth+1)
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, e := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := c.write(buf, e, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			k := n.Content[i]
			key := k.Value
			if k.Kind != yaml.ScalarNode {
				var kb bytes.Buffer
				if err := c.write(&kb, k, depth+1); err != nil {
					return err
				}
				key = kb.String()
			}
			writeString(buf, key)
			buf.WriteByte(':')
			if err := c.write(buf, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		writeScalar(buf, n)
	}
	return nil
}

func writeScalar(buf *bytes.Buffer, n *yaml.Node) {
	switch n.ShortTag() {
	case "!!null":
		buf.WriteString("null")
		return
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			buf.WriteString(strconv.FormatBool(b))
			return
		}
	case "!!int":
		var v any
		if n.Decode(&v) == nil {
			switch t := v.(type) {
			case int:
				buf.WriteString(strconv.Itoa(t))
				return
			case int64:
				buf.WriteString(strconv.FormatInt(t, 10))
				return
			case uint64:
				buf.WriteString(strconv.FormatUint(t, 10))
				return
			case float64:
				if !math.IsInf(t, 0) && !math.IsNaN(t) {
					buf.WriteString(strconv.FormatFloat(t, 'g', -1, 64))
					return
				}
			}
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
			return
		}
	}
	writeString(buf, n.Value)
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(buf *bytes.Buffer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
