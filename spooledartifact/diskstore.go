package spooledartifact

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"weak"
)

// defaultSpillThreshold is the size up to which a DiskStore keeps an
// artifact in memory; a bigger one is spilled to a file.
const defaultSpillThreshold = 4 << 20

// DiskOptions tune a DiskStore; nil means defaults.
type DiskOptions struct {
	// SpillThreshold is the largest artifact kept in memory, in bytes:
	// 0 means 4 MiB, a negative value spills
	// everything to files.
	SpillThreshold int64
	// IndexStride is the fewest lines between two line-index checkpoints;
	// 0 means 64. Checkpoints are also at least 64 KiB apart, which
	// bounds the index however short the lines.
	IndexStride int
	// Sync makes Write fsync a file before it replaces the old version,
	// for durability across power loss (slower).
	Sync bool
}

// DiskStore keeps small artifacts in memory and spills big ones to files in
// a directory, streaming: the input goes to the file and the sparse line
// index is built in the same pass, so neither writing nor querying ever holds
// the whole artifact (a 1 GiB artifact of short lines costs a few MiB of
// index). Safe for concurrent use.
//
// Replacement is atomic: a new version is written to a temporary file in the
// directory and renamed over the old one. A Reader is a snapshot: it keeps
// the file version it opened, so after a replace it goes on returning the
// old bytes (never a mix) until it is closed or collected, while Read
// returns the new version. Removing the id (Delete, Sweep) closes it: see
// below.
//
// A reader of a spilled artifact holds an open file and implements
// io.Closer: close it when done. The store keeps track of the readers it
// hands out, and Delete, Sweep and so Scope.Cleanup close every reader of
// the ids they remove, so the disk space of a deleted artifact is freed at
// once; a later query on such a reader fails with an error that matches
// ErrNotFound. A reader that is neither closed nor deleted releases its
// descriptor when it is garbage collected. (In-memory readers need no
// closing and keep answering after a Delete.)
//
// File names are "id-" and the id in lower-case base32 ([a-z2-7], no
// padding): no id can escape the directory, two ids never share a file on a
// case-insensitive file system ("Call_A" and "call_a"), and no name is a
// Windows device name ("CON", "nul"). Files of an earlier process are found
// again by Read and List (their index is rebuilt on first Read); small
// in-memory artifacts do not survive the process.
type DiskStore struct {
	dir       string
	threshold int64
	shape     indexShape
	sync      bool
	now       func() time.Time

	mu    sync.RWMutex
	mem   map[string]memEntry
	files map[string]lineIndex
	// open holds the files of the readers handed out per id, weakly: a
	// reader that is collected closes its own file and drops out.
	omu  sync.Mutex // guards open, which Read updates under s.mu.RLock
	open map[string][]weak.Pointer[os.File]
	// writing holds the names of the temporary files of Writes in
	// progress: Sweep must leave them alone however old their modification
	// time (a slow source leaves it unchanged between two 1 MiB writes).
	tmu     sync.Mutex
	writing map[string]bool
}

var (
	_ Store   = (*DiskStore)(nil)
	_ Sweeper = (*DiskStore)(nil)
)

const tempPrefix = ".tmp-"

// NewDiskStore returns a store over dir, creating it if needed.
func NewDiskStore(dir string, opts *DiskOptions) (*DiskStore, error) {
	var o DiskOptions
	if opts != nil {
		o = *opts
	}
	if o.SpillThreshold == 0 {
		o.SpillThreshold = defaultSpillThreshold
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &DiskStore{dir: dir, threshold: o.SpillThreshold, shape: indexShape{stride: o.IndexStride}.norm(), sync: o.Sync,
		now: time.Now, mem: map[string]memEntry{}, files: map[string]lineIndex{},
		open: map[string][]weak.Pointer[os.File]{}, writing: map[string]bool{}}, nil
}

func (s *DiskStore) path(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, encodeID(id)), nil
}

// Write streams r under id, replacing any previous version atomically.
// Nothing is stored (and no temporary file is left) if r or ctx fails.
func (s *DiskStore) Write(ctx context.Context, id string, r io.Reader) (Reader, error) {
	path, err := s.path(id)
	if err != nil {
		return nil, err
	}
	src := ctxReader{ctx, r}
	var head bytes.Buffer
	// A reader that knows its length (a Len method) and is over the
	// threshold goes straight to a file; one under it is buffered in one
	// allocation rather than a doubling buffer.
	known := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		known = int64(l.Len())
	}
	if s.threshold > 0 && known <= s.threshold {
		if known >= 0 {
			head.Grow(int(known) + bytes.MinRead)
		}
		if _, err := io.CopyN(&head, src, s.threshold+1); err != nil && err != io.EOF {
			return nil, err
		}
		if int64(head.Len()) <= s.threshold {
			sr := newMemoryReader(head.Bytes(), s.shape)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.mem[id] = memEntry{r: sr, written: s.now()}
			if _, onDisk := s.files[id]; onDisk {
				delete(s.files, id)
			}
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			return sr, nil
		}
	}
	f, err := s.createTemp()
	if err != nil {
		return nil, err
	}
	defer s.forgetTemp(f.Name()) // once renamed or removed
	fail := func(err error) (Reader, error) {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	ib := newIndexBuilder(s.shape)
	if _, err := spoolTo(f, ib, io.MultiReader(&head, src)); err != nil {
		return fail(err)
	}
	if s.sync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	idx := ib.done()
	s.mu.Lock()
	if err := os.Rename(f.Name(), path); err != nil {
		s.mu.Unlock()
		if errors.Is(err, fs.ErrNotExist) {
			// Another process (a store over the same directory) swept
			// the temporary file: the bytes are gone.
			return fail(ErrWriteInterrupted.With(err, "spooledartifact: write of %q: its temporary file was removed by another process before it completed", id))
		}
		return fail(err)
	}
	s.files[id] = idx
	delete(s.mem, id)
	s.track(id, f)
	s.mu.Unlock()
	sf := &snapFile{f}
	return &spoolReader{at: sf, f: sf, idx: idx}, nil
}

// createTemp creates a temporary file and records it as in progress. The
// record is made under tmu, which Sweep holds to check it, so Sweep never
// sees the file unrecorded.
func (s *DiskStore) createTemp() (*os.File, error) {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	f, err := os.CreateTemp(s.dir, tempPrefix+"*")
	if err != nil {
		return nil, err
	}
	s.writing[filepath.Base(f.Name())] = true
	return f, nil
}

// forgetTemp drops the record of a temporary file renamed or removed.
func (s *DiskStore) forgetTemp(path string) {
	s.tmu.Lock()
	delete(s.writing, filepath.Base(path))
	s.tmu.Unlock()
}

// removeStaleTemp removes the temporary file name unless a Write of this
// store is still writing it. Another store over the directory (another
// process) cannot know: such a Write fails with ErrWriteInterrupted.
func (s *DiskStore) removeStaleTemp(name string) {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	if !s.writing[name] {
		os.Remove(filepath.Join(s.dir, name))
	}
}

// spoolBuf is the copy buffer of a spill.
const spoolBuf = 1 << 20

// spoolTo copies src to f and feeds the same bytes to the index builder.
func spoolTo(f *os.File, ib *indexBuilder, src io.Reader) (int64, error) {
	buf := make([]byte, spoolBuf)
	var total int64
	for {
		n, rerr := io.ReadFull(src, buf)
		if n > 0 {
			if _, err := f.Write(buf[:n]); err != nil {
				return total, err
			}
			_, _ = ib.Write(buf[:n])
			total += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return total, nil
		}
		if rerr != nil {
			return total, rerr
		}
	}
}

// Read returns a snapshot reader of id's current version, or ErrNotFound.
func (s *DiskStore) Read(ctx context.Context, id string) (Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := s.path(id)
	if err != nil {
		return nil, ErrNotFound
	}
	s.mu.RLock()
	if e, ok := s.mem[id]; ok {
		s.mu.RUnlock()
		return e.r, nil
	}
	idx, known := s.files[id]
	f, err := os.Open(path) // under the lock: the version matches idx
	if err == nil {
		s.track(id, f) // before Delete can run
	}
	s.mu.RUnlock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	sf := &snapFile{f}
	if known {
		return &spoolReader{at: sf, f: sf, idx: idx}, nil
	}
	// A file of an earlier process: rebuild its index from the open file.
	ib := newIndexBuilder(s.shape)
	if _, err := io.CopyBuffer(ib, ctxReader{ctx, io.NewSectionReader(sf, 0, 1<<62)}, make([]byte, spoolBuf)); err != nil {
		f.Close()
		return nil, err
	}
	idx = ib.done()
	s.mu.Lock()
	if _, ok := s.files[id]; !ok {
		if a, err1 := f.Stat(); err1 == nil {
			if b, err2 := os.Stat(path); err2 == nil && os.SameFile(a, b) {
				s.files[id] = idx
			}
		}
	}
	s.mu.Unlock()
	return &spoolReader{at: sf, f: sf, idx: idx}, nil
}

// track records f as the file of a reader of id; s.mu is held (read or
// write). Entries of collected readers are dropped on the way.
func (s *DiskStore) track(id string, f *os.File) {
	s.omu.Lock()
	defer s.omu.Unlock()
	live := s.open[id][:0]
	for _, w := range s.open[id] {
		if w.Value() != nil {
			live = append(live, w)
		}
	}
	s.open[id] = append(live, weak.Make(f))
}

// release closes the files of every reader of id; s.mu is held for writing.
func (s *DiskStore) release(id string) {
	s.omu.Lock()
	files := s.open[id]
	delete(s.open, id)
	s.omu.Unlock()
	for _, w := range files {
		if f := w.Value(); f != nil {
			f.Close()
		}
	}
}

// Delete removes id and reports whether it existed. It closes every open
// reader of a spilled version, so the disk space is freed at once: a later
// query on such a reader fails with an error that matches ErrNotFound.
// Readers of an in-memory version keep their snapshot.
func (s *DiskStore) Delete(ctx context.Context, id string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	path, err := s.path(id)
	if err != nil {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, inMem := s.mem[id]
	delete(s.mem, id)
	delete(s.files, id)
	s.release(id)
	err = os.Remove(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return inMem, nil
	}
	return inMem, err
}

// List returns the ids with the given prefix, sorted, whether in memory or
// on disk.
func (s *DiskStore) List(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Read the directory and the memory map under one read lock: Write
	// moves an id between them (rename then delete from s.mem, or the
	// reverse) under the write lock, so an id that exists throughout is in
	// one or the other. Nothing here takes s.mu again or waits on a Write.
	s.mu.RLock()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		s.mu.RUnlock()
		return nil, err
	}
	set := map[string]bool{}
	for id := range s.mem {
		if strings.HasPrefix(id, prefix) {
			set[id] = true
		}
	}
	s.mu.RUnlock()
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) || !e.Type().IsRegular() {
			continue
		}
		if id, ok := decodeID(e.Name()); ok && strings.HasPrefix(id, prefix) {
			set[id] = true
		}
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// Sweep deletes every artifact written before olderThan (files by their
// modification time) that keep (nil: none) does not spare, and temporary
// files a crashed writer left behind, and returns how many artifacts it
// deleted (see [Sweeper]). Call it on a schedule to bound the disk a
// long-running service uses. Temporary files are not artifacts and keep is
// not asked about them.
//
// The temporary file of a Write of this store still in progress is never
// removed, however old. Sweep cannot tell another process's Write in
// progress from a crashed one: if two processes share the directory, sweep
// with an olderThan well before the longest write's start, or a Write of
// the other process fails with ErrWriteInterrupted.
func (s *DiskStore) Sweep(ctx context.Context, olderThan time.Time, keep func(id string) bool) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return 0, err
	}
	// Find the old entries first and ask keep about them without a lock;
	// then check each again under s.mu, which Write holds to replace a
	// file or an entry, so a version written meanwhile is never removed.
	var temps, names []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if strings.HasPrefix(e.Name(), tempPrefix) {
			temps = append(temps, e.Name())
			continue
		}
		id, ok := decodeID(e.Name())
		if !ok {
			continue
		}
		if info, err := e.Info(); err != nil || !info.ModTime().Before(olderThan) || (keep != nil && keep(id)) {
			continue
		}
		names = append(names, e.Name())
	}
	mem := sweepCandidates(&s.mu, s.mem, olderThan, keep)

	s.mu.Lock()
	defer s.mu.Unlock()
	n := deleteOld(s.mem, mem, olderThan)
	for _, name := range temps {
		if modifiedBefore(filepath.Join(s.dir, name), olderThan) {
			s.removeStaleTemp(name)
		}
	}
	for _, name := range names {
		path := filepath.Join(s.dir, name)
		if !modifiedBefore(path, olderThan) {
			continue
		}
		if err := os.Remove(path); err == nil {
			id, _ := decodeID(name)
			delete(s.files, id)
			s.release(id)
			n++
		}
	}
	return n, nil
}

// modifiedBefore reports whether path is a regular file last modified
// before olderThan.
func modifiedBefore(path string, olderThan time.Time) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode().IsRegular() && info.ModTime().Before(olderThan)
}
