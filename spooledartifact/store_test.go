package spooledartifact

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestIDs(t *testing.T) {
	ctx := context.Background()
	bad := []string{"", "a\x00b", "a\nb", strings.Repeat("x", MaxIDLength+1), "bad\xff"}
	for name, s := range stores(t) {
		for _, id := range bad {
			if _, err := WriteString(ctx, s, id, "x"); !errors.Is(err, ErrInvalidID) {
				t.Errorf("%s: Write(%q) = %v, want ErrInvalidID", name, id, err)
			}
		}
	}
	// Path syntax is encoded: everything stays inside the directory.
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	s, err := NewDiskStore(store, &DiskOptions{SpillThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	evil := []string{"../escape", "..", ".", "a/../../b", `..\win`, "/abs", "turn/../../x", ".hidden", "%2E%2E"}
	for _, id := range evil {
		if _, err := WriteString(ctx, s, id, id); err != nil {
			t.Fatalf("Write(%q): %v", id, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "store" {
		t.Errorf("files escaped the store dir: %v", entries)
	}
	files, _ := os.ReadDir(store)
	if len(files) != len(evil) {
		t.Errorf("want %d files, got %d", len(evil), len(files))
	}
	got, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(evil) {
		t.Errorf("List = %q", got)
	}
	for _, id := range evil {
		r, err := s.Read(ctx, id)
		if err != nil {
			t.Fatalf("Read(%q): %v", id, err)
		}
		if b, _ := New(id, r).ReadAll(ctx); string(b) != id {
			t.Errorf("Read(%q) = %q", id, b)
		}
	}
}

func FuzzIDEncoding(f *testing.F) {
	for _, s := range []string{"a", "../x", "%41", "é/ü", "call_1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if ValidateID(id) != nil {
			return
		}
		name := encodeID(id)
		if strings.ContainsAny(name, `/\.`) || name == "" {
			t.Fatalf("unsafe name %q for %q", name, id)
		}
		back, ok := decodeID(name)
		if !ok || back != id {
			t.Fatalf("round trip %q -> %q -> %q", id, name, back)
		}
	})
}

func TestStoreLifecycle(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			old, err := WriteString(ctx, s, "x", "old\nversion")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := WriteString(ctx, s, "x", "new"); err != nil {
				t.Fatal(err)
			}
			// The old reader is a snapshot.
			if b, _ := New("x", old).ReadAll(ctx); string(b) != "old\nversion" {
				t.Errorf("old reader sees %q", b)
			}
			if l, _ := New("x", old).Tail(ctx, 1); l[0] != "version" {
				t.Errorf("old reader tail %q", l)
			}
			cur, err := s.Read(ctx, "x")
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := New("x", cur).ReadAll(ctx); string(b) != "new" {
				t.Errorf("current = %q", b)
			}
			if _, err := s.Read(ctx, "missing"); !errors.Is(err, ErrNotFound) {
				t.Errorf("missing: %v", err)
			}
			for _, id := range []string{"t1/a", "t1/b", "t2/a"} {
				if _, err := WriteString(ctx, s, id, id); err != nil {
					t.Fatal(err)
				}
			}
			ids, _ := s.List(ctx, "t1/")
			if diff := cmp.Diff([]string{"t1/a", "t1/b"}, ids); diff != "" {
				t.Error(diff)
			}
			scope := NewScope(s, "t1", nil)
			sids, _ := scope.List(ctx, "")
			if diff := cmp.Diff([]string{"a", "b"}, sids); diff != "" {
				t.Error(diff)
			}
			if n, err := NewScope(s, "t1", &ScopeOptions{Keep: true}).Cleanup(ctx); n != 0 || err != nil {
				t.Errorf("kept scope cleaned %d %v", n, err)
			}
			if n, err := scope.Cleanup(ctx); n != 2 || err != nil {
				t.Errorf("Cleanup = %d, %v", n, err)
			}
			ids, _ = s.List(ctx, "")
			if diff := cmp.Diff([]string{"t2/a", "x"}, ids); diff != "" {
				t.Error(diff)
			}
			if ok, _ := s.Delete(ctx, "x"); !ok {
				t.Error("Delete existing = false")
			}
			if ok, _ := s.Delete(ctx, "x"); ok {
				t.Error("Delete missing = true")
			}
			if n, _ := s.(Sweeper).Sweep(ctx, time.Now().Add(-time.Hour)); n != 0 {
				t.Errorf("sweep of fresh entries removed %d", n)
			}
			if n, _ := s.(Sweeper).Sweep(ctx, time.Now().Add(time.Hour)); n != 1 {
				t.Errorf("sweep removed %d, want 1", n)
			}
			if ids, _ := s.List(ctx, ""); len(ids) != 0 {
				t.Errorf("left after sweep: %v", ids)
			}
		})
	}
}

func TestDiskStoreReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s1, _ := NewDiskStore(dir, &DiskOptions{SpillThreshold: -1})
	if _, err := WriteString(ctx, s1, "turn/a", "one\ntwo\nthree"); err != nil {
		t.Fatal(err)
	}
	s2, _ := NewDiskStore(dir, nil)
	ids, _ := s2.List(ctx, "")
	if diff := cmp.Diff([]string{"turn/a"}, ids); diff != "" {
		t.Error(diff)
	}
	r, err := s2.Read(ctx, "turn/a")
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := New("a", r).Tail(ctx, 2); strings.Join(l, ",") != "two,three" {
		t.Errorf("tail after reopen: %q", l)
	}
	// A crashed writer's temporary file is swept and never listed.
	os.WriteFile(filepath.Join(dir, tempPrefix+"123"), []byte("junk"), 0o644)
	if ids, _ := s2.List(ctx, ""); len(ids) != 1 {
		t.Errorf("temp file listed: %v", ids)
	}
	s2.Sweep(ctx, time.Now().Add(time.Hour))
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left: %v", entries)
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("boom")
	}
	k := min(len(p), f.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	f.n -= k
	return k, nil
}

func TestDiskWriteFailureLeavesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, _ := NewDiskStore(dir, &DiskOptions{SpillThreshold: 10})
	if _, err := WriteString(ctx, s, "keep", "previous"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, "keep", &failingReader{n: 3 << 20}); err == nil {
		t.Fatal("want error")
	}
	r, err := s.Read(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := New("k", r).ReadAll(ctx); string(b) != "previous" {
		t.Errorf("previous version damaged: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("file left behind: %s", e.Name())
	}
}
