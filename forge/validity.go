package forge

import (
	"bytes"
	"encoding/json"
	"fmt"

	compiled "github.com/santhosh-tekuri/jsonschema/v6"
)

// Validity is decided by github.com/santhosh-tekuri/jsonschema/v6, which
// compiles a schema into a validator about twice as fast as
// github.com/google/jsonschema-go's Resolved.Validate with half the
// allocations (BenchmarkValidateOnly), and reports every failure at the
// argument it concerns, which is what validator.diagnose words for the
// model. jsonschema-go keeps the jobs only it does: deriving schemas from Go
// types and applying defaults. Arguments of a schema of scalar properties
// are first offered to flatObject, which can only say they are valid.

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
// decides whether arguments are valid. A document with a reference cycle
// that never descends into the value (see cycle.go) is refused.
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
	root, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	if cycle := inPlaceCycle(compileAll(c, root, v)); cycle != nil {
		return nil, cycleError(cycle)
	}
	return root, nil
}
