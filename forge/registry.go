package forge

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/ebbforge/adk/internal/forgestate"
)

func init() {
	forgestate.Register(func(reg any) uint64 {
		r := reg.(*Registry)
		r.mu.RLock()
		defer r.mu.RUnlock()
		return r.changes
	}, func(tool, h any) any {
		t := *tool.(*Tool)
		if t.artifactHandler == nil {
			panic("forgestate.WithHandler: " + t.name + " is not an artifact tool")
		}
		t.artifactHandler = h.(artifactHandler)
		return &t
	})
}

// Definition is a tool as providers take it.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Registry is an ordered name → Tool map with a hidden set. The zero value is
// empty and ready to use. Safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	order  []string
	tools  map[string]*Tool
	hidden map[string]struct{}
	// changes counts the changes made (see internal/forgestate).
	changes uint64
}

// NewRegistry registers tools in order; a duplicate is ErrToolAlreadyRegistered.
func NewRegistry(tools ...*Tool) (*Registry, error) {
	r := &Registry{}
	for _, t := range tools {
		if err := r.Register(t, false); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds t; a duplicate name is ErrToolAlreadyRegistered unless
// overwrite, which keeps the original position. A nil t is
// ErrInvalidInitialToolValue.
func (r *Registry) Register(t *Tool, overwrite bool) error {
	if !t.constructed() {
		return ErrInvalidInitialToolValue.With(nil, "forge: register: nil or unconstructed tool")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[t.name]; ok && !overwrite {
		return ErrToolAlreadyRegistered.With(nil, "forge: tool %q is already registered", t.name)
	}
	r.put(t)
	r.changes++
	return nil
}

// put adds or replaces t in place; the caller holds the write lock.
func (r *Registry) put(t *Tool) {
	if r.tools == nil {
		r.tools = map[string]*Tool{}
	}
	if _, ok := r.tools[t.name]; !ok {
		r.order = append(r.order, t.name)
	}
	r.tools[t.name] = t
}

// Get returns the tool named name.
func (r *Registry) Get(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// All returns every tool in insertion order, hidden ones included.
func (r *Registry) All() []*Tool { return r.filter(func(string) bool { return true }) }

// Visible returns the tools not hidden, in order: what the model is offered.
func (r *Registry) Visible() []*Tool {
	return r.filter(func(n string) bool { _, h := r.hidden[n]; return !h })
}

func (r *Registry) filter(keep func(name string) bool) []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Tool, 0, len(r.order))
	for _, n := range r.order {
		if keep(n) {
			out = append(out, r.tools[n])
		}
	}
	return out
}

// Hide hides names (unknown names are remembered for later).
func (r *Registry) Hide(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hide(names)
	r.changes++
}

func (r *Registry) hide(names []string) {
	if r.hidden == nil {
		r.hidden = map[string]struct{}{}
	}
	for _, n := range names {
		r.hidden[n] = struct{}{}
	}
}

// Unhide unhides names.
func (r *Registry) Unhide(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		delete(r.hidden, n)
	}
	r.changes++
}

// PruneEphemeral drops every ephemeral tool and its hidden entry. It is
// idempotent.
func (r *Registry) PruneEphemeral() {
	r.mu.Lock()
	defer r.mu.Unlock()
	before := len(r.order)
	r.order = slices.DeleteFunc(r.order, func(n string) bool {
		if r.tools[n].opts.Ephemeral {
			delete(r.tools, n)
			delete(r.hidden, n)
			return true
		}
		return false
	})
	if len(r.order) != before {
		r.changes++
	}
}

// Clone returns an independent copy (tools are immutable and shared).
func (r *Registry) Clone() *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := &Registry{order: slices.Clone(r.order)}
	if r.tools != nil {
		c.tools = make(map[string]*Tool, len(r.tools))
		for k, v := range r.tools {
			c.tools[k] = v
		}
	}
	if r.hidden != nil {
		c.hidden = make(map[string]struct{}, len(r.hidden))
		for k := range r.hidden {
			c.hidden[k] = struct{}{}
		}
	}
	return c
}

// Definitions returns the visible tools in the shape providers take. It is
// called for every model request, so the Parameters are the tools' own
// documents, not copies: read them, never modify them (Tool.Schema gives
// a copy).
func (r *Registry) Definitions() []Definition {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Definition, 0, len(r.order))
	for _, n := range r.order {
		if _, h := r.hidden[n]; !h {
			t := r.tools[n]
			out = append(out, Definition{Name: t.name, Description: t.description, Parameters: t.schema})
		}
	}
	return out
}

// Merge builds a new registry from regs, left to right: on a collision the
// incoming tool's own OnCollision wins if replace or keep, else policy applies.
// policy "" means CollisionThrow; a collision under throw is
// ErrToolAlreadyRegistered and any other policy ErrInvalidInitialToolValue.
// A replacing tool keeps the position of the one it replaces. Hidden state
// travels with each surviving tool (a replaced tool's hidden state is that
// of the registry the replacement came from). The inputs are not modified;
// nil registries are skipped.
func Merge(policy Collision, regs ...*Registry) (*Registry, error) {
	if !policy.valid() {
		return nil, ErrInvalidInitialToolValue.With(nil, "forge: merge: collision policy %q is not one of throw, replace, keep", policy)
	}
	out := &Registry{}
	for _, reg := range regs {
		if reg == nil {
			continue
		}
		src := reg.Clone() // a consistent snapshot, taken without holding two locks
		for _, n := range src.order {
			t := src.tools[n]
			_, hidden := src.hidden[n]
			if _, exists := out.tools[n]; exists {
				p := t.onCollision()
				if p == CollisionThrow {
					p = policy
				}
				switch p {
				case CollisionReplace:
				case CollisionKeep:
					continue
				default:
					return nil, ErrToolAlreadyRegistered.With(nil, "forge: merge: tool %q is already registered", n)
				}
			}
			out.put(t)
			if hidden {
				out.hide([]string{n})
			} else {
				delete(out.hidden, n)
			}
		}
	}
	return out, nil
}
