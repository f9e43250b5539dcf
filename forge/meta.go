package forge

import "fmt"

// Bounds on a tool's Meta, which is deep-copied through its nested
// map[string]any and []any values (see Tool.Options).
const (
	maxMetaDepth  = 100
	maxMetaValues = 100_000
)

// checkMeta reports why meta cannot be deep-copied, or "": a map or slice
// that contains itself would make the copy recurse for ever (a stack
// overflow kills the process), and one shared many times over would make
// it explode. Both show as a nesting or a size beyond the bounds.
func checkMeta(meta map[string]any) string {
	values := 0
	var walk func(v any, depth int) string
	walk = func(v any, depth int) string {
		values++
		if values > maxMetaValues {
			return fmt.Sprintf("more than %d nested values (a map or slice held many times over?)", maxMetaValues)
		}
		if depth > maxMetaDepth {
			return fmt.Sprintf("nested deeper than %d levels (a map or slice that contains itself?)", maxMetaDepth)
		}
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				if msg := walk(e, depth+1); msg != "" {
					return msg
				}
			}
		case []any:
			for _, e := range v {
				if msg := walk(e, depth+1); msg != "" {
					return msg
				}
			}
		}
		return ""
	}
	return walk(meta, 0)
}
