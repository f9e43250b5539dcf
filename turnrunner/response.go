package turnrunner

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
)

// streamState accumulates one streamed response.
type streamState struct {
	id         string // the response id its timeline entries carry
	msgID      string
	msg        strings.Builder
	msgCreated time.Time
	msgBlock   *block
	thoughts   []*thoughtState
	calls      []*callState
	blocks     []*block // thoughts, the message and calls in the order they started
	stored     int      // blocks already stored
	usage      llm.Usage
	hasUsage   bool
	stop       llm.StopReason
	overflow   bool // the tool-call arguments exceeded MaxToolCallArgBytes
	argBytes   int  // the tool-call bytes read so far (see Options.MaxToolCallArgBytes)
	// parts counts the parts read, of every attempt, for consume to tell
	// whether an attempt started: a field, as a local that read's loop
	// body (a range-over-func closure) assigned would move to the heap.
	parts int
	ended time.Time // when the response ended (its GenerationStats); zero before
}

// responseEnd is when the response ended, read now if it was not yet.
func (s *streamState) responseEnd(r *Runner) time.Time {
	if s.ended.IsZero() {
		s.ended = r.now()
	}
	return s.ended
}

// block is one entry of a response, in the order it started streaming.
// Thoughts and the message are ready when the stream ends, tool calls once
// settled; flush stores ready blocks in order, so the timeline keeps the
// response's order (a thought between two tool calls stays between them).
type block struct {
	entry    dispatch.Entry // no value: a call that could not be recorded
	ready    bool
	executed bool
}

type thoughtState struct {
	index   int
	id      string
	text    strings.Builder
	payload []byte
	compat  string
	created time.Time
	block   block // in the response's blocks, allocated with the thought
}

type callState struct {
	index    int
	id, name string
	args     strings.Builder
	payload  []byte // opaque replay data (a signature), kept on the stored call
	compat   string
	overflow bool  // its arguments were cut at MaxToolCallArgBytes
	block    block // in the response's blocks, allocated with the call
}

// addBlock appends b to the response's blocks and returns it.
func (s *streamState) addBlock(b *block) *block {
	s.blocks = append(s.blocks, b)
	return b
}

func (s *streamState) thought(index int) *thoughtState {
	for _, t := range s.thoughts {
		if t.index == index {
			return t
		}
	}
	t := &thoughtState{index: index}
	s.addBlock(&t.block)
	s.thoughts = append(s.thoughts, t)
	return t
}

func (s *streamState) call(index int) *callState {
	for i := len(s.calls) - 1; i >= 0; i-- {
		if s.calls[i].index == index {
			return s.calls[i]
		}
	}
	c := &callState{index: index}
	s.addBlock(&c.block)
	s.calls = append(s.calls, c)
	return c
}

// flush stores the ready blocks in stream order with the response id,
// stopping at the first block not ready.
func (s *streamState) flush(ctx context.Context, dc *dispatch.Context) error {
	for s.stored < len(s.blocks) && s.blocks[s.stored].ready {
		b := s.blocks[s.stored]
		s.stored++
		if b.entry.Kind() == dispatch.EntryNone {
			continue
		}
		b.entry.ResponseID = s.id
		if err := drive.Save(ctx, dc, b.entry, b.executed); err != nil {
			return err
		}
	}
	return nil
}

// settled records c's stored call (nil when it could not be recorded) and
// stores what became storable.
func (s *streamState) settled(ctx context.Context, dc *dispatch.Context, c *callState, call *forge.ToolCall, executed bool) error {
	c.block.ready, c.block.executed = true, executed
	if call != nil {
		c.block.entry = dispatch.Entry{ToolCall: call}
	}
	return s.flush(ctx, dc)
}

// finish completes the streamed thoughts and message (events) and makes
// them ready to store.
func (r *Runner) finish(em *emitter, st *streamState) error {
	for _, t := range st.thoughts {
		done := r.now()
		em.send(ThoughtDelta{ID: t.id, Full: t.text.String(), Payload: t.payload, ReplayCompatibility: t.compat,
			IsComplete: true, CreatedAt: t.created, CompletedAt: done})
		compat := t.compat
		if len(t.payload) > 0 && compat == "" {
			compat = "unknown"
		}
		th, err := dispatch.NewThought(dispatch.RawThought{ID: t.id, Content: forge.NewTokenizable(t.text.String()),
			Payload: t.payload, ReplayCompatibility: compat, CreatedAt: t.created, UpdatedAt: done})
		if err != nil {
			return err
		}
		t.block.entry, t.block.ready = dispatch.Entry{Thought: th}, true
	}
	if st.msgID != "" {
		done := r.now()
		em.send(MessageDelta{ID: st.msgID, Full: st.msg.String(), IsComplete: true, CreatedAt: st.msgCreated, CompletedAt: done})
		m, err := dispatch.NewMessage(dispatch.RawMessage{ID: st.msgID, Role: dispatch.RoleAssistant,
			Content: forge.NewTokenizable(st.msg.String()), CreatedAt: st.msgCreated, UpdatedAt: done})
		if err != nil {
			return err
		}
		st.msgBlock.entry, st.msgBlock.ready = dispatch.Entry{Message: m}, true
	}
	return nil
}

// abandon closes the thoughts and message of a response that failed part
// way with err; they are not stored.
func (r *Runner) abandon(em *emitter, st *streamState, err error) {
	for _, t := range st.thoughts {
		if t.id == "" {
			continue
		}
		em.send(ThoughtDelta{ID: t.id, Full: t.text.String(), Err: err, CreatedAt: t.created, CompletedAt: r.now()})
	}
	if st.msgID != "" {
		em.send(MessageDelta{ID: st.msgID, Full: st.msg.String(), Err: err, CreatedAt: st.msgCreated, CompletedAt: r.now()})
	}
}

// newEntryID is a random (version 4) UUID for the entries of a response:
// an identifier that must not collide, not a secret, so it comes from the
// runtime's fast generator rather than the operating system's. Gates and
// turns, whose ids a caller may present to act on them, keep
// crypto/rand's.
func newEntryID() string {
	var u uuid.UUID
	binary.LittleEndian.PutUint64(u[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(u[8:], rand.Uint64())
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u.String()
}
