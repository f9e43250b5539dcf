package media_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ebbforge/adk/media"
)

// sizes straddle base64's 3-byte groups and Base64Reader's 32 KiB chunk.
func encodeSizes(t testing.TB) []int {
	s := []int{0, 1, 2, 3, 4, 5, 57, 1023, 32<<10 - 1, 32 << 10, 32<<10 + 1, 100_000}
	if !testing.Short() {
		s = append(s, 3<<20+2)
	}
	return s
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// oneByteReader is a Reader whose streams return one byte per Read, to
// exercise the encoders' chunk boundaries.
type oneByteReader struct{ data []byte }

func (o oneByteReader) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(&oneByte{r: bytes.NewReader(o.data)}), nil
}
func (o oneByteReader) Size() int64 { return -1 }

type oneByte struct{ r *bytes.Reader }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

func mediaOver(t testing.TB, r media.Reader, mime string) *media.Media {
	t.Helper()
	m, err := media.ToolGenerated(media.Raw{ID: "m", Kind: media.KindImage, MIMEType: mime, Filename: "x.bin", Reader: r})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEncodings(t *testing.T) {
	ctx := t.Context()
	for _, n := range encodeSizes(t) {
		data := randomBytes(n)
		want := base64.StdEncoding.EncodeToString(data)
		readers := map[string]media.Reader{"memory": media.NewMemoryReader(data)}
		if n <= 100_000 {
			readers["one-byte"] = oneByteReader{data}
		}
		for name, r := range readers {
			m := mediaOver(t, r, "image/png")
			t.Run(name+"/"+strconv.Itoa(n), func(t *testing.T) {
				var buf bytes.Buffer
				if err := m.WriteBase64(ctx, &buf); err != nil || buf.String() != want {
					t.Errorf("WriteBase64: %d chars, %v; want %d chars", buf.Len(), err, len(want))
				}
				if got, err := m.Base64(ctx); err != nil || got != want {
					t.Errorf("Base64 mismatch (%v)", err)
				}
				rc, err := m.Base64Reader(ctx)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil || string(got) != want {
					t.Errorf("Base64Reader: %d chars, %v; want %d chars", len(got), err, len(want))
				}
				url, err := m.DataURL(ctx)
				if err != nil || url != "data:image/png;base64,"+want {
					t.Errorf("DataURL mismatch (%v)", err)
				}
				b, err := m.Bytes(ctx, 0)
				if err != nil || !bytes.Equal(b, data) {
					t.Errorf("Bytes mismatch (%v)", err)
				}
			})
		}
	}
}

// failingReader's streams yield some bytes, then fail.
type failingReader struct{ err error }

func (f failingReader) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(io.MultiReader(strings.NewReader("abcd"), errReader{f.err})), nil
}
func (f failingReader) Size() int64 { return -1 }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestEncodingErrors(t *testing.T) {
	ctx := t.Context()
	// io.ErrUnexpectedEOF is what a truncated HTTP body reports; the
	// encoders must pass it on, not take it for the end of the media.
	for _, boom := range []error{errors.New("boom"), io.ErrUnexpectedEOF} {
		m := mediaOver(t, failingReader{boom}, "image/png")
		if err := m.WriteBase64(ctx, io.Discard); !errors.Is(err, boom) {
			t.Errorf("WriteBase64: %v, want %v", err, boom)
		}
		if _, err := m.DataURL(ctx); !errors.Is(err, boom) {
			t.Errorf("DataURL: %v, want %v", err, boom)
		}
		if _, err := m.Base64(ctx); !errors.Is(err, boom) {
			t.Errorf("Base64: %v, want %v", err, boom)
		}
		if _, err := m.Bytes(ctx, 0); !errors.Is(err, boom) {
			t.Errorf("Bytes: %v, want %v", err, boom)
		}
		rc, _ := m.Base64Reader(ctx)
		if _, err := io.ReadAll(rc); !errors.Is(err, boom) {
			t.Errorf("Base64Reader: %v, want %v", err, boom)
		}
		rc.Close()
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	mem := mediaOver(t, media.NewMemoryReader([]byte("x")), "image/png")
	if _, err := mem.Base64Reader(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("Base64Reader on a cancelled context: %v", err)
	}
}

func TestBytesLimit(t *testing.T) {
	ctx := t.Context()
	data := []byte("0123456789")
	tests := []struct {
		name  string
		r     media.Reader
		limit int64
		ok    bool
	}{
		{"known size at limit", media.NewMemoryReader(data), 10, true},
		{"known size over limit", media.NewMemoryReader(data), 9, false},
		{"unknown size at limit", oneByteReader{data}, 10, true},
		{"unknown size over limit", oneByteReader{data}, 9, false},
		{"no limit", oneByteReader{data}, 0, true},
		// limit+1 would overflow: a huge limit is no limit in practice.
		{"known size, MaxInt64 limit", media.NewMemoryReader(data), math.MaxInt64, true},
		{"unknown size, MaxInt64 limit", oneByteReader{data}, math.MaxInt64, true},
		{"known size, MaxInt64-1 limit", media.NewMemoryReader(data), math.MaxInt64 - 1, true},
		{"unknown size, MaxInt64-1 limit", oneByteReader{data}, math.MaxInt64 - 1, true},
		{"unknown size, 1<<62 limit", oneByteReader{data}, 1 << 62, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mediaOver(t, tt.r, "image/png").Bytes(ctx, tt.limit)
			if tt.ok != (err == nil) || (!tt.ok && !errors.Is(err, media.ErrMediaTooLarge)) {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if tt.ok && !bytes.Equal(got, data) {
				t.Errorf("got %q", got)
			}
		})
	}
}

func TestWriteDataURLStreams(t *testing.T) {
	m := mediaOver(t, media.NewMemoryReader([]byte("hi")), "Text/Plain; charset=utf-8")
	var buf bytes.Buffer
	if err := m.WriteDataURL(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "data:text/plain;base64,aGk=" {
		t.Errorf("got %q", buf.String())
	}
}

// BenchmarkWriteBase64 streams 4 MiB through base64 to io.Discard.
func BenchmarkWriteBase64(b *testing.B) {
	m := mediaOver(b, media.NewMemoryReader(randomBytes(4<<20)), "image/png")
	b.SetBytes(4 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if err := m.WriteBase64(b.Context(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBase64Reader pulls 4 MiB of base64 through Base64Reader.
func BenchmarkBase64Reader(b *testing.B) {
	m := mediaOver(b, media.NewMemoryReader(randomBytes(4<<20)), "image/png")
	b.SetBytes(4 << 20)
	b.ReportAllocs()
	for b.Loop() {
		rc, err := m.Base64Reader(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, rc); err != nil {
			b.Fatal(err)
		}
		rc.Close()
	}
}

// zeroReader is a Reader over n generated zero bytes, never held in memory.
type zeroReader struct{ n int64 }

func (z zeroReader) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(io.LimitReader(zeros{}, z.n)), nil
}
func (z zeroReader) Size() int64 { return z.n }

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestStreamingDoesNotBuffer checks the streaming encoders allocate far less
// than the media's size.
func TestStreamingDoesNotBuffer(t *testing.T) {
	size := 8 << 20
	if testing.Short() {
		size = 2 << 20
	}
	m := mediaOver(t, zeroReader{int64(size)}, "image/png")
	allocated := func(f func() error) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := f(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	tests := map[string]func() error{
		"WriteBase64":  func() error { return m.WriteBase64(t.Context(), io.Discard) },
		"WriteDataURL": func() error { return m.WriteDataURL(t.Context(), io.Discard) },
		"Base64Reader": func() error {
			rc, err := m.Base64Reader(t.Context())
			if err != nil {
				return err
			}
			defer rc.Close()
			n, err := io.Copy(io.Discard, rc)
			if n != int64(base64.StdEncoding.EncodedLen(size)) {
				t.Errorf("Base64Reader yielded %d chars", n)
			}
			return err
		},
	}
	for name, f := range tests {
		if got := allocated(f); got > 1<<20 {
			t.Errorf("%s allocated %d bytes for a %d-byte media", name, got, size)
		}
	}
}

// BenchmarkStdEncodeBaseline encodes the same 4 MiB in one
// base64.StdEncoding.Encode call: the floor the streaming variants chase.
func BenchmarkStdEncodeBaseline(b *testing.B) {
	data := randomBytes(4 << 20)
	out := make([]byte, base64.StdEncoding.EncodedLen(len(data)))
	b.SetBytes(4 << 20)
	b.ReportAllocs()
	for b.Loop() {
		base64.StdEncoding.Encode(out, data)
	}
}

// sizeLiar is a Reader whose Size claims any value while its streams yield
// data: Size is only a hint and must never decide a result or an allocation.
type sizeLiar struct {
	data []byte
	size int64
}

func (l sizeLiar) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.data)), nil
}
func (l sizeLiar) Size() int64 { return l.size }

// noPanic runs f and turns a panic into a test failure naming what ran.
func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s panicked: %v", what, p)
		}
	}()
	f()
}

func TestSizeIsOnlyAHint(t *testing.T) {
	data := []byte("hello")
	wantB64 := base64.StdEncoding.EncodeToString(data)
	for _, size := range []int64{1 << 50, math.MaxInt64, 1 << 62, 6, 2, 0, -1, -7, math.MinInt64} {
		t.Run(strconv.FormatInt(size, 10), func(t *testing.T) {
			m := mediaOver(t, sizeLiar{data, size}, "image/png")
			for _, limit := range []int64{0, 5, 10, 1 << 62, math.MaxInt64 - 1, math.MaxInt64} {
				noPanic(t, "Bytes", func() {
					got, err := m.Bytes(t.Context(), limit)
					if err != nil || !bytes.Equal(got, data) {
						t.Errorf("Bytes(limit %d) = %q, %v; want %q", limit, got, err, data)
					}
				})
			}
			noPanic(t, "Bytes over limit", func() {
				if _, err := m.Bytes(t.Context(), 4); !errors.Is(err, media.ErrMediaTooLarge) {
					t.Errorf("Bytes(limit 4) err = %v, want ErrMediaTooLarge", err)
				}
			})
			noPanic(t, "Base64", func() {
				if got, err := m.Base64(t.Context()); err != nil || got != wantB64 {
					t.Errorf("Base64 = %q, %v", got, err)
				}
			})
			noPanic(t, "DataURL", func() {
				if got, err := m.DataURL(t.Context()); err != nil || got != "data:image/png;base64,"+wantB64 {
					t.Errorf("DataURL = %q, %v", got, err)
				}
			})
		})
	}
}

// TestSizeHintAllocationIsCapped checks a huge claimed size costs at most the
// capped pre-allocation, not the claim.
func TestSizeHintAllocationIsCapped(t *testing.T) {
	m := mediaOver(t, sizeLiar{[]byte("abc"), 1 << 36}, "image/png") // claims 64 GiB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := m.Bytes(t.Context(), 0)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 65<<20 {
		t.Errorf("Bytes allocated %d bytes for a 3-byte stream claiming 64 GiB", got)
	}
}

// TestHTTPContentLengthLie is a server announcing 1 PiB and sending 3 bytes:
// the in-memory encoders fail with the short body's error instead of
// pre-allocating from the announced length.
func TestHTTPContentLengthLie(t *testing.T) {
	srv, client := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.FormatInt(1<<50, 10))
		w.Write([]byte("abc"))
	})
	hr, err := media.NewHTTPReader(srv.URL, &media.HTTPOptions{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	m := mediaOver(t, hr, "image/png")
	if rc, err := m.Open(t.Context()); err == nil { // a first stream records the length
		io.Copy(io.Discard, rc)
		rc.Close()
	}
	if m.Size() != 1<<50 {
		t.Fatalf("Size = %d, want the announced 1<<50", m.Size())
	}
	for name, f := range map[string]func() error{
		"Bytes":   func() error { _, err := m.Bytes(t.Context(), 0); return err },
		"Base64":  func() error { _, err := m.Base64(t.Context()); return err },
		"DataURL": func() error { _, err := m.DataURL(t.Context()); return err },
	} {
		noPanic(t, name, func() {
			if err := f(); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%s err = %v, want io.ErrUnexpectedEOF", name, err)
			}
		})
	}
}
