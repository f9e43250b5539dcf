package media

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"
)

// HTTPOptions configures an [HTTPReader]. A nil *HTTPOptions means defaults.
type HTTPOptions struct {
	// Client sends the requests; nil means http.DefaultClient. Give one with
	// a Timeout (or rely on the Open context) for untrusted servers.
	Client *http.Client
	// MaxBytes, when positive, is the most bytes a stream yields: a response
	// whose Content-Length exceeds it fails at Open, and a body that runs past
	// it fails the Read that crosses it, both with [ErrMediaTooLarge].
	// Zero means no limit.
	MaxBytes int64
	// Header is sent with every request. It is not persisted by Describe
	// (headers often hold credentials).
	Header http.Header
}

// HTTPReader fetches a URL with GET, afresh on every Open. Safe for
// concurrent use.
type HTTPReader struct {
	url      *url.URL
	client   *http.Client
	maxBytes int64
	header   http.Header
	// lastSize holds the latest response's Content-Length + 1 (0: unknown),
	// so the zero value reads as "unknown".
	lastSize atomic.Int64
}

// NewHTTPReader returns a reader for an absolute http or https URL; any
// other URL yields [ErrInvalidReaderLocator]. Nothing is fetched until Open.
func NewHTTPReader(rawURL string, opts *HTTPOptions) (*HTTPReader, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, ErrInvalidReaderLocator.With(err, "media: http reader")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, ErrInvalidReaderLocator.With(nil, "media: http reader: %q is not an absolute http(s) URL", u.Redacted())
	}
	r := &HTTPReader{url: u, client: http.DefaultClient}
	if opts != nil {
		if opts.Client != nil {
			r.client = opts.Client
		}
		if opts.MaxBytes > 0 {
			r.maxBytes = opts.MaxBytes
		}
		r.header = opts.Header.Clone()
	}
	return r, nil
}

// URL is the URL fetched, userinfo included (unlike [HTTPReader.Describe]).
func (r *HTTPReader) URL() string { return r.url.String() }

// MaxBytes is the size limit, 0 for none.
func (r *HTTPReader) MaxBytes() int64 { return r.maxBytes }

// Size is a hint: the Content-Length of the latest successful Open, or -1
// before the first Open or when the server sent none. The next fetch may
// differ, and a server can announce a length it does not send (the read
// then fails with io.ErrUnexpectedEOF).
func (r *HTTPReader) Size() int64 { return r.lastSize.Load() - 1 }

// Open sends a GET bound to ctx and returns the body. Cancelling ctx aborts
// the request and fails later Reads. A transport failure or a non-2xx status
// yields [ErrMediaFetchFailed] (with a *[StatusError] cause for the latter).
func (r *HTTPReader) Open(ctx context.Context) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url.String(), nil)
	if err != nil {
		return nil, ErrMediaFetchFailed.With(err, "media: GET %s", r.url.Redacted())
	}
	for k, v := range r.header {
		req.Header[k] = append([]string(nil), v...)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, ErrMediaFetchFailed.With(err, "media: GET %s", r.url.Redacted())
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body.Close()
		serr := &StatusError{StatusCode: resp.StatusCode, URL: r.url.Redacted()}
		return nil, ErrMediaFetchFailed.With(serr, "media: fetch")
	}
	if r.maxBytes > 0 && resp.ContentLength > r.maxBytes {
		resp.Body.Close()
		return nil, ErrMediaTooLarge.With(nil, "media: GET %s: content-length %d exceeds limit %d",
			r.url.Redacted(), resp.ContentLength, r.maxBytes)
	}
	r.lastSize.Store(max(resp.ContentLength, -1) + 1)
	if r.maxBytes <= 0 {
		return resp.Body, nil
	}
	return &limitedBody{rc: resp.Body, left: r.maxBytes, limit: r.maxBytes}, nil
}

// httpLocator is the persisted form.
type httpLocator struct {
	URL      string `json:"url"`
	MaxBytes int64  `json:"maxBytes,omitempty"`
}

// Describe returns [TagHTTP] and {"url": ..., "maxBytes": n}. The client and
// headers are not persisted, and neither is the URL's userinfo
// ("user:secret@"): all three often hold credentials, which
// [ResolveReader]'s [ResolveOptions] supply again (a client, or an
// Authorization header). The query string is persisted as-is, since the
// URL does not work without it: a URL that carries a token in its query (a
// pre-signed link) puts that token in the record, so persist such media
// with another reader or keep the record as secret as the token.
func (r *HTTPReader) Describe() (tag string, locator json.RawMessage, ok bool) {
	u := *r.url
	u.User = nil
	b, err := json.Marshal(httpLocator{URL: u.String(), MaxBytes: r.maxBytes})
	if err != nil {
		return "", nil, false
	}
	return TagHTTP, b, true
}

// limitedBody fails the Read that would go past limit, like
// http.MaxBytesReader, but with [ErrMediaTooLarge].
type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, l.tooLarge()
	}
	if len(p) == 0 {
		return 0, nil
	}
	// Ask for one byte more than allowed so an exact-size body ends cleanly
	// and an oversize one is caught without reading further. Compare as
	// len(p)-1 > left: left+1 would overflow for a limit of math.MaxInt64
	// (and a limit comes from persisted data via ResolveReader).
	if int64(len(p))-1 > l.left {
		p = p[:l.left+1] // left < len(p)-1, so left+1 fits
	}
	n, err := l.rc.Read(p)
	if int64(n) <= l.left {
		l.left -= int64(n)
		return n, err
	}
	n = int(l.left)
	l.left = -1
	return n, l.tooLarge()
}

func (l *limitedBody) tooLarge() error {
	return ErrMediaTooLarge.With(nil, "media: body exceeds limit %d", l.limit)
}

func (l *limitedBody) Close() error { return l.rc.Close() }
