package spooledartifact_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/internal/ctxtest"
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

// hostileTools forges the artifact_* tools over text spooled under id "c1".
func hostileTools(t *testing.T, text string) (*forge.Registry, forge.Artifact) {
	t.Helper()
	a, err := spooledartifact.SpoolString(context.Background(), spooledartifact.NewMemoryStore(), "c1", nil, text)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	c, err := forge.NewToolCall(forge.RawToolCall{ID: "c1", Tool: "fetch", Args: map[string]any{},
		Checksum: strings.Repeat("a", 64), Results: a, IsComplete: true, CreatedAt: now, CompletedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	var f spooledartifact.Forger
	tools, err := f.Update([]*forge.ToolCall{c})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := forge.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return reg, a
}

// Raw bytes in an artifact are answered as safe text by every base tool,
// while the stored bytes stay exact and patterns still match them.
func TestHostileRawBytesInAnswersAreSafe(t *testing.T) {
	const raw = "ok\x00\xff\xfe\x1b[31mred\x1b[0m\nsecond\rline\n\u009b2J clear\n"
	reg, a := hostileTools(t, raw)
	for _, tc := range []struct {
		tool, args, want string
	}{
		{spooledartifact.ToolCat, `{"callId":"c1"}`, "ok␀\uFFFD\uFFFD␛[31mred␛[0m\nsecond␍line\n\uFFFD2J clear"},
		{spooledartifact.ToolHead, `{"callId":"c1","n":1}`, "ok␀\uFFFD\uFFFD␛[31mred␛[0m"},
		{spooledartifact.ToolTail, `{"callId":"c1","n":2}`, "\uFFFD2J clear"},
		{spooledartifact.ToolGrep, `{"callId":"c1","pattern":"\\x1b\\[31m"}`, "ok␀\uFFFD\uFFFD␛[31mred␛[0m"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			got, err := spooledartifact.CallTool(t, reg, tc.tool, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("%s = %q, want it to contain %q", tc.tool, got, tc.want)
			}
			if !safetext.Safe(got) {
				t.Errorf("%s answer %q is not safe text", tc.tool, got)
			}
		})
	}
	stored, err := a.(interface {
		ReadAll(context.Context) ([]byte, error)
	}).ReadAll(context.Background())
	if err != nil || string(stored) != raw {
		t.Errorf("stored %q, %v; want the exact bytes", stored, err)
	}
}

// The answer cap counts the safe text: a line of control bytes, each
// rendered as three bytes, never makes an answer exceed the cap.
func TestHostileControlBytesRespectTheAnswerCap(t *testing.T) {
	reg, _ := hostileTools(t, strings.Repeat("\x1b", 200<<10)+"\n"+strings.Repeat("\x00", 10)+"\n")
	got, err := spooledartifact.CallTool(t, reg, spooledartifact.ToolCat, `{"callId":"c1"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > spooledartifact.DefaultMaxAnswerBytes {
		t.Errorf("answer of %d bytes, over the %d-byte cap", len(got), spooledartifact.DefaultMaxAnswerBytes)
	}
	if !safetext.Safe(got) || !strings.Contains(got, "truncated") {
		t.Errorf("answer is not safe capped text: %q…", safetext.Prefix(got, 80))
	}
}

// artifact_grep takes RE2 patterns: a pattern that backtracks
// exponentially elsewhere runs in linear time, and JavaScript-only syntax
// is an argument error the model can fix.
func TestHostileGrepPatterns(t *testing.T) {
	reg, _ := hostileTools(t, strings.Repeat("a", 64<<10)+"\n"+strings.Repeat("ab\n", 1000))
	got, err := spooledartifact.CallTool(t, reg, spooledartifact.ToolGrep, `{"callId":"c1","pattern":"(a+)+$"}`)
	if err != nil || !strings.HasPrefix(got, "aaaa") {
		t.Errorf("(a+)+$: %q, %v; want line 1 matched", safetext.Prefix(got, 40), err)
	}
	for _, pattern := range []string{`(?=a)`, `(a)\\1`, `(?<!a)b`, `[`} {
		_, err := spooledartifact.CallTool(t, reg, spooledartifact.ToolGrep, `{"callId":"c1","pattern":"`+pattern+`"}`)
		if !errors.Is(err, forge.ErrInvalidToolArgs) {
			t.Errorf("pattern %q: %v, want forge.ErrInvalidToolArgs", pattern, err)
		}
	}
}

// Ids are never paths: "../x" and absolute-looking ids stay inside the
// disk store's directory, and ids a store cannot hold are ErrInvalidID.
func TestHostileIDs(t *testing.T) {
	dir := t.TempDir()
	store, err := spooledartifact.NewDiskStore(dir+"/spool", &spooledartifact.DiskOptions{SpillThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, id := range []string{"../escape", "/etc/passwd", "..\\..\\x", "CON", "a/../../b"} {
		if _, err := spooledartifact.WriteString(ctx, store, id, "x"); err != nil {
			t.Fatalf("Write(%q): %v", id, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "spool" {
		t.Errorf("files outside the store's directory: %v, %v", entries, err)
	}
	for _, id := range []string{"", "a\x00b", "\xff", strings.Repeat("i", spooledartifact.MaxIDLength+1)} {
		if _, err := spooledartifact.WriteString(ctx, store, id, "x"); !errors.Is(err, spooledartifact.ErrInvalidID) {
			t.Errorf("Write(%q): %v, want ErrInvalidID", safetext.Prefix(id, 20), err)
		}
	}
}

// A plain artifact's search stops with ctx's error once ctx ends, partway
// through a large artifact.
func TestHostilePlainQueriesStopWhenCtxEnds(t *testing.T) {
	for name, store := range hostileStores(t) {
		t.Run(name, func(t *testing.T) {
			text := strings.Repeat(strings.Repeat("x", 1023)+"\n", 16<<10) // 16 MiB
			a, err := spooledartifact.SpoolString(context.Background(), store, "big", nil, text)
			if err != nil {
				t.Fatal(err)
			}
			art := a.(*spooledartifact.Artifact)
			if _, err := art.Grep(ctxtest.NewCountdown(8), "no such line", nil); !errors.Is(err, context.Canceled) {
				t.Errorf("Grep = %v, want context.Canceled", err)
			}
		})
	}
}
