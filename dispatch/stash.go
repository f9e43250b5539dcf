package dispatch

import (
	"maps"
	"sync"
)

// Stash is a small key/value bag for middleware and tools to share state
// within a turn. The zero value is empty and ready to use. Safe for
// concurrent use. Values are stored as given (not copied).
type Stash struct {
	mu sync.RWMutex
	m  map[string]any
}

// Get returns the value under key.
func (s *Stash) Get(key string) (any, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[key]
	return v, ok
}

// Set stores v under key.
func (s *Stash) Set(key string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]any)
	}
	s.m[key] = v
}

// Delete removes key; it reports whether it existed.
func (s *Stash) Delete(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[key]
	delete(s.m, key)
	return ok
}

// All returns a shallow copy of the contents.
func (s *Stash) All() map[string]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return maps.Clone(s.m)
}
