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
	turns map[string][]Entry
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
		s.turns = make(map[string][]Entry)
	}
	tl := s.turns[turnID]
	id := e.ID()
	for i := range tl {
		if tl[i].Kind() == k && tl[i].ID() == id {
			tl[i] = e
			return nil
		}
	}
	s.turns[turnID] = append(tl, e)
	return nil
}

// Delete implements [Store].
func (s *MemoryStore) Delete(ctx context.Context, turnID string, kind EntryKind, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tl := s.turns[turnID]
	for i := range tl {
		if tl[i].Kind() == kind && tl[i].ID() == id {
			s.turns[turnID] = append(tl[:i:i], tl[i+1:]...)
			return true, nil
		}
	}
	return false, nil
}

// Load implements [Store]; the slice is a copy.
func (s *MemoryStore) Load(ctx context.Context, turnID string) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tl := s.turns[turnID]
	if tl == nil {
		return nil, nil
	}
	return append([]Entry(nil), tl...), nil
}
