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
// A forged tool is rarely called, so the tools are built with forge's
// LazySchema: their schema documents are assembled from cached pieces and
// only resolved on a tool's first call. A kind method whose Params are not
// a JSON object fails ForgeTools; one whose schema is otherwise unusable
// (a bad pattern, a default of the wrong type) fails each call of its tool
// with forge.ErrInvalidInitialToolValue.
//
// To keep the tools of a growing list of calls up to date, use a [Forger],
// which rebuilds only what new artifacts change.
func ForgeTools(calls []*forge.ToolCall, opts *ForgeOptions) (*forge.Registry, error) {
	tools, err := NewForger(opts).Update(calls)
	if err != nil {
		return nil, err
	}
	return forge.NewRegistry(tools...)
}

// Forger keeps the artifact_* tools of ForgeTools up to date over a list
// of calls that grows, as a turn's does: Update looks only at the calls
// appended since its last call, and forges tools again only when they
// brought a queryable artifact, and then only the tools whose enum of call
// ids changed (the base ones, and the tools of the new artifacts' kinds).
// Not safe for concurrent use; the tools it returns are. The zero value is
// not usable: call NewForger.
type Forger struct {
	limit int // the answers' byte cap (< 0: none)
	base  *forgeBase
	// seen are the calls of the last Update, to tell an append from a
	// change; table, ids and enum describe their queryable artifacts.
	seen      []*forge.ToolCall
	table     *entryTable
	ids       []string
	enum      []byte // ids as a JSON array
	kindTools map[string]*kindTool
	kindOrder []string
	handlers  map[string]forge.ArtifactHandler // by tool name; they read table
	tools     []*forge.Tool
	doc       []byte // scratch for the schema documents
}

// kindTool is a tool a Kind adds: the first artifact's method defines it,
// and only the artifacts of kinds with it may be queried.
type kindTool struct {
	def  Method
	tmpl schemaTemplate
	ids  []string
	tool *forge.Tool // nil when ids changed since it was forged
}

// NewForger returns a Forger with no calls yet.
func NewForger(opts *ForgeOptions) *Forger {
	return &Forger{limit: opts.maxAnswerBytes()}
}

// Update returns the artifact_* tools over calls, as ForgeTools would
// forge them, in the same order. When calls extends the calls of the last
// Update (the same calls first, by identity) only the appended ones are
// looked at; when those add no queryable artifact the tools returned are
// the very same as last time. Otherwise the tools are built afresh. The
// caller must not modify the returned slice.
func (f *Forger) Update(calls []*forge.ToolCall) ([]*forge.Tool, error) {
	if f.base == nil || len(calls) < len(f.seen) || !slices.Equal(calls[:len(f.seen)], f.seen) {
		if err := f.reset(); err != nil {
			return nil, err
		}
	}
	fresh := calls[len(f.seen):]
	f.seen = append(f.seen, fresh...)
	added, err := f.add(fresh)
	if err == nil && (added || f.tools == nil) {
		err = f.forge()
	}
	if err != nil {
		f.base = nil // start over next time
		return nil, err
	}
	return f.tools, nil
}

// reset forgets every call.
func (f *Forger) reset() error {
	base, err := forgeBaseFor(f.limit)
	if err != nil {
		return err
	}
	*f = Forger{limit: f.limit, base: base, table: &entryTable{m: map[string]artifactEntry{}},
		kindTools: map[string]*kindTool{}, handlers: map[string]forge.ArtifactHandler{}, doc: f.doc}
	return nil
}

// add records the queryable artifacts of calls (ids already known are
// skipped: the first wins) and reports whether there were any.
func (f *Forger) add(calls []*forge.ToolCall) (bool, error) {
	added := false
	for _, c := range artifactCalls(calls) {
		a, id := c.art, c.call.ID()
		if _, dup := f.table.get(id); dup {
			continue
		}
		idJSON, err := json.Marshal(id)
		if err != nil {
			return false, err
		}
		if len(f.enum) == 0 {
			f.enum = append(f.enum, '[')
		} else {
			f.enum[len(f.enum)-1] = ','
		}
		f.enum = append(append(f.enum, idJSON...), ']')
		f.ids = append(f.ids, id)
		added = true
		var own []Method
		if k := KindOf(a); k != nil {
			own = k.Methods()
		}
		if len(own) == 0 {
			f.table.put(id, artifactEntry{art: a, methods: f.base.byTool})
			continue
		}
		merged := mergeMethods(f.base.methods, own)
		methods := make(map[string]Method, len(merged))
		for _, m := range merged {
			methods[m.Tool] = m
		}
		// The names own adds are after the base ones, in the order first
		// seen; the first artifact with a name defines its tool.
		for _, m := range merged[len(f.base.methods):] {
			t := f.kindTools[m.Tool]
			if t == nil {
				tmpl, err := newSchemaTemplate(m)
				if err != nil {
					return false, err
				}
				t = &kindTool{def: m, tmpl: tmpl}
				f.kindTools[m.Tool] = t
				f.kindOrder = append(f.kindOrder, m.Tool)
			}
			t.ids, t.tool = append(t.ids, id), nil
		}
		f.table.put(id, artifactEntry{art: a, methods: methods})
	}
	return added, nil
}

// forge builds the tools whose enum changed into a new list (a list
// returned before is never modified).
func (f *Forger) forge() error {
	if len(f.ids) == 0 {
		f.tools = []*forge.Tool{}
		return nil
	}
	toolOpts := &forge.ToolOptions{Ephemeral: true, OnCollision: forge.CollisionReplace, LazySchema: true}
	build := func(m Method, tmpl schemaTemplate, enum []byte) (*forge.Tool, error) {
		h := f.handlers[m.Tool]
		if h == nil {
			h = dispatchHandler(m.Tool, f.table)
			f.handlers[m.Tool] = h
		}
		// forge copies the document: one buffer serves every tool.
		f.doc = append(append(append(f.doc[:0], tmpl.head...), enum...), tmpl.tail...)
		t, err := forge.NewArtifactTool(m.Tool, m.Description, f.doc, h, toolOpts)
		if err != nil {
			return nil, fmt.Errorf("spooledartifact: forge %s: %w", m.Tool, err)
		}
		return t, nil
	}
	tools := make([]*forge.Tool, 0, len(f.base.methods)+len(f.kindOrder))
	for i, m := range f.base.methods {
		t, err := build(m, f.base.templates[i], f.enum)
		if err != nil {
			return err
		}
		tools = append(tools, t)
	}
	for _, name := range f.kindOrder {
		kt := f.kindTools[name]
		if kt.tool == nil {
			enum := f.enum
			if len(kt.ids) < len(f.ids) { // else the same ids, in the same order
				var err error
				if enum, err = json.Marshal(kt.ids); err != nil {
					return err
				}
			}
			t, err := build(kt.def, kt.tmpl, enum)
			if err != nil {
				return err
			}
			kt.tool = t
		}
		tools = append(tools, kt.tool)
	}
	f.tools = tools
	return nil
}

// artifactEntry is a queryable artifact and its methods by tool name.
type artifactEntry struct {
	art     forge.Artifact
	methods map[string]Method
}

// entryTable holds the queryable artifacts by call id. A Forger only adds
// to it, while the tools it forged earlier may be reading it: their enums
// hold a subset of its ids, whose entries never change.
type entryTable struct {
	mu sync.RWMutex
	m  map[string]artifactEntry
}

func (t *entryTable) get(id string) (artifactEntry, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	e, ok := t.m[id]
	return e, ok
}

func (t *entryTable) put(id string, e artifactEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m[id] = e
}

// dispatchHandler serves tool by calling the method of that name of the
// artifact the callId names. Its answer is safe text (valid UTF-8, control
// characters neutralised, by the rules of the internal safetext package):
// a model reads it, whatever bytes the artifact holds.
func dispatchHandler(tool string, entries *entryTable) forge.ArtifactHandler {
	return func(ctx context.Context, args map[string]any, inv forge.Invocation) (string, error) {
		id, _ := args["callId"].(string)
		e, ok := entries.get(id)
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
