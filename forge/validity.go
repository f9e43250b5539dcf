package forge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	compiled "github.com/santhosh-tekuri/jsonschema/v6"
)

// Validity is decided by github.com/santhosh-tekuri/jsonschema/v6, which
// compiles a schema into a validator about twice as fast as
// github.com/google/jsonschema-go's Resolved.Validate with half the
// allocations (BenchmarkValidateOnly). jsonschema-go keeps the jobs only it
// does: deriving schemas from Go types, applying defaults, and explaining a
// failure field by field (validator.diagnose).

// schemaURL names a tool's schema document inside its own compiler. It is
// hierarchical, so every relative $ref resolves to a URL the loader sees.
const schemaURL = "mem:///tool-schema.json"

// noLoader refuses every external document: a $ref must resolve inside the
// tool's schema, never by reading files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %q: only references inside the schema are resolved", url)
}

// compileSchema compiles the schema document doc into the validator that
// decides whether arguments are valid.
func compileSchema(doc json.RawMessage) (*compiled.Schema, error) {
	v, err := compiled.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("not a JSON Schema document: %v", err)
	}
	c := compiled.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, v); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// compiledProblems words a validation failure from the compiled validator's
// own report, one "field: problem" per fault: what diagnose falls back on
// when jsonschema-go finds nothing to explain.
func compiledProblems(err error) []string {
	ve, ok := errors.AsType[*compiled.ValidationError](err)
	if !ok {
		return []string{err.Error()}
	}
	var out []string
	seen := map[string]bool{}
	var walk func(u *compiled.OutputUnit)
	walk = func(u *compiled.OutputUnit) {
		if len(u.Errors) == 0 && u.Error != nil {
			p := u.Error.String()
			if f := pointerField(u.InstanceLocation); f != "" {
				p = f + ": " + p
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(ve.BasicOutput())
	if len(out) == 0 {
		out = append(out, ve.Error())
	}
	return out
}

// pointerField renders a JSON pointer into the arguments ("/a/0/b") as a
// field path ("a.0.b").
func pointerField(ptr string) string {
	ptr = strings.TrimPrefix(ptr, "/")
	if ptr == "" {
		return ""
	}
	segs := strings.Split(ptr, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return strings.Join(segs, ".")
}
