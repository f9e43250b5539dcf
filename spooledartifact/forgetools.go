package spooledartifact

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/forgestate"
	"github.com/ebbforge/adk/internal/safetext"
)

// callIDDescription describes the callId parameter every forged tool takes.
const callIDDescription = "ToolCall id of the artifact to query."

// queryable returns the artifact of c the forged tools query, if any: c
// is not from an artifact tool and has exactly one artifact as results.
func queryable(c *forge.ToolCall) (forge.Artifact, bool) {
	if c == nil || c.FromArtifactTool() {
		return nil, false
	}
	res := c.Results() // a copy: take it once
	arts := res.Artifacts()
	if len(arts) != 1 || arts[0] == nil {
		return nil, false
	}
	return arts[0], true
}

// kindOf returns the Kind of a, or nil when a does not implement Kinded
// (its tools are then the base seven).
func kindOf(a forge.Artifact) Kind {
	if k, ok := a.(Kinded); ok {
		return k.ArtifactKind()
	}
	return nil
}

// Forger forges the turn-scoped artifact_* query tools over the artifacts
// of a list of tool calls that grows, as a turn's does. The calls it can
// query have exactly one artifact as results and were not made by an
// artifact tool, so the model cannot grep a grep. Every tool is an
// ephemeral forge ArtifactTool with OnCollision replace and a required
// string parameter callId. The schemas are static: they do not list the
// ids, so the tools stay the same while a turn's artifacts grow. The
// handler checks the id: one the tool cannot query fails with
// forge.ErrInvalidToolArgs wrapping ErrNotFound, and the message lists the
// ids it can query (the most recent ones, up to a bound), so the model can
// correct itself.
//
// The base seven tools take every artifact. Then, for each distinct Kind
// among the artifacts (by Name), the kind's own methods are forged, taking
// only the calls whose artifact has that kind. A kind method named like a
// base tool overrides it for that kind's artifacts (one tool, dispatching
// per artifact; its schema is the base one's). With no artifacts there are
// no tools.
//
// Every answer is safe text for a model or a UI: invalid UTF-8 becomes
// U+FFFD and control characters other than tab and line feed (NUL, ESC
// sequences, a lone carriage return) become visible symbols such as "␛".
// The artifact's stored bytes are untouched, and patterns still match
// them (artifact_grep searches the stored bytes, then renders the lines).
//
// Each tool is forged once, when the first artifact it can query arrives
// (the base seven with the first artifact, a kind's own tools with the
// first artifact of that kind); new artifacts of known kinds change no
// tool: the tools read them from the Forger's table. A forged tool is
// rarely called, so the tools are built with forge's LazySchema: their
// schema documents are only resolved on a tool's first call. The base
// seven are forged once per process for the default answer cap and for up
// to 16 others (other caps forge them per Forger), and each Forger gets
// copies of them bound to its table, which share that resolution. A kind method
// whose Params are not a JSON object fails Update; one whose schema is
// otherwise unusable (a bad pattern, a default of the wrong type) fails
// each call of its tool with forge.ErrInvalidInitialToolValue.
//
// The zero value is ready to use. A Forger is not safe for concurrent use;
// the tools it returns are.
type Forger struct {
	// MaxAnswerBytes caps the text of one answer of the base tools
	// artifact_head, artifact_tail, artifact_cat and artifact_grep: they
	// stop reading at the cap and end the answer with a note saying how to
	// continue. 0 means DefaultMaxAnswerBytes; a negative value means no
	// cap (the whole range in one answer, in memory). A kind's own tools
	// keep their kind's caps. Set it before the first Update.
	MaxAnswerBytes int

	base *forgeBase
	// seen are the calls of the last Update, to tell an append from a
	// change; table holds their queryable artifacts.
	seen      []*forge.ToolCall
	table     *entryTable
	baseTools []*forge.Tool          // forged with the first artifact
	kindTools map[string]*forge.Tool // a kind's own tools, by name
	kindOrder []string               // their names, in the order first seen
	tools     []*forge.Tool
}

// Update returns the artifact_* tools over calls. When calls extends the
// calls of the last Update (the same calls first, by identity) only the
// appended ones are looked at; unless they bring a tool that was not
// there, the tools returned are the very same as last time. Otherwise the
// tools are built afresh. The caller must not modify the returned slice.
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
		f.list()
	}
	if err != nil {
		f.base = nil // start over next time
		return nil, err
	}
	return f.tools, nil
}

// reset forgets every call.
func (f *Forger) reset() error {
	limit := f.MaxAnswerBytes
	if limit == 0 {
		limit = DefaultMaxAnswerBytes
	}
	base, err := forgeBaseFor(limit)
	if err != nil {
		return err
	}
	*f = Forger{MaxAnswerBytes: f.MaxAnswerBytes, base: base, table: &entryTable{m: map[string]artifactEntry{}},
		kindTools: map[string]*forge.Tool{}}
	return nil
}

// add records the queryable artifacts of calls (ids already known are
// skipped: the first wins), forges the tools they are the first to need,
// and reports whether there were any.
func (f *Forger) add(calls []*forge.ToolCall) (bool, error) {
	added := false
	for _, c := range calls {
		a, ok := queryable(c)
		if !ok {
			continue
		}
		id := c.ID()
		if _, dup := f.table.get(id); dup {
			continue
		}
		if f.baseTools == nil {
			templates, err := f.base.templates()
			if err != nil {
				return false, err
			}
			tools := make([]*forge.Tool, len(templates))
			for i, t := range templates {
				tools[i] = forgestate.WithHandler(t, dispatchHandler(f.base.methods[i].Tool, f.table)).(*forge.Tool)
			}
			f.baseTools, added = tools, true
		}
		var own []Method
		if k := kindOf(a); k != nil {
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
			if f.kindTools[m.Tool] != nil {
				continue
			}
			doc, err := toolSchema(m)
			if err != nil {
				return false, err
			}
			t, err := forgeTool(m, doc, f.table)
			if err != nil {
				return false, err
			}
			f.kindTools[m.Tool] = t
			f.kindOrder = append(f.kindOrder, m.Tool)
			added = true
		}
		f.table.put(id, artifactEntry{art: a, methods: methods})
	}
	return added, nil
}

// forgeTool forges the tool of m, whose schema document is doc, over table.
func forgeTool(m Method, doc json.RawMessage, table *entryTable) (*forge.Tool, error) {
	toolOpts := &forge.ToolOptions{Ephemeral: true, OnCollision: forge.CollisionReplace, LazySchema: true}
	t, err := forge.NewArtifactTool(m.Tool, m.Description, doc, dispatchHandler(m.Tool, table), toolOpts)
	if err != nil {
		return nil, fmt.Errorf("spooledartifact: forge %s: %w", m.Tool, err)
	}
	return t, nil
}

// list puts the forged tools in order into a new list (a list returned
// before is never modified).
func (f *Forger) list() {
	tools := make([]*forge.Tool, 0, len(f.baseTools)+len(f.kindOrder))
	tools = append(tools, f.baseTools...)
	for _, name := range f.kindOrder {
		tools = append(tools, f.kindTools[name])
	}
	f.tools = tools
}

// artifactEntry is a queryable artifact and its methods by tool name.
type artifactEntry struct {
	art     forge.Artifact
	methods map[string]Method
}

// entryTable holds the queryable artifacts by call id, and the ids in the
// order they came. A Forger only adds to it, while the tools it forged may
// be reading it; an entry never changes once put.
type entryTable struct {
	mu    sync.RWMutex
	m     map[string]artifactEntry
	order []string
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
	t.order = append(t.order, id)
}

// maxListedIDs bounds the ids a not-found answer lists.
const maxListedIDs = 20

// notFound is the error of tool asked for id, which it cannot query: it
// lists the most recent ids tool can query, up to maxListedIDs.
func (t *entryTable) notFound(tool, id string) error {
	t.mu.RLock()
	var ids []string
	more := 0
	for _, v := range slices.Backward(t.order) {
		if _, ok := t.m[v].methods[tool]; !ok {
			continue
		}
		if len(ids) == maxListedIDs {
			more++
			continue
		}
		ids = append(ids, strconv.Quote(v))
	}
	t.mu.RUnlock()
	slices.Reverse(ids)
	valid := "none"
	if len(ids) > 0 {
		valid = strings.Join(ids, ", ")
		if more > 0 {
			valid = fmt.Sprintf("%s (and %d earlier)", valid, more)
		}
	}
	return forge.ErrInvalidToolArgs.With(ErrNotFound,
		"spooledartifact: %s: no artifact with callId %s in this turn; the callIds it can query: %s", tool, strconv.Quote(id), valid)
}

// dispatchHandler serves tool by calling the method of that name of the
// artifact the callId names. Its answer is safe text (valid UTF-8, control
// characters neutralised, by the rules of the internal safetext package):
// a model reads it, whatever bytes the artifact holds.
func dispatchHandler(tool string, entries *entryTable) func(context.Context, map[string]any, forge.Invocation) (string, error) {
	return func(ctx context.Context, args map[string]any, inv forge.Invocation) (string, error) {
		id, _ := args["callId"].(string)
		e, ok := entries.get(id)
		m, has := e.methods[tool]
		if !ok || !has {
			return "", entries.notFound(tool, id)
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

// forgeBase is what a Forger needs of the base methods, built once: they
// never change.
type forgeBase struct {
	methods []Method
	byTool  map[string]Method
	docs    []json.RawMessage // the tools' schema documents, parallel to methods
	err     error
	// templates are the methods' tools, forged once over an empty table
	// (a template answers every call id as unknown; none is registered):
	// a Forger gives its turn copies bound to its own table, so the
	// schemas are checked, and resolved on a first call, once.
	templates func() ([]*forge.Tool, error)
}

// withTemplates sets b.templates; b's methods and docs are final.
func (b *forgeBase) withTemplates() *forgeBase {
	b.templates = sync.OnceValues(func() ([]*forge.Tool, error) {
		tools := make([]*forge.Tool, len(b.methods))
		for i, m := range b.methods {
			t, err := forgeTool(m, b.docs[i], &entryTable{})
			if err != nil {
				return nil, err
			}
			tools[i] = t
		}
		return tools, nil
	})
	return b
}

// forgeBaseFor returns the forgeBase of answers capped at limit bytes
// (< 0: none); callers must not modify it. The default one is built once;
// another cap has the seven methods of its own, sharing the schema
// documents, which do not depend on the cap. The first few other caps are
// kept too (a cap is configuration, so there are few), so their templates
// are also forged once.
func forgeBaseFor(limit int) (*forgeBase, error) {
	b := baseForge()
	if b.err != nil || limit == DefaultMaxAnswerBytes {
		return b, b.err
	}
	otherBases.mu.Lock()
	defer otherBases.mu.Unlock()
	if c := otherBases.byLimit[limit]; c != nil {
		return c, nil
	}
	c := &forgeBase{methods: baseMethods(limit), byTool: make(map[string]Method, len(b.methods)), docs: b.docs}
	for _, m := range c.methods {
		c.byTool[m.Tool] = m
	}
	c.withTemplates()
	if otherBases.byLimit == nil {
		otherBases.byLimit = make(map[int]*forgeBase)
	}
	if len(otherBases.byLimit) < maxOtherBases {
		otherBases.byLimit[limit] = c
	}
	return c, nil
}

// otherBases keeps the forgeBase of caps other than the default, up to
// maxOtherBases of them.
var otherBases struct {
	mu      sync.Mutex
	byLimit map[int]*forgeBase
}

const maxOtherBases = 16

// baseForge returns the immutable forgeBase of the default cap; callers
// must not modify it.
var baseForge = sync.OnceValue(func() *forgeBase {
	b := &forgeBase{methods: baseMethods(DefaultMaxAnswerBytes), byTool: map[string]Method{}}
	for _, m := range b.methods {
		b.byTool[m.Tool] = m
		doc, err := toolSchema(m)
		if err != nil {
			b.err = err
		}
		b.docs = append(b.docs, doc)
	}
	return b.withTemplates()
})

// callIDSchema is the schema of the callId parameter every forged tool
// takes: a string, checked by the tool's handler.
var callIDSchema = json.RawMessage(`{"description":` + strconv.Quote(callIDDescription) + `,"type":"string"}`)

// toolSchema is the JSON Schema document of m's tool: m's params plus the
// required callId (which wins over a param of that name), no other
// properties, encoded by json.Marshal (keys sorted).
func toolSchema(m Method) (json.RawMessage, error) {
	props := map[string]json.RawMessage{}
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &props); err != nil {
			return nil, forge.ErrInvalidInitialToolValue.With(err, "spooledartifact: method %s: params are not a JSON object", m.Tool)
		}
		if props == nil { // "null"
			props = map[string]json.RawMessage{}
		}
	}
	props["callId"] = callIDSchema
	required := append(slices.DeleteFunc(slices.Clone(m.Required), func(r string) bool { return r == "callId" }), "callId")
	sort.Strings(required)
	doc, err := json.Marshal(map[string]any{
		"additionalProperties": false,
		"properties":           props,
		"required":             required,
		"type":                 "object",
	})
	if err != nil {
		return nil, forge.ErrInvalidInitialToolValue.With(err, "spooledartifact: method %s: params", m.Tool)
	}
	return doc, nil
}
