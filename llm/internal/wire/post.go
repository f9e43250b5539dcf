package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/ebbforge/adk/internal/errcode"
	"github.com/ebbforge/adk/llm/internal/sse"
)

// Timeout causes, for errors.Is.
var (
	ErrRequestTimeout = errors.New("request timeout: no response headers in time")
	ErrIdleTimeout    = errors.New("stream idle timeout: no data in time")
)

// Bounds on bodies read whole.
const (
	maxErrorBody = 1 << 20
	maxWholeBody = 64 << 20
)

// Request is one POST of a JSON body.
type Request struct {
	Client *http.Client // nil means http.DefaultClient
	URL    string
	Header http.Header
	Body   []byte
	// RequestTimeout bounds the wait for the headers, IdleTimeout each wait
	// on the body; <= 0 means none.
	RequestTimeout, IdleTimeout time.Duration
}

// Handler receives what the server answered. A method returning an error
// ends the call with it.
type Handler interface {
	// Status handles a non-2xx answer and its (bounded) body; it returns
	// the error to report.
	Status(resp *http.Response, body []byte) error
	// Whole handles a 2xx answer that is not an event stream.
	Whole(resp *http.Response, body []byte) error
	// Event handles one event of a stream; done ends the call early.
	Event(resp *http.Response, ev sse.Event) (done bool, err error)
}

// Post sends r and feeds the answer to h. Transport failures are returned
// as they are, except that an expired timeout is returned as its cause
// ([ErrRequestTimeout], [ErrIdleTimeout]). A stream that simply ends
// returns nil: deciding whether it was complete is the handler's job.
func Post(ctx context.Context, r Request, h Handler) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return err
	}
	hreq.Header = r.Header.Clone()
	if hreq.Header == nil {
		hreq.Header = http.Header{}
	}
	hreq.Header.Set("Content-Type", "application/json")
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	watch := New(cancel, r.RequestTimeout, ErrRequestTimeout)
	defer watch.Stop()
	resp, err := client.Do(hreq)
	if err != nil {
		return cause(ctx, err)
	}
	defer resp.Body.Close()
	watch.Reset(r.IdleTimeout, ErrIdleTimeout)
	body := watch.Reader(resp.Body)
	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
		return h.Status(resp, raw)
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		raw, err := io.ReadAll(io.LimitReader(body, maxWholeBody))
		if err != nil {
			return cause(ctx, err)
		}
		return h.Whole(resp, raw)
	}
	events := sse.NewReader(body)
	for {
		ev, err := events.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return cause(ctx, err)
		}
		done, err := h.Event(resp, ev)
		if err != nil || done {
			return err
		}
	}
}

// cause is the timeout that cancelled ctx, else err.
func cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); errors.Is(c, ErrRequestTimeout) || errors.Is(c, ErrIdleTimeout) {
		return c
	}
	return err
}

// MergeExtra adds the members of extra, a JSON object of provider-specific
// fields, to body, a JSON object; anything else leaves body as it is.
func MergeExtra(body, extra []byte) []byte {
	extra = bytes.TrimSpace(extra)
	if len(extra) < 2 || extra[0] != '{' || !json.Valid(extra) {
		return body
	}
	inner := bytes.TrimSpace(extra[1 : len(extra)-1])
	if len(inner) == 0 || len(body) < 2 {
		return body
	}
	out := append(body[:len(body)-1:len(body)-1], ',')
	out = append(out, inner...)
	return append(out, '}')
}

// Reported wraps an error a [Handler] has already typed, so that the
// caller of [Post] tells it from a transport failure.
type Reported struct{ Err error }

func (r Reported) Error() string { return r.Err.Error() }
func (r Reported) Unwrap() error { return r.Err }

// Yield hands parts to yield in order; false when the consumer stopped.
func Yield[P any](parts []P, yield func(P, error) bool) bool {
	for _, p := range parts {
		if !yield(p, nil) {
			return false
		}
	}
	return true
}

// Sentinels are the typed errors [Failure] sorts failures into.
type Sentinels struct {
	Timeout, Protocol, Transport *errcode.Error
}

// Failure types an error [Post] returned: one a handler [Reported] and
// the caller's cancellation as they are; an expired timeout as Timeout;
// an oversized event as Protocol; anything else as Transport, its text
// with every secret replaced (a proxy may echo an API key).
func Failure(ctx context.Context, err error, prefix string, s Sentinels, secrets ...string) error {
	var r Reported
	switch {
	case errors.As(err, &r):
		return r.Err
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, ErrRequestTimeout), errors.Is(err, ErrIdleTimeout):
		return s.Timeout.With(err, "%s", prefix)
	case errors.Is(err, sse.ErrTooLong):
		return s.Protocol.With(err, "%s", prefix)
	}
	text := err.Error()
	for _, k := range secrets {
		if k != "" {
			text = strings.ReplaceAll(text, k, "[redacted]")
		}
	}
	return s.Transport.With(errors.New(text), "%s", prefix)
}
