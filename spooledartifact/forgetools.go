package spooledartifact

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/ebbforge/adk/forge"
)

// ForgeOptions tune ForgeTools; nil means defaults. It has no settings yet
// and is there so that adding one does not change ForgeTools' signature.
type ForgeOptions struct{}

// CallIDDescription describes the callId parameter every forged tool takes.
const CallIDDescription = "ToolCall id of the artifact to query."

// artifactCall is one call whose result the forged tools can query.
type artifactCall struct {
	id   string
	art  forge.Artifact
	kind Kind // nil: the base methods only
}

// ArtifactCalls returns, in order and without duplicate ids (the first
// wins), the calls of calls the forged tools can query: complete or not,
// not produced by an artifact tool, with exactly one artifact as results.
func ArtifactCalls(calls []*forge.ToolCall) []*forge.ToolCall {
	var out []*forge.ToolCall
	seen := map[string]bool{}
	for _, c := range calls {
		if c == nil || c.FromArtifactTool() || seen[c.ID()] {
			continue
		}
		res := c.Results()
		if res.Kind() != forge.ResultArtifacts || len(res.Artifacts()) != 1 || res.Artifacts()[0] == nil {
			continue
		}
		seen[c.ID()] = true
		out = append(out, c)
	}
	return out
}

// KindOf returns the Kind of a, or nil when a does not implement Kinded
// (its tools are then the base seven).
func KindOf(a forge.Artifact) Kind {
	if k, ok := a.(Kinded); ok {
		return k.ArtifactKind()
	}
	return nil
}

// ForgeTools builds the turn-scoped artifact_* query tools over the
// artifacts of calls (see ArtifactCalls; results of artifact tools are left
// out, so the model cannot grep a grep). Every tool is an ephemeral forge
// ArtifactTool with OnCollision replace whose required callId parameter is
// an enum of the ids it can query, so an unknown id fails validation with
// forge.ErrInvalidToolArgs.
//
// The base seven tools take every artifact. Then, for each distinct Kind
// among the artifacts (by Name), the kind's own methods are forged with the
// enum narrowed to the calls whose artifact has that kind. A kind method
// named like a base tool overrides it for that kind's artifacts (one tool,
// dispatching per artifact; its schema is the base one's). With no
// artifacts the registry is empty.
func ForgeTools(calls []*forge.ToolCall, opts *ForgeOptions) (*forge.Registry, error) {
	_ = opts
	type forged struct {
		def  Method
		ids  []string
		byID map[string]Method
	}
	var order []string
	tools := map[string]*forged{}
	arts := map[string]forge.Artifact{}
	for _, c := range ArtifactCalls(calls) {
		a := c.Results().Artifacts()[0]
		arts[c.ID()] = a
		for _, m := range EffectiveMethods(KindOf(a)) {
			f := tools[m.Tool]
			if f == nil {
				f = &forged{def: m, byID: map[string]Method{}}
				tools[m.Tool] = f
				order = append(order, m.Tool)
			}
			f.ids = append(f.ids, c.ID())
			f.byID[c.ID()] = m
		}
	}
	// The base tools' definitions are the base ones even when the first
	// artifact's kind overrides them.
	for _, m := range BaseMethods() {
		if f := tools[m.Tool]; f != nil {
			f.def = m
		}
	}
	var list []*forge.Tool
	for _, name := range order {
		f := tools[name]
		schema, err := toolSchema(f.def, f.ids)
		if err != nil {
			return nil, err
		}
		t, err := forge.NewArtifactTool(name, f.def.Description, schema, dispatchHandler(f.byID, arts),
			&forge.ToolOptions{Ephemeral: true, OnCollision: forge.CollisionReplace})
		if err != nil {
			return nil, fmt.Errorf("spooledartifact: forge %s: %w", name, err)
		}
		list = append(list, t)
	}
	return forge.NewRegistry(list...)
}

func dispatchHandler(byID map[string]Method, arts map[string]forge.Artifact) forge.ArtifactHandler {
	return func(ctx context.Context, args map[string]any, inv forge.Invocation) (string, error) {
		id, _ := args["callId"].(string)
		m, ok := byID[id]
		if !ok {
			return fmt.Sprintf("Error: no artifact with id %s in this turn", id), nil
		}
		if m.Call == nil {
			return fmt.Sprintf("Error: artifact has no method %s", m.Tool), nil
		}
		rest := make(map[string]any, len(args))
		for k, v := range args {
			if k != "callId" {
				rest[k] = v
			}
		}
		return m.Call(ctx, arts[id], rest)
	}
}

// toolSchema is the JSON Schema of a forged tool: m's params plus the
// required callId enum, no other properties.
func toolSchema(m Method, ids []string) (json.RawMessage, error) {
	props := map[string]json.RawMessage{}
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &props); err != nil {
			return nil, forge.ErrInvalidInitialToolValue.With(err, "spooledartifact: method %s: params are not a JSON object", m.Tool)
		}
	}
	callID, err := json.Marshal(map[string]any{"type": "string", "enum": ids, "description": CallIDDescription})
	if err != nil {
		return nil, err
	}
	props["callId"] = callID
	required := append([]string{}, m.Required...)
	required = append(required, "callId")
	sort.Strings(required)
	return json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	})
}
