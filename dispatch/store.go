package dispatch

import (
	"context"
	"sync"
)

// Store persists a turn's timeline: its messages, thoughts and tool calls,
// in order. Implementations must be safe for concurrent use. Every mutation
// of a [Context] goes through its Store before the in-memory timeline
// changes, so a failing Store leaves the context untouched.
type Store interface {
	// Save inserts e at the end of the turn's timeline, or replaces in place
	// the entry of the same kind and id.
	Save(ctx context.Context, turnID string, e Entry) error
	// Delete removes the entry of that kind and id; it reports whether it existed.
	Delete(ctx context.Context, turnID string, kind EntryKind, id string) (bool, error)
	// Load returns the turn's timeline in order (nil for an unknown turn).
	Load(ctx context.Context, turnID string) ([]Entry, error)
}

// MemoryStore is the in-memory [Store]. The zero value is ready to use.
// Safe for concurrent use.
type MemoryStore struct {
	mu    sync.Mutex
	turns map[string]*memTurn
}

// memTurn is one turn's entries with an index, so Save is O(1).
type memTurn struct {
	entries []Entry
	pos     map[entryKey]int
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Save implements [Store].
func (s *MemoryStore) Save(ctx context.Context, turnID string, e Entry) error {
	k := e.Kind()
	if k == EntryNone {
		return ErrStore.With(nil, "dispatch: save: entry must hold exactly one value")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turns == nil {
		s.turns = make(map[string]*memTurn)
	}
	t := s.turns[turnID]
	if t == nil {
		t = &memTurn{pos: make(map[entryKey]int)}
		s.turns[turnID] = t
	}
	key := entryKey{k, e.ID()}
	if i, ok := t.pos[key]; ok {
		t.entries[i] = e
		return nil
	}
	t.pos[key] = len(t.entries)
	t.entries = append(t.entries, e)
	return nil
}

// Delete implements [Store].
func (s *MemoryStore) Delete(ctx context.Context, turnID string, kind EntryKind, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turns[turnID]
	if t == nil {
		return false, nil
	}
	i, ok := t.pos[entryKey{kind, id}]
	if !ok {
		return false, nil
	}
	t.entries = append(t.entries[:i:i], t.entries[i+1:]...)
	clear(t.pos)
	for j, e := range t.entries {
		t.pos[entryKey{e.Kind(), e.ID()}] = j
	}
	return true, nil
}

// Load implements [Store]; the slice is a copy.
func (s *MemoryStore) Load(ctx context.Context, turnID string) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turns[turnID]
	if t == nil {
		return nil, nil
	}
	return append([]Entry(nil), t.entries...), nil
}
