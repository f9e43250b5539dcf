package spooledartifact_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/spooledartifact"
)

// hostileStores are the stores every spooling case runs against: memory,
// and disk spilling everything to files.
func hostileStores(t *testing.T) map[string]spooledartifact.Store {
	t.Helper()
	disk, err := spooledartifact.NewDiskStore(t.TempDir(), &spooledartifact.DiskOptions{SpillThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]spooledartifact.Store{"memory": spooledartifact.NewMemoryStore(), "disk": disk}
}

// assertNothingStored fails unless id is absent from store.
func assertNothingStored(t *testing.T, store spooledartifact.Store, id string) {
	t.Helper()
	if _, err := store.Read(context.Background(), id); !errors.Is(err, spooledartifact.ErrNotFound) {
		t.Errorf("Read(%q) after a failed spool: %v, want ErrNotFound", id, err)
	}
}

// A pipe nobody writes blocks Read forever: Spool must still return at the
// context's deadline, close the pipe and store nothing.
func TestHostileSpoolOfAStalledPipeEndsAtTheDeadline(t *testing.T) {
	for name, store := range hostileStores(t) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pr, pw := io.Pipe()
				ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
				defer cancel()
				start := time.Now()
				_, err := spooledartifact.Spool(ctx, store, "stalled", nil, pr)
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("Spool = %v, want context.DeadlineExceeded", err)
				}
				if waited := time.Since(start); waited != 100*time.Millisecond {
					t.Errorf("Spool returned after %v, want the 100ms deadline exactly", waited)
				}
				// The pipe was closed: its writer learns the reader is gone.
				if _, err := pw.Write([]byte("late")); !errors.Is(err, io.ErrClosedPipe) {
					t.Errorf("write after Spool returned: %v, want io.ErrClosedPipe", err)
				}
				synctest.Wait() // the read goroutine has exited
				assertNothingStored(t, store, "stalled")
			})
		})
	}
}

// A pipe that delivers some bytes then stalls: the partial output is not
// stored either.
func TestHostileSpoolOfAPipeStallingMidStreamStoresNothing(t *testing.T) {
	for name, store := range hostileStores(t) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pr, pw := io.Pipe()
				go func() {
					_, _ = pw.Write([]byte(strings.Repeat("line\n", 1000)))
					// then nothing, until the reader closes the pipe
				}()
				ctx, cancel := context.WithCancel(t.Context())
				var err error
				done := make(chan struct{})
				go func() {
					defer close(done)
					_, err = spooledartifact.Spool(ctx, store, "half", nil, pr)
				}()
				synctest.Wait() // the spool is blocked reading the stalled pipe
				cancel()
				<-done
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Spool = %v, want context.Canceled", err)
				}
				synctest.Wait()
				assertNothingStored(t, store, "half")
			})
		})
	}
}

// firstRead signals the first call of Read, so a test knows the spool is
// blocked reading before it cancels.
type firstRead struct {
	io.ReadCloser
	once    sync.Once
	reading chan struct{}
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(func() { close(f.reading) })
	return f.ReadCloser.Read(p)
}

// A network body that sends its headers and then nothing: cancelling the
// context closes the body, which unblocks the read, and no goroutine is
// left (the server's handler is released by the client hanging up).
func TestHostileSpoolOfAStalledNetworkBodyEndsOnCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "first bytes\n")
		w.(http.Flusher).Flush()
		select { // stall until the client goes away
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	for name, store := range hostileStores(t) {
		t.Run(name, func(t *testing.T) {
			resp, err := srv.Client().Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			body := &firstRead{ReadCloser: resp.Body, reading: make(chan struct{})}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := spooledartifact.Spool(ctx, store, "net", nil, body)
				errc <- err
			}()
			<-body.reading
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Spool = %v, want context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Spool did not return after its context was cancelled")
			}
			assertNothingStored(t, store, "net")
		})
	}
	srv.CloseClientConnections()
}

// blockingReader is not an io.Closer: nothing can unblock its Read but the
// test. Spool still returns on cancel; its read goroutine is left blocked
// only until that Read returns.
type blockingReader struct{ unblock chan struct{} }

func (b blockingReader) Read([]byte) (int, error) {
	<-b.unblock
	return 0, io.EOF
}

func TestHostileSpoolOfAReaderIgnoringCloseReturnsOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := spooledartifact.NewMemoryStore()
		r := blockingReader{unblock: make(chan struct{})}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if _, err := spooledartifact.Spool(ctx, store, "stuck", nil, r); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Spool = %v, want context.DeadlineExceeded", err)
		}
		assertNothingStored(t, store, "stuck")
		close(r.unblock) // the abandoned Read returns; its goroutine exits
		synctest.Wait()
	})
}

// panickingReader panics in Read: the spool fails with an error instead of
// the process crashing on the read goroutine.
type panickingReader struct{}

func (panickingReader) Read([]byte) (int, error) { panic("reader broke") }

func TestHostileSpoolOfAPanickingReaderIsAnError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := spooledartifact.NewMemoryStore()
	_, err := spooledartifact.Spool(ctx, store, "p", nil, panickingReader{})
	if err == nil || !strings.Contains(err.Error(), "reader broke") {
		t.Fatalf("Spool = %v, want an error naming the panic", err)
	}
	assertNothingStored(t, store, "p")
}
