package dispatch

import (
	"maps"
	"reflect"
	"slices"
	"sync"
)

// Stash is a small key/value bag for middleware and tools to share state
// within a turn. The zero value is empty and ready to use. Safe for
// concurrent use. Values are stored as given (not copied).
type Stash struct {
	mu sync.RWMutex
	m  map[string]any
}

// NewStash returns a stash holding a shallow copy of m.
func NewStash(m map[string]any) *Stash { return &Stash{m: maps.Clone(m)} }

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

// Keys returns the keys, sorted.
func (s *Stash) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Sorted(maps.Keys(s.m))
}

// All returns a shallow copy of the contents.
func (s *Stash) All() map[string]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return maps.Clone(s.m)
}

// Clone returns an independent shallow copy.
func (s *Stash) Clone() *Stash { return NewStash(s.All()) }

// StashValue returns the value under key as a T; ok is false when it is
// missing or of another type. A stored nil is the zero T for a T that can
// be nil (an interface, pointer, map, slice, func or channel type).
func StashValue[T any](s *Stash, key string) (T, bool) {
	v, ok := s.Get(key)
	if ok && v == nil {
		var zero T
		switch reflect.TypeFor[T]().Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
			return zero, true
		}
		return zero, false
	}
	t, ok2 := v.(T)
	return t, ok && ok2
}
