package spooledartifact

import (
	"bytes"
	"context"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// MemoryStore keeps artifacts in memory. Safe for concurrent use; the zero
// value is not usable, call NewMemoryStore.
type MemoryStore struct {
	mu      sync.RWMutex
	entries map[string]memEntry
	shape   indexShape
	now     func() time.Time
}

type memEntry struct {
	r       *spoolReader
	written time.Time
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty in-memory store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{entries: map[string]memEntry{}, now: time.Now}
}

// Write drains r into memory under id, replacing any previous entry; readers
// of the previous entry keep their snapshot. Nothing is stored if r or ctx
// fails.
func (s *MemoryStore) Write(ctx context.Context, id string, r io.Reader) (Reader, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, ctxReader{ctx, r}); err != nil {
		return nil, err
	}
	sr := newMemoryReader(buf.Bytes(), s.shape)
	s.mu.Lock()
	s.entries[id] = memEntry{r: sr, written: s.now()}
	s.mu.Unlock()
	return sr, nil
}

// Read returns the reader for id, or ErrNotFound.
func (s *MemoryStore) Read(ctx context.Context, id string) (Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	e, ok := s.entries[id]
	s.mu.RUnlock()
	if !ok {
		return nil, ErrNotFound
	}
	return e.r, nil
}

// Delete removes id and reports whether it existed.
func (s *MemoryStore) Delete(ctx context.Context, id string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.entries[id]
	delete(s.entries, id)
	return ok, nil
}

// List returns the ids starting with prefix, sorted.
func (s *MemoryStore) List(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	var ids []string
	for id := range s.entries {
		if strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	s.mu.RUnlock()
	sort.Strings(ids)
	return ids, nil
}

// Sweep deletes every entry written before olderThan and returns how many.
func (s *MemoryStore) Sweep(ctx context.Context, olderThan time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, e := range s.entries {
		if e.written.Before(olderThan) {
			delete(s.entries, id)
			n++
		}
	}
	return n, nil
}

// Len is the number of entries.
func (s *MemoryStore) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.entries)
}

// ctxReader fails reads once ctx is done, so a Write of an endless stream
// stops on cancellation.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// WriteBytes stores b under id.
func WriteBytes(ctx context.Context, s Store, id string, b []byte) (Reader, error) {
	return s.Write(ctx, id, bytes.NewReader(b))
}

// WriteString stores text under id.
func WriteString(ctx context.Context, s Store, id string, text string) (Reader, error) {
	return s.Write(ctx, id, strings.NewReader(text))
}

// DeleteAll deletes every id with the given prefix from s and returns how
// many it deleted. An empty prefix deletes everything.
func DeleteAll(ctx context.Context, s Store, prefix string) (int, error) {
	ids, err := s.List(ctx, prefix)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		ok, err := s.Delete(ctx, id)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// Sweeper is implemented by stores that can drop old entries: both stores
// of this package. A long-running service calls Sweep on a schedule of its
// own (no goroutine of this package outlives a call).
type Sweeper interface {
	// Sweep deletes the entries written before olderThan and returns how many.
	Sweep(ctx context.Context, olderThan time.Time) (int, error)
}
