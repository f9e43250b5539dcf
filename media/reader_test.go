package media_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/media"
)

// readAll opens r and reads everything.
func readAll(t *testing.T, ctx context.Context, r media.Reader) ([]byte, error) {
	t.Helper()
	rc, err := r.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func TestMemoryReader(t *testing.T) {
	src := []byte("hello")
	r := media.NewMemoryReader(src)
	src[0] = 'J'  // the reader holds a copy
	for range 2 { // every Open is a fresh stream
		got, err := readAll(t, t.Context(), r)
		if err != nil || string(got) != "hello" {
			t.Fatalf("read %q, %v", got, err)
		}
	}
	if r.Size() != 5 {
		t.Errorf("Size = %d", r.Size())
	}
	var zero media.MemoryReader
	if got, err := readAll(t, t.Context(), &zero); err != nil || len(got) != 0 || zero.Size() != 0 {
		t.Errorf("zero reader: %q, %v", got, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.Open(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Open on a cancelled context: %v", err)
	}
}

func TestFileReader(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.bin")
	if err := os.WriteFile(path, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := media.NewFileReader(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Size() != 5 || r.Path() != path {
		t.Errorf("Size = %d, Path = %q", r.Size(), r.Path())
	}
	got, err := readAll(t, t.Context(), r)
	if err != nil || string(got) != "first" {
		t.Fatalf("read %q, %v", got, err)
	}
	// Re-opened per stream: a rewrite shows on the next Open.
	if err := os.WriteFile(path, []byte("again"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := readAll(t, t.Context(), r); string(got) != "again" {
		t.Errorf("second Open read %q, want the new content", got)
	}

	t.Run("cancel stops reads", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		rc, err := r.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		cancel()
		if _, err := rc.Read(make([]byte, 1)); !errors.Is(err, context.Canceled) {
			t.Errorf("Read after cancel: %v", err)
		}
	})
	t.Run("errors", func(t *testing.T) {
		if _, err := media.NewFileReader(filepath.Join(dir, "missing")); !errors.Is(err, media.ErrMediaReadFailed) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing file: %v", err)
		}
		if _, err := media.NewFileReader(dir); !errors.Is(err, media.ErrInvalidReaderLocator) {
			t.Errorf("directory: %v", err)
		}
		if _, err := media.NewFileReader(""); !errors.Is(err, media.ErrInvalidReaderLocator) {
			t.Errorf("empty path: %v", err)
		}
		os.Remove(path)
		if _, err := r.Open(t.Context()); !errors.Is(err, media.ErrMediaReadFailed) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open after removal: %v", err)
		}
	})
}

// TestFileReaderSize checks Size follows the file: each Open stats it again.
func TestFileReaderSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grows.txt")
	if err := os.WriteFile(path, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := media.NewFileReader(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"1234567890", "", "abc"} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, t.Context(), r)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
		if r.Size() != int64(len(content)) {
			t.Errorf("Size after an Open of %d bytes = %d", len(content), r.Size())
		}
	}
	// Replaced by a directory: Open refuses it rather than failing on Read.
	os.Remove(path)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Open(t.Context()); !errors.Is(err, media.ErrInvalidReaderLocator) {
		t.Errorf("Open of a directory: %v, want ErrInvalidReaderLocator", err)
	}
}

// newServer starts a loopback server and a client whose idle connections are
// closed at cleanup, so goleak sees no transport goroutines.
func newServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *http.Client) {
	t.Helper()
	srv := httptest.NewServer(h)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		client.CloseIdleConnections()
		srv.Close()
	})
	return srv, client
}

func TestHTTPReader(t *testing.T) {
	var hits atomic.Int64
	body := bytes.Repeat([]byte("0123456789"), 100) // 1000 bytes
	srv, client := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		if r.Header.Get("X-Token") != "t" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/ok":
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body)
		case "/chunked": // no Content-Length
			w.Write(body[:500])
			w.(http.Flusher).Flush()
			w.Write(body[500:])
		case "/count":
			io.WriteString(w, "fetch "+strconv.FormatInt(n, 10))
		case "/missing":
			http.NotFound(w, r)
		case "/boom":
			http.Error(w, "boom", http.StatusBadGateway)
		}
	})
	hdr := http.Header{"X-Token": {"t"}}
	open := func(path string, limit int64) (*media.HTTPReader, error) {
		return media.NewHTTPReader(srv.URL+path, &media.HTTPOptions{Client: client, MaxBytes: limit, Header: hdr})
	}

	t.Run("ok and size", func(t *testing.T) {
		r, _ := open("/ok", 0)
		if r.Size() != -1 {
			t.Errorf("Size before Open = %d, want -1", r.Size())
		}
		got, err := readAll(t, t.Context(), r)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("read %d bytes, %v", len(got), err)
		}
		if r.Size() != 1000 {
			t.Errorf("Size after Open = %d, want 1000", r.Size())
		}
	})
	t.Run("unknown length", func(t *testing.T) {
		r, _ := open("/chunked", 0)
		got, err := readAll(t, t.Context(), r)
		if err != nil || !bytes.Equal(got, body) || r.Size() != -1 {
			t.Fatalf("read %d bytes, %v, Size %d", len(got), err, r.Size())
		}
	})
	t.Run("re-fetch per Open", func(t *testing.T) {
		r, _ := open("/count", 0)
		a, _ := readAll(t, t.Context(), r)
		b, _ := readAll(t, t.Context(), r)
		if string(a) == string(b) {
			t.Errorf("two Opens returned the same fetch %q", a)
		}
	})
	t.Run("status errors", func(t *testing.T) {
		for path, code := range map[string]int{"/missing": 404, "/boom": 502} {
			r, _ := open(path, 0)
			_, err := r.Open(t.Context())
			var serr *media.StatusError
			if !errors.Is(err, media.ErrMediaFetchFailed) || !errors.As(err, &serr) || serr.StatusCode != code {
				t.Errorf("%s: err = %v, want ErrMediaFetchFailed with status %d", path, err, code)
			}
		}
		r, _ := media.NewHTTPReader(srv.URL+"/ok", &media.HTTPOptions{Client: client}) // no token
		if _, err := r.Open(t.Context()); !errors.Is(err, media.ErrMediaFetchFailed) {
			t.Errorf("401: err = %v", err)
		}
	})
	t.Run("limit", func(t *testing.T) {
		tests := []struct {
			path  string
			limit int64
			open  bool // fails at Open (Content-Length known)
			read  bool // fails while reading
			got   int
		}{
			{"/ok", 1000, false, false, 1000},
			{"/ok", 999, true, false, 0},
			{"/chunked", 1000, false, false, 1000},
			{"/chunked", 700, false, true, 700},
			{"/chunked", 500, false, true, 500},
		}
		for _, tt := range tests {
			r, _ := open(tt.path, tt.limit)
			got, err := readAll(t, t.Context(), r)
			switch {
			case tt.open || tt.read:
				if !errors.Is(err, media.ErrMediaTooLarge) {
					t.Errorf("%s limit %d: err = %v, want ErrMediaTooLarge", tt.path, tt.limit, err)
				}
			case err != nil:
				t.Errorf("%s limit %d: %v", tt.path, tt.limit, err)
			}
			if len(got) != tt.got {
				t.Errorf("%s limit %d: read %d bytes, want %d", tt.path, tt.limit, len(got), tt.got)
			}
		}
	})
	t.Run("transport error", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		url := dead.URL
		dead.Close()
		r, _ := media.NewHTTPReader(url, &media.HTTPOptions{Client: client})
		if _, err := r.Open(t.Context()); !errors.Is(err, media.ErrMediaFetchFailed) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("bad url", func(t *testing.T) {
		for _, u := range []string{"", "ftp://x/y", "/relative", "http://", "::"} {
			if _, err := media.NewHTTPReader(u, nil); !errors.Is(err, media.ErrInvalidReaderLocator) {
				t.Errorf("%q: err = %v", u, err)
			}
		}
	})
}

func TestHTTPReaderCancel(t *testing.T) {
	release := make(chan struct{})
	srv, client := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		select { // hold the body open until the client gives up
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	r, _ := media.NewHTTPReader(srv.URL, &media.HTTPOptions{Client: client})

	ctx, cancel := context.WithCancel(t.Context())
	rc, err := r.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	buf := make([]byte, 7)
	if _, err := io.ReadFull(rc, buf); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(10*time.Millisecond, cancel)
	if _, err := io.ReadAll(rc); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v, want context.Canceled", err)
	}

	done, cancel2 := context.WithCancel(t.Context())
	cancel2()
	if _, err := r.Open(done); !errors.Is(err, context.Canceled) || !errors.Is(err, media.ErrMediaFetchFailed) {
		t.Errorf("Open on a cancelled context: %v", err)
	}
}

// TestHTTPReaderLimitNearMaxInt64 reads through HTTP limits at and near the
// int64 edge, set directly and resolved from a stored locator (persisted
// data picks the limit): a huge limit is no limit in practice, so every
// reading path must return the body whole, never panic; small limits keep
// their exact edge.
func TestHTTPReaderLimitNearMaxInt64(t *testing.T) {
	body := []byte("hello, world") // 12 bytes
	b64 := base64.StdEncoding.EncodeToString(body)
	srv, client := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" { // no Content-Length: only the body's limit applies
			w.Write(body[:5])
			w.(http.Flusher).Flush()
			w.Write(body[5:])
			return
		}
		w.Write(body)
	})
	tests := []struct {
		limit int64
		ok    bool
	}{
		{math.MaxInt64, true},
		{math.MaxInt64 - 1, true},
		{math.MaxInt64 - 12, true},
		{math.MaxInt64 / 2, true},
		{1 << 62, true},
		{13, true},
		{12, true},
		{11, false},
		{1, false},
	}
	for _, path := range []string{"/length", "/chunked"} {
		for _, tt := range tests {
			name := path[1:] + "/" + strconv.FormatInt(tt.limit, 10)
			direct, err := media.NewHTTPReader(srv.URL+path, &media.HTTPOptions{Client: client, MaxBytes: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			loc, _ := json.Marshal(map[string]any{"url": srv.URL + path, "maxBytes": tt.limit})
			stored, err := media.ResolveReader(media.Descriptor{Tag: media.TagHTTP, Locator: loc},
				&media.ResolveOptions{HTTP: &media.HTTPOptions{Client: client}})
			if err != nil {
				t.Fatal(err)
			}
			if got := stored.(*media.HTTPReader).MaxBytes(); got != tt.limit {
				t.Fatalf("%s: resolved limit %d, want %d", name, got, tt.limit)
			}
			for how, r := range map[string]media.Reader{"direct": direct, "stored": stored} {
				t.Run(name+"/"+how, func(t *testing.T) {
					check := func(what string, err error, ok bool) {
						t.Helper()
						if tt.ok && (err != nil || !ok) {
							t.Errorf("%s: err = %v, ok = %v; want the whole body", what, err, ok)
						}
						if !tt.ok && !errors.Is(err, media.ErrMediaTooLarge) {
							t.Errorf("%s: err = %v, want ErrMediaTooLarge", what, err)
						}
					}
					m := mediaOver(t, r, "text/plain")
					noPanic(t, "Open+ReadAll", func() {
						got, err := readAll(t, t.Context(), r)
						check("Open+ReadAll", err, bytes.Equal(got, body))
					})
					noPanic(t, "Bytes", func() {
						got, err := m.Bytes(t.Context(), 0)
						check("Bytes", err, bytes.Equal(got, body))
					})
					noPanic(t, "Base64", func() {
						got, err := m.Base64(t.Context())
						check("Base64", err, got == b64)
					})
					noPanic(t, "WriteBase64", func() {
						var buf bytes.Buffer
						err := m.WriteBase64(t.Context(), &buf)
						check("WriteBase64", err, buf.String() == b64)
					})
				})
			}
		}
	}
}

func TestDescribeAndResolve(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	os.WriteFile(path, []byte("file"), 0o600)
	fr, _ := media.NewFileReader(path)
	hr, _ := media.NewHTTPReader("https://example.com/a.png?x=1", &media.HTTPOptions{MaxBytes: 10, Header: http.Header{"Authorization": {"secret"}}})
	cred, _ := media.NewHTTPReader("https://user:secret@example.com/a.png?token=t0k", nil)
	bareUser, _ := media.NewHTTPReader("http://user@example.com:8080/", nil)

	tests := []struct {
		name    string
		r       media.Reader
		tag     string
		locator string
	}{
		{"memory", media.NewMemoryReader([]byte("hi")), media.TagInMemory, `{"bytesBase64":"aGk="}`},
		{"file", fr, media.TagFile, `{"path":` + strconv.Quote(path) + `}`},
		{"http", hr, media.TagHTTP, `{"url":"https://example.com/a.png?x=1","maxBytes":10}`},
		// Userinfo is credentials, dropped like headers; the query is kept.
		{"http userinfo", cred, media.TagHTTP, `{"url":"https://example.com/a.png?token=t0k"}`},
		{"http user only", bareUser, media.TagHTTP, `{"url":"http://example.com:8080/"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := media.DescribeReader(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if d.Tag != tt.tag || string(d.Locator) != tt.locator {
				t.Errorf("Describe = %s %s, want %s %s", d.Tag, d.Locator, tt.tag, tt.locator)
			}
		})
	}

	t.Run("not describable", func(t *testing.T) {
		if _, err := media.DescribeReader(countingReader{read: new(int)}); !errors.Is(err, media.ErrReaderNotDescribable) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("resolve memory by default", func(t *testing.T) {
		r, err := media.ResolveReader(media.Descriptor{Tag: media.TagInMemory, Locator: json.RawMessage(`{"bytesBase64":"aGk="}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := readAll(t, t.Context(), r); string(got) != "hi" {
			t.Errorf("read %q", got)
		}
	})
	t.Run("file and http need opting in", func(t *testing.T) {
		for _, rd := range []media.Reader{fr, hr} {
			d, _ := media.DescribeReader(rd)
			if _, err := media.ResolveReader(d, nil); !errors.Is(err, media.ErrNoReaderResolver) {
				t.Errorf("%s without opt-in: err = %v", d.Tag, err)
			}
		}
		d, _ := media.DescribeReader(fr)
		r, err := media.ResolveReader(d, &media.ResolveOptions{AllowFile: true})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := readAll(t, t.Context(), r); string(got) != "file" {
			t.Errorf("read %q", got)
		}
		d, _ = media.DescribeReader(hr)
		r, err = media.ResolveReader(d, &media.ResolveOptions{HTTP: &media.HTTPOptions{MaxBytes: 100}})
		if err != nil {
			t.Fatal(err)
		}
		h := r.(*media.HTTPReader)
		if h.URL() != hr.URL() || h.MaxBytes() != 10 {
			t.Errorf("resolved %s limit %d", h.URL(), h.MaxBytes())
		}
	})
	t.Run("bad locator and unknown tag", func(t *testing.T) {
		if _, err := media.ResolveReader(media.Descriptor{Tag: media.TagInMemory, Locator: json.RawMessage(`{"bytesBase64":5}`)}, nil); !errors.Is(err, media.ErrInvalidReaderLocator) {
			t.Errorf("bad locator: %v", err)
		}
		if _, err := media.ResolveReader(media.Descriptor{Tag: "s3"}, nil); !errors.Is(err, media.ErrNoReaderResolver) {
			t.Errorf("unknown tag: %v", err)
		}
		custom := &media.ResolveOptions{Custom: map[string]func(json.RawMessage) (media.Reader, error){
			"s3": func(json.RawMessage) (media.Reader, error) { return media.NewMemoryReader([]byte("s3")), nil },
		}}
		if r, err := media.ResolveReader(media.Descriptor{Tag: "s3"}, custom); err != nil || r.Size() != 2 {
			t.Errorf("custom: %v, %v", r, err)
		}
	})
}

func TestRecordRoundTrip(t *testing.T) {
	raw := validRaw()
	raw.Stash = map[string]media.StashEntry{media.StashCaption: {Value: "c", TrustTier: media.FirstParty}}
	m, _ := media.New(raw)
	rec, err := m.Record()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec)
	var back media.Metadata
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	m2, err := media.FromRecord(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(m.Metadata(), m2.Metadata()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got, _ := m2.Bytes(t.Context(), 0); string(got) != "png" {
		t.Errorf("bytes %q", got)
	}
	back.Reader = nil
	if _, err := media.FromRecord(back, nil); !errors.Is(err, media.ErrNotAMediaReader) {
		t.Errorf("no reader: %v", err)
	}
	raw.Reader = countingReader{read: new(int)}
	m, _ = media.New(raw)
	if _, err := m.Record(); !errors.Is(err, media.ErrReaderNotDescribable) {
		t.Errorf("undescribable: %v", err)
	}
}

// TestConcurrentStreams reads one Media from many goroutines under -race.
func TestConcurrentStreams(t *testing.T) {
	data := randomBytes(70_000)
	srv, client := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write(data) })
	path := filepath.Join(t.TempDir(), "d.bin")
	os.WriteFile(path, data, 0o600)
	fr, _ := media.NewFileReader(path)
	hr, _ := media.NewHTTPReader(srv.URL, &media.HTTPOptions{Client: client, MaxBytes: 1 << 20})
	for _, r := range []media.Reader{media.NewMemoryReader(data), fr, hr} {
		m := mediaOver(t, r, "image/png")
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				b, err := m.Bytes(t.Context(), 0)
				if err != nil || !bytes.Equal(b, data) {
					t.Errorf("%T: %d bytes, %v", r, len(b), err)
				}
			})
		}
		wg.Wait()
	}
}
