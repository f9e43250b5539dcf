package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"sync"

	"github.com/ebbforge/adk/llm"
)

// ErrScriptExhausted is yielded when the model is called more often than
// its script has steps.
var ErrScriptExhausted = errors.New("scripted: script exhausted")

// Call is a tool call the scripted model makes.
type Call struct {
	// ID is the call id ("" lets the runner generate one).
	ID string
	// Name is the tool name.
	Name string
	// Args is the raw argument text, usually a JSON object.
	Args string
	// Pieces, when > 1, streams Args in that many parts of about equal
	// length (the first carries ID and Name), as providers do; never
	// splitting a character, so in fewer when Args has fewer characters.
	Pieces int
	// Payload and ReplayCompatibility ride on the call's first piece (opaque
	// replay data, such as a thought signature).
	Payload             json.RawMessage
	ReplayCompatibility string
}

// Step is one scripted model response: thought chunks, text chunks and tool
// calls, streamed in that order, then usage, the stop reason and an
// optional error.
type Step struct {
	Thoughts []string
	// ThoughtPayload and ReplayCompatibility ride on the thought block.
	ThoughtPayload      json.RawMessage
	ReplayCompatibility string
	Text                []string
	Calls               []Call
	Usage               *llm.Usage
	// Stop is the stop reason; "" means StopToolUse with calls, else StopEnd.
	Stop llm.StopReason
	// Err, when set, is yielded after the parts above (a mid-stream failure).
	Err error
}

// Say is a step answering with text chunks.
func Say(chunks ...string) Step { return Step{Text: chunks} }

// Use is a step calling tools.
func Use(calls ...Call) Step { return Step{Calls: calls} }

// Func computes the next step from the request, for dynamic behaviour.
type Func func(ctx context.Context, req *llm.Request) (Step, error)

// Model is a scripted llm.Model: a test double that needs no
// network. It answers each call with the next step of its script (or with
// its Func), and records every request it receives, so tests can assert
// what the model saw. Safe for concurrent use.
type Model struct {
	fn Func

	mu       sync.Mutex
	steps    []Step
	next     int
	requests []*llm.Request
}

// New returns a model that plays steps in order. It keeps its own copy of
// the steps: changing them (their slices, payload or usage) afterwards does
// not change the script.
func New(steps ...Step) *Model {
	steps = slices.Clone(steps)
	for i := range steps {
		steps[i] = steps[i].clone()
	}
	return &Model{steps: steps}
}

// clone returns s sharing no slice or pointer with it.
func (s Step) clone() Step {
	s.Thoughts = slices.Clone(s.Thoughts)
	s.ThoughtPayload = bytes.Clone(s.ThoughtPayload)
	s.Text = slices.Clone(s.Text)
	s.Calls = slices.Clone(s.Calls)
	for i := range s.Calls {
		s.Calls[i].Payload = bytes.Clone(s.Calls[i].Payload)
	}
	if s.Usage != nil {
		u := *s.Usage
		s.Usage = &u
	}
	return s
}

// NewFunc returns a model that asks fn for every step.
func NewFunc(fn Func) *Model { return &Model{fn: fn} }

// Requests returns the requests received so far, in order.
func (m *Model) Requests() []*llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*llm.Request(nil), m.requests...)
}

// Calls is how many responses the model has played: a Stream iterator
// counts once it is ranged over, as that is when the model is asked.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// Reset rewinds the script and forgets the requests.
func (m *Model) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next, m.requests = 0, nil
}

// Stream implements llm.Model.
func (m *Model) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
	return func(yield func(llm.Part, error) bool) {
		step, err := m.step(ctx, req)
		if err != nil {
			yield(llm.Part{}, err)
			return
		}
		Play(ctx, step, yield)
	}
}

func (m *Model) step(ctx context.Context, req *llm.Request) (Step, error) {
	m.mu.Lock()
	m.requests = append(m.requests, req)
	if m.fn == nil {
		defer m.mu.Unlock()
		if m.next >= len(m.steps) {
			return Step{}, ErrScriptExhausted
		}
		m.next++
		return m.steps[m.next-1], nil
	}
	m.mu.Unlock()
	return m.fn(ctx, req)
}

// Play streams one step into yield (the Stream body, exported so other
// test doubles can reuse it). It stops early when yield returns false or
// ctx ends (yielding ctx's error). A thought Part's Payload is a copy the
// consumer owns: editing it never changes the step.
func Play(ctx context.Context, s Step, yield func(llm.Part, error) bool) {
	emit := func(p llm.Part) bool {
		if err := ctx.Err(); err != nil {
			yield(llm.Part{}, err)
			return false
		}
		return yield(p, nil)
	}
	for _, t := range s.Thoughts {
		if !emit(llm.ThoughtPart(0, t)) {
			return
		}
	}
	if len(s.ThoughtPayload) > 0 || s.ReplayCompatibility != "" {
		if !emit(llm.Part{Kind: llm.PartThought, Payload: bytes.Clone(s.ThoughtPayload), ReplayCompatibility: s.ReplayCompatibility}) {
			return
		}
	}
	for _, t := range s.Text {
		if !emit(llm.TextPart(t)) {
			return
		}
	}
	for i, c := range s.Calls {
		for k, piece := range splitPieces(c.Args, c.Pieces) {
			p := llm.Part{Kind: llm.PartToolCall, Index: i, Text: piece}
			if k == 0 {
				p.ID, p.Name = c.ID, c.Name
				p.Payload, p.ReplayCompatibility = bytes.Clone(c.Payload), c.ReplayCompatibility
			}
			if !emit(p) {
				return
			}
		}
	}
	if s.Usage != nil {
		if !emit(llm.UsagePart(*s.Usage)) {
			return
		}
	}
	if s.Err != nil {
		yield(llm.Part{}, s.Err)
		return
	}
	stop := s.Stop
	if stop == "" {
		stop = llm.StopEnd
		if len(s.Calls) > 0 {
			stop = llm.StopToolUse
		}
	}
	emit(llm.StopPart(stop))
}

// splitPieces cuts s into n parts (at least one) of about equal numbers
// of characters, never inside a character: fewer when s has fewer
// characters than n.
func splitPieces(s string, n int) []string {
	starts := make([]int, 0, len(s))
	for i := range s {
		starts = append(starts, i)
	}
	n = max(min(n, len(starts)), 1)
	out := make([]string, 0, n)
	for k := range n {
		from, to := k*len(starts)/n, (k+1)*len(starts)/n
		a, b := len(s), len(s)
		if from < len(starts) {
			a = starts[from]
		}
		if to < len(starts) {
			b = starts[to]
		}
		out = append(out, s[a:b])
	}
	return out
}
