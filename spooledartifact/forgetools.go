package spooledartifact

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/safetext"
)

// ForgeOptions tune ForgeTools; nil means defaults.
type ForgeOptions struct {
	// MaxAnswerBytes caps the text of one answer of the base tools
	// artifact_head, artifact_tail, artifact_cat and artifact_grep: they
	// stop reading at the cap and end the answer with a note saying how to
	// continue. 0 means DefaultMaxAnswerBytes; a negative value means no
	// cap (the whole range in one answer, in memory). A kind's own tools
	// keep their kind's caps.
	MaxAnswerBytes int
}

// maxAnswerBytes is the cap in effect (< 0: none).
func (o *ForgeOptions) maxAnswerBytes() int {
	if o == nil || o.MaxAnswerBytes == 0 {
		return DefaultMaxAnswerBytes
	}
	return o.MaxAnswerBytes
}

// CallIDDescription describes the callId parameter every forged tool takes.
const CallIDDescription = "ToolCall id of the artifact to query."

// artifactCall is one call whose result the forged tools can query.
type artifactCall struct {
	call *forge.ToolCall
	art  forge.Artifact
}

// ArtifactCalls returns, in order and without duplicate ids (the first
// wins), the calls of calls the forged tools can query: complete or not,
// not produced by an artifact tool, with exactly one artifact as results.
func ArtifactCalls(calls []*forge.ToolCall) []*forge.ToolCall {
	list := artifactCalls(calls)
	if len(list) == 0 {
		return nil
	}
	out := make([]*forge.ToolCall, len(list))
	for i, c := range list {
		out[i] = c.call
	}
	return out
}

// artifactCalls is ArtifactCalls with each call's artifact.
func artifactCalls(calls []*forge.ToolCall) []artifactCall {
	out := make([]artifactCall, 0, len(calls))
	seen := make(map[string]bool, len(calls))
	for _, c := range calls {
		if c == nil || c.FromArtifactTool() || seen[c.ID()] {
			continue
		}
		res := c.Results() // a copy: take it once
		arts := res.Artifacts()
		if res.Kind() != forge.ResultArtifacts || len(arts) != 1 || arts[0] == nil {
			continue
		}
		seen[c.ID()] = true
		out = append(out, artifactCall{call: c, art: arts[0]})
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
//
// Every answer is safe text for a model or a UI: invalid UTF-8 becomes
// U+FFFD and control characters other than tab and line feed (NUL, ESC
// sequences, a lone carriage return) become visible symbols such as "␛".
// The artifact's stored bytes are untouched, and patterns still match
// them (artifact_grep searches the stored bytes, then renders the lines).
//
// The turn runner forges anew whenever the artifacts change, and a forged
// tool is rarely called, so the tools are built with forge's LazySchema:
// their schema documents are assembled from cached pieces and only
// resolved on a tool's first call. A kind method whose Params are not a
// JSON object fails ForgeTools; one whose schema is otherwise unusable
// (a bad pattern, a default of the wrong type) fails each call of its tool
// with forge.ErrInvalidInitialToolValue.
func ForgeTools(calls []*forge.ToolCall, opts *ForgeOptions) (*forge.Registry, error) {
	base, err := forgeBaseFor(opts.maxAnswerBytes())
	if err != nil {
		return nil, err
	}
	// kindTool is a tool a Kind adds: the first artifact's method
	// defines it, and only the artifacts of kinds with it may be queried.
	type kindTool struct {
		def Method
		ids []string
	}
	queryable := artifactCalls(calls)
	var (
		ids       = make([]string, 0, len(queryable))
		entries   = make(map[string]artifactEntry, len(queryable))
		kindTools = map[string]*kindTool{}
		kindOrder []string
	)
	for _, c := range queryable {
		a, id := c.art, c.call.ID()
		ids = append(ids, id)
		var own []Method
		if k := KindOf(a); k != nil {
			own = k.Methods()
		}
		if len(own) == 0 {
			entries[id] = artifactEntry{art: a, methods: base.byTool}
			continue
		}
		merged := mergeMethods(base.methods, own)
		methods := make(map[string]Method, len(merged))
		for _, m := range merged {
			methods[m.Tool] = m
		}
		// The names own adds are after the base ones, in the order first
		// seen; the first artifact with a name defines its tool.
		for _, m := range merged[len(base.methods):] {
			t := kindTools[m.Tool]
			if t == nil {
				t = &kindTool{def: m}
				kindTools[m.Tool] = t
				kindOrder = append(kindOrder, m.Tool)
			}
			t.ids = append(t.ids, id)
		}
		entries[id] = artifactEntry{art: a, methods: methods}
	}
	if len(ids) == 0 {
		return forge.NewRegistry()
	}
	allEnum, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	toolOpts := &forge.ToolOptions{Ephemeral: true, OnCollision: forge.CollisionReplace, LazySchema: true}
	list := make([]*forge.Tool, 0, len(base.methods)+len(kindOrder))
	add := func(m Method, tmpl schemaTemplate, enum []byte) error {
		t, err := forge.NewArtifactTool(m.Tool, m.Description, tmpl.doc(enum), dispatchHandler(m.Tool, entries), toolOpts)
		if err != nil {
			return fmt.Errorf("spooledartifact: forge %s: %w", m.Tool, err)
		}
		list = append(list, t)
		return nil
	}
	for i, m := range base.methods {
		if err := add(m, base.templates[i], allEnum); err != nil {
			return nil, err
		}
	}
	for _, name := range kindOrder {
		t := kindTools[name]
		tmpl, err := newSchemaTemplate(t.def)
		if err != nil {
			return nil, err
		}
		enum := allEnum
		if len(t.ids) < len(ids) { // else the same ids, in the same order
			if enum, err = json.Marshal(t.ids); err != nil {
				return nil, err
			}
		}
		if err := add(t.def, tmpl, enum); err != nil {
			return nil, err
		}
	}
	return forge.NewRegistry(list...)
}

// artifactEntry is a queryable artifact and its methods by tool name.
type artifactEntry struct {
	art     forge.Artifact
	methods map[string]Method
}

// dispatchHandler serves tool by calling the method of that name of the
// artifact the callId names. Its answer is safe text (valid UTF-8, control
// characters neutralised, by the rules of the internal safetext package):
// a model reads it, whatever bytes the artifact holds.
func dispatchHandler(tool string, entries map[string]artifactEntry) forge.ArtifactHandler {
	return func(ctx context.Context, args map[string]any, inv forge.Invocation) (string, error) {
		id, _ := args["callId"].(string)
		e, ok := entries[id]
		m, has := e.methods[tool]
		if !ok || !has {
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
		answer, err := m.Call(ctx, e.art, rest)
		return safetext.String(answer), err
	}
}

// forgeBase is what ForgeTools needs of the base methods, built once: they
// never change.
type forgeBase struct {
	methods   []Method
	byTool    map[string]Method
	templates []schemaTemplate // parallel to methods
	err       error
}

// forgeBaseFor returns the forgeBase of answers capped at limit bytes
// (< 0: none); callers must not modify it. The default one is built once;
// another cap rebuilds the seven methods but shares the schema templates,
// which do not depend on the cap.
func forgeBaseFor(limit int) (*forgeBase, error) {
	b := baseForge()
	if b.err != nil || limit == DefaultMaxAnswerBytes {
		return b, b.err
	}
	c := &forgeBase{methods: baseMethods(limit), byTool: make(map[string]Method, len(b.methods)), templates: b.templates}
	for _, m := range c.methods {
		c.byTool[m.Tool] = m
	}
	return c, nil
}

// baseForge returns the immutable forgeBase of the default cap; callers
// must not modify it.
var baseForge = sync.OnceValue(func() *forgeBase {
	b := &forgeBase{methods: BaseMethods(), byTool: map[string]Method{}}
	for _, m := range b.methods {
		b.byTool[m.Tool] = m
		t, err := newSchemaTemplate(m)
		if err != nil {
			b.err = err
		}
		b.templates = append(b.templates, t)
	}
	return b
})

// schemaTemplate is a forged tool's JSON Schema document (m's params plus
// the required callId enum, no other properties) cut around the enum's
// value: head and tail are exactly what json.Marshal writes for the
// document as a map, so the document is assembled with two appends.
type schemaTemplate struct {
	head, tail []byte
}

func newSchemaTemplate(m Method) (schemaTemplate, error) {
	var props map[string]json.RawMessage
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &props); err != nil {
			return schemaTemplate{}, forge.ErrInvalidInitialToolValue.With(err, "spooledartifact: method %s: params are not a JSON object", m.Tool)
		}
	}
	delete(props, "callId") // ForgeTools' callId wins
	keys := slices.Sorted(maps.Keys(props))
	at, _ := slices.BinarySearch(keys, "callId")
	member := func(b []byte, k string) ([]byte, error) {
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(props[k]) // compacted and escaped as json.Marshal does
		if err != nil {
			return nil, forge.ErrInvalidInitialToolValue.With(err, "spooledartifact: method %s: param %s", m.Tool, k)
		}
		b = append(b, kb...)
		b = append(b, ':')
		return append(b, vb...), nil
	}
	var t schemaTemplate
	t.head = []byte(`{"additionalProperties":false,"properties":{`)
	for _, k := range keys[:at] {
		var err error
		if t.head, err = member(t.head, k); err != nil {
			return schemaTemplate{}, err
		}
		t.head = append(t.head, ',')
	}
	// callId's own schema, keys sorted, cut before the enum's value.
	desc, err := json.Marshal(CallIDDescription)
	if err != nil {
		return schemaTemplate{}, err
	}
	t.head = append(t.head, `"callId":{"description":`...)
	t.head = append(t.head, desc...)
	t.head = append(t.head, `,"enum":`...)
	t.tail = []byte(`,"type":"string"}`)
	for _, k := range keys[at:] {
		t.tail = append(t.tail, ',')
		var err error
		if t.tail, err = member(t.tail, k); err != nil {
			return schemaTemplate{}, err
		}
	}
	required := append(slices.Clone(m.Required), "callId")
	sort.Strings(required)
	rb, err := json.Marshal(required)
	if err != nil {
		return schemaTemplate{}, err
	}
	t.tail = append(t.tail, `},"required":`...)
	t.tail = append(t.tail, rb...)
	t.tail = append(t.tail, `,"type":"object"}`...)
	return t, nil
}

// doc is the schema document with enum, a JSON array, as callId's enum.
func (t schemaTemplate) doc(enum []byte) json.RawMessage {
	return slices.Concat(t.head, enum, t.tail)
}
