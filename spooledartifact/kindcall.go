package spooledartifact

import (
	"context"
	"fmt"
	"reflect"

	"github.com/ebbforge/adk/forge"
)

// KindCall adapts a query on the concrete artifact type A of a kind to
// Method.Call. When the artifact is not an A (or is nil) the call answers,
// with a nil error, "Error: tool call <id> results are not a <kind>
// instance", as the original's forged handlers do; kind is the kind's name
// (say "SpooledJsonArtifact").
func KindCall[A forge.Artifact](kind string, fn func(ctx context.Context, a A, args map[string]any) (string, error)) func(context.Context, forge.Artifact, map[string]any) (string, error) {
	return func(ctx context.Context, fa forge.Artifact, args map[string]any) (string, error) {
		a, ok := fa.(A)
		if !ok || isNil(fa) {
			id := "<nil>"
			if !isNil(fa) {
				id = fa.ID()
			}
			return fmt.Sprintf("Error: tool call %s results are not a %s instance", id, kind), nil
		}
		return fn(ctx, a, args)
	}
}

// isNil reports a nil interface or a typed nil pointer inside one.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
