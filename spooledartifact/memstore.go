package spooledartifact

import (
	"context"
	"io"
	"slices"
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
	limits  readLimits
	now     func() time.Time
}

type memEntry struct {
	r       *spoolReader
	written time.Time
}

var (
	_ Store   = (*MemoryStore)(nil)
	_ Sweeper = (*MemoryStore)(nil)
)

// NewMemoryStore returns an empty in-memory store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{entries: map[string]memEntry{}, now: time.Now}
}

// Write drains r into memory under id, replacing any previous entry; readers
// of the previous entry keep their snapshot. Nothing is stored if r or ctx
// fails.
//
// The content is held once, never in a buffer grown by doubling: text given
// through [WriteString] or [SpoolString] is kept as the string itself (no
// copy); a reader that knows its length (a Len method, as bytes.Reader,
// strings.Reader and bytes.Buffer have) is read into one buffer of that
// size; any other reader is read in chunks of up to 4 MiB, joined into one
// buffer when the whole is at most 4 MiB and kept as they are otherwise,
// so a long stream is not copied again (but for a mostly unused last
// chunk, copied to its size).
func (s *MemoryStore) Write(ctx context.Context, id string, r io.Reader) (Reader, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	data, chunks, err := readAllSized(ctx, r, s.limits)
	if err != nil {
		return nil, err
	}
	var sr *spoolReader
	if chunks != nil {
		sr = newChunkedReader(chunks, s.shape)
	} else {
		sr = newMemoryReader(data, s.shape)
	}
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

// Sweep deletes every entry written before olderThan that keep (nil: none)
// does not spare, and returns how many it deleted (see [Sweeper]).
func (s *MemoryStore) Sweep(ctx context.Context, olderThan time.Time, keep func(id string) bool) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	old := sweepCandidates(&s.mu, s.entries, olderThan, keep)
	s.mu.Lock()
	defer s.mu.Unlock()
	return deleteOld(s.entries, old, olderThan), nil
}

// sweepCandidates lists the ids of the entries written before olderThan
// that keep does not spare (a nil keep spares none). The entries are read
// under mu's read lock; keep is asked with no lock held, since it may call
// back into the store. The caller then deletes them with deleteOld under
// the write lock.
func sweepCandidates(mu *sync.RWMutex, entries map[string]memEntry, olderThan time.Time, keep func(id string) bool) []string {
	var ids []string
	mu.RLock()
	for id, e := range entries {
		if e.written.Before(olderThan) {
			ids = append(ids, id)
		}
	}
	mu.RUnlock()
	if keep == nil {
		return ids
	}
	return slices.DeleteFunc(ids, keep)
}

// deleteOld deletes the entries of ids still written before olderThan (one
// written again since it was listed is judged by its new time) and returns
// how many; the caller holds the entries' lock for writing.
func deleteOld(entries map[string]memEntry, ids []string, olderThan time.Time) int {
	n := 0
	for _, id := range ids {
		if e, ok := entries[id]; ok && e.written.Before(olderThan) {
			delete(entries, id)
			n++
		}
	}
	return n
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

// WriteString stores text under id. A MemoryStore (also under a Scope)
// keeps the string itself rather than a copy of it.
func WriteString(ctx context.Context, s Store, id string, text string) (Reader, error) {
	return s.Write(ctx, id, newTextReader(text))
}

// deleteAll deletes every id with the given prefix from s and returns how
// many it deleted. An empty prefix deletes everything.
func deleteAll(ctx context.Context, s Store, prefix string) (int, error) {
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
// own (no goroutine of this package outlives a call); the turn runner
// sweeps with it for Options.ArtifactTTL, sparing the artifacts of the
// turns still running.
type Sweeper interface {
	// Sweep deletes the entries written before olderThan and returns how
	// many it deleted. An entry keep reports true for is left alone,
	// however old; a nil keep spares nothing.
	//
	// Sweep cannot tell an entry still in use from an abandoned one: a TTL
	// must exceed the longest time anything reads an entry after writing
	// it, or keep must spare what is in use. keep is called on the
	// caller's goroutine, with no lock of the store held (it may use the
	// store), and only for ids of entries found older than olderThan. An
	// entry written again after keep was asked about it is judged by its
	// new write time.
	Sweep(ctx context.Context, olderThan time.Time, keep func(id string) bool) (int, error)
}
