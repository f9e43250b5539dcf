package wire

import (
	"iter"
	"net/http"
)

// Seq is the single-use sequence of one call: run yields parts as they
// arrive, and the failure it returns is yielded once, last.
func Seq[P any](run func(yield func(P, error) bool) error) iter.Seq2[P, error] {
	return func(yield func(P, error) bool) {
		if err := run(yield); err != nil {
			var zero P
			yield(zero, err)
		}
	}
}

// Header is a copy of the configured headers for one request (the caller
// adds its own), asking for an event stream when stream is set.
func Header(configured http.Header, stream bool) http.Header {
	h := http.Header{}
	for k, vs := range configured {
		h[k] = append([]string(nil), vs...)
	}
	if stream {
		h.Set("Accept", "text/event-stream")
	}
	return h
}

// Emitter hands decoded parts to a consumer and remembers when it
// stopped reading. Its zero value needs Yield set.
type Emitter[P any] struct {
	Yield   func(P, error) bool
	Stopped bool // the consumer stopped reading
}

// Emit yields the pending parts and empties them; false once the consumer
// stopped.
func (e *Emitter[P]) Emit(pending *[]P) bool {
	if !e.Stopped && !Yield(*pending, e.Yield) {
		e.Stopped = true
	}
	*pending = (*pending)[:0]
	return !e.Stopped
}
