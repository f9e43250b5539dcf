// Package wiretest helps test model adapters over real HTTP: a scripted
// server that records what it was sent, and the assembly of a response's
// parts the way the runner does it.
package wiretest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ebbforge/adk/llm"
)

// Call is an assembled tool call; Args is compacted JSON for comparison
// (models space their arguments differently).
type Call struct {
	ID, Name, Args string
	Payload        string `json:",omitempty"`
}

// Result is what a response assembles to.
type Result struct {
	Text      string
	Reasoning string
	Payloads  []string `json:",omitempty"` // thought payloads
	Calls     []Call
	Usage     *llm.Usage
	Stop      llm.StopReason
	Err       error `json:"-"`
}

// Collect assembles parts the way the runner does: ids and names from the
// first part that has them, arguments joined, by index.
func Collect(seq func(func(llm.Part, error) bool)) Result {
	var r Result
	byIndex := map[int]*Call{}
	var order []int
	for p, err := range seq {
		if err != nil {
			r.Err = err
			break
		}
		switch p.Kind {
		case llm.PartText:
			r.Text += p.Text
		case llm.PartThought:
			r.Reasoning += p.Text
			if p.Payload != nil {
				r.Payloads = append(r.Payloads, p.ReplayCompatibility+" "+string(p.Payload))
			}
		case llm.PartToolCall:
			c := byIndex[p.Index]
			if c == nil {
				c = &Call{}
				byIndex[p.Index] = c
				order = append(order, p.Index)
			}
			if c.ID == "" {
				c.ID = p.ID
			}
			if c.Name == "" {
				c.Name = p.Name
			}
			c.Args += p.Text
			if p.Payload != nil {
				c.Payload = string(p.Payload)
			}
		case llm.PartUsage:
			u := p.Usage
			r.Usage = &u
		case llm.PartStop:
			r.Stop = p.StopReason
		}
	}
	sort.Ints(order)
	for _, i := range order {
		c := *byIndex[i]
		c.Args = Compact(c.Args)
		r.Calls = append(r.Calls, c)
	}
	return r
}

// Compact is s, a JSON text, compacted with sorted keys; invalid JSON is
// marked "INVALID ".
func Compact(s string) string {
	if s == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "INVALID " + s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (r Result) String() string {
	b, _ := json.MarshalIndent(r, "", "  ")
	return fmt.Sprintf("%s err=%v", b, r.Err)
}

// Server is an httptest server answering each request with the next
// scripted response, and recording the request bodies.
type Server struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	heads  []http.Header
}

// Reply is one scripted answer.
type Reply struct {
	Status      int
	ContentType string
	Header      http.Header
	Body        string
}

// NewServer answers each request with the next reply, and a 418 once they
// run out.
func NewServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{}
	n := 0
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, b)
		s.heads = append(s.heads, r.Header.Clone())
		i := n
		n++
		s.mu.Unlock()
		if i >= len(replies) {
			http.Error(w, "no more replies", http.StatusTeapot)
			return
		}
		rp := replies[i]
		for k, v := range rp.Header {
			w.Header()[k] = v
		}
		if rp.ContentType != "" {
			w.Header().Set("Content-Type", rp.ContentType)
		}
		w.WriteHeader(rp.Status)
		io.WriteString(w, rp.Body)
	}))
	t.Cleanup(s.Close)
	return s
}

// Body is the body of the i-th request.
func (s *Server) Body(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// SSE is a 200 event-stream reply.
func SSE(body string) Reply {
	return Reply{Status: 200, ContentType: "text/event-stream; charset=utf-8", Body: body}
}

// Fixture reads testdata/name.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Header is the header of the i-th request.
func (s *Server) Header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heads[i]
}

// Requests is how many requests arrived.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// Hang is an HTTP transport for timeout tests: it answers with an event
// stream that sends Head and then nothing until the request is cancelled,
// or, with NoHeaders, does not answer until then. It runs no network, so
// it works inside a testing/synctest bubble.
type Hang struct {
	Head      []byte
	NoHeaders bool
}

// RoundTrip implements http.RoundTripper.
func (h Hang) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.NoHeaders {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	pr, pw := io.Pipe()
	go func() {
		pw.Write(h.Head)
		<-r.Context().Done()
		pw.CloseWithError(r.Context().Err())
	}()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr, Request: r}, nil
}

// Run streams req (nil means an empty request) from m and assembles it.
func Run(t testing.TB, m llm.Model, req *llm.Request) Result {
	t.Helper()
	if req == nil {
		req = &llm.Request{}
	}
	return Collect(m.Stream(context.Background(), req))
}

// FixtureData is, for each testdata/*.sse file, its data payloads joined
// with newlines: seeds for fuzzing a decoder.
func FixtureData(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.sse"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var data []string
		for _, line := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
		out = append(out, strings.Join(data, "\n"))
	}
	return out
}
