package media_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/ebbforge/adk/media"
)

// testReaderConformance checks the contract every [media.Reader] keeps:
// each Open is a fresh stream over the same bytes (also while another is
// open, and from several goroutines at once), Size is len(want) or -1, a
// cancelled context fails Open or the first Read with context.Canceled, and
// Close is idempotent.
func testReaderConformance(t *testing.T, r media.Reader, want []byte) {
	t.Helper()
	checkSize := func(when string) {
		t.Helper()
		if got := r.Size(); got != -1 && got != int64(len(want)) {
			t.Errorf("Size %s = %d, want %d or -1", when, got, len(want))
		}
	}
	open := func(t *testing.T) io.ReadCloser {
		t.Helper()
		rc, err := r.Open(t.Context())
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return rc
	}
	checkSize("before Open")

	t.Run("fresh streams", func(t *testing.T) {
		a, b := open(t), open(t) // two at once, interleaved
		defer a.Close()
		defer b.Close()
		half := make([]byte, len(want)/2)
		if _, err := io.ReadFull(a, half); err != nil {
			t.Fatalf("first half of stream a: %v", err)
		}
		gotB, errB := io.ReadAll(b)
		restA, errA := io.ReadAll(a)
		if errA != nil || errB != nil || !bytes.Equal(append(half, restA...), want) || !bytes.Equal(gotB, want) {
			t.Errorf("interleaved streams: a %d bytes (%v), b %d bytes (%v), want %d", len(half)+len(restA), errA, len(gotB), errB, len(want))
		}
		checkSize("after Open")
		c := open(t) // and again after both were read
		defer c.Close()
		if got, err := io.ReadAll(c); err != nil || !bytes.Equal(got, want) {
			t.Errorf("third stream: %d bytes, %v; want %d", len(got), err, len(want))
		}
	})

	t.Run("concurrent Opens", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				rc, err := r.Open(t.Context())
				if err != nil {
					t.Errorf("Open: %v", err)
					return
				}
				defer rc.Close()
				if got, err := io.ReadAll(rc); err != nil || !bytes.Equal(got, want) {
					t.Errorf("concurrent stream: %d bytes, %v; want %d", len(got), err, len(want))
				}
			})
		}
		wg.Wait()
		checkSize("after concurrent Opens")
	})

	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		rc, err := r.Open(ctx)
		if err == nil {
			defer rc.Close()
			_, err = rc.Read(make([]byte, 1))
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Open or first Read on a cancelled context: %v, want context.Canceled", err)
		}
	})

	t.Run("Close is idempotent", func(t *testing.T) {
		read := open(t)
		io.ReadAll(read)
		unread := open(t) // closed before reading anything
		for name, rc := range map[string]io.ReadCloser{"read": read, "unread": unread} {
			for i := range 2 {
				if err := rc.Close(); err != nil {
					t.Errorf("%s stream, Close #%d: %v", name, i+1, err)
				}
			}
		}
	})
}

func TestReaderConformance(t *testing.T) {
	data := randomBytes(70_000) // more than one read buffer, and odd-sized
	dir := t.TempDir()
	file := func(name string, b []byte) media.Reader {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := media.NewFileReader(path)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	srv, client := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		body := data
		if r.URL.Path == "/empty" {
			body = nil
		}
		if r.URL.Path != "/chunked" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Write(body)
	})
	web := func(path string, limit int64) media.Reader {
		r, err := media.NewHTTPReader(srv.URL+path, &media.HTTPOptions{Client: client, MaxBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	tests := []struct {
		name string
		r    media.Reader
		want []byte
	}{
		{"memory", media.NewMemoryReader(data), data},
		{"memory empty", media.NewMemoryReader(nil), nil},
		{"memory zero value", &media.MemoryReader{}, nil},
		{"file", file("data.bin", data), data},
		{"file empty", file("empty.bin", nil), nil},
		{"http", web("/", 0), data},
		{"http chunked", web("/chunked", 0), data},
		{"http at limit", web("/chunked", int64(len(data))), data},
		{"http empty", web("/empty", 0), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { testReaderConformance(t, tt.r, tt.want) })
	}
}
