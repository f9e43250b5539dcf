package forge

import "encoding/json"

// Definition is a tool as providers take it.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Registry is an ordered name → Tool map with a hidden set. The zero value is
// empty and ready to use. Safe for concurrent use.
type Registry struct{}

// NewRegistry registers tools in order; a duplicate is ErrToolAlreadyRegistered.
func NewRegistry(tools ...*Tool) (*Registry, error) { return &Registry{}, nil }

// Register adds t; a duplicate name is ErrToolAlreadyRegistered unless
// overwrite, which keeps the original position.
func (r *Registry) Register(t *Tool, overwrite bool) error { return nil }

// Unregister removes name (and its hidden entry); it reports whether it existed.
func (r *Registry) Unregister(name string) bool { return false }

// Get returns the tool named name.
func (r *Registry) Get(name string) (*Tool, bool) { return nil, false }

// Has reports whether name is registered.
func (r *Registry) Has(name string) bool { return false }

// Len is the number of tools.
func (r *Registry) Len() int { return 0 }

// All returns every tool in insertion order, hidden ones included.
func (r *Registry) All() []*Tool { return nil }

// Visible returns the tools not hidden, in order: what the model is offered.
func (r *Registry) Visible() []*Tool { return nil }

// Hidden returns the hidden tools, in order.
func (r *Registry) Hidden() []*Tool { return nil }

// Hide hides names (unknown names are remembered for later).
func (r *Registry) Hide(names ...string) {}

// Unhide unhides names.
func (r *Registry) Unhide(names ...string) {}

// PruneEphemeral drops every ephemeral tool and its hidden entry.
func (r *Registry) PruneEphemeral() {}

// Clone returns an independent copy.
func (r *Registry) Clone() *Registry { return &Registry{} }

// Definitions returns the visible tools in the shape providers take.
func (r *Registry) Definitions() []Definition { return nil }

// Merge builds a new registry from regs, left to right: on a collision the
// incoming tool's own OnCollision wins if replace or keep, else policy applies.
func Merge(policy Collision, regs ...*Registry) (*Registry, error) { return &Registry{}, nil }
