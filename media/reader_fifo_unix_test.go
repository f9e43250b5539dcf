//go:build unix

package media_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ebbforge/adk/media"
)

// A FIFO that replaced the file after the reader was built is refused at
// Open, not opened (which would block with no writer, whatever ctx says).
func TestFileReaderRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := media.NewFileReader(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Open(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, media.ErrInvalidReaderLocator) {
			t.Errorf("Open = %v, want ErrInvalidReaderLocator", err)
		}
	case <-time.After(5 * time.Second):
		// Unblock the open so the goroutine ends, then fail.
		if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("Open blocked on a FIFO")
	}
}
