package dispatch

import (
	"container/list"
	"context"
	"slices"
	"sync"
	"time"
)

// Store persists a turn's timeline: its messages, thoughts and tool calls,
// in order. Implementations must be safe for concurrent use. Every mutation
// of a [Context] goes through its Store before the in-memory timeline
// changes, so a failing Store leaves the context untouched.
type Store interface {
	// Save inserts e at the end of the turn's timeline, or replaces in place
	// the entry of the same kind and id.
	Save(ctx context.Context, turnID string, e Entry) error
	// Load returns the turn's timeline in order (nil for an unknown turn).
	Load(ctx context.Context, turnID string) ([]Entry, error)
}

// Bounds of a [MemoryStore] whose fields are zero.
const (
	defaultMaxTurns      = 1000
	defaultMaxLooseTurns = 10       // of them, outside any conversation
	defaultMaxBytes      = 64 << 20 // estimated bytes
)

// MemoryStore is the in-memory [ConversationStore]. The zero value is ready
// to use; set the fields before first use. Safe for concurrent use.
//
// It is bounded by default, so a long-running service does not grow without
// limit: past MaxTurns turns or MaxBytes estimated bytes (the text of
// entries, tool-call arguments and the bytes of their artifacts), the
// turns written least recently are dropped, with their entries, from their
// conversations. Turns recorded as running or suspended (StartTurn,
// SetTurnState: the turn runner records every turn it runs, in a
// conversation or not) are never dropped; a turn only ever written with
// Save has no state and may be. A turn is
// also dropped after Retention, or with its conversation
// ([MemoryStore.DeleteConversation]).
// For history that must outlive the process or these bounds, use a durable
// store such as store/sqlitestore.
type MemoryStore struct {
	// MaxTurns caps the turns kept; < 0 means no cap. 0 means 1000, of
	// which at most 10 are outside any conversation: turns run without a
	// conversation id, which no later turn loads as history. Every turn
	// kept is memory the garbage collector walks on each cycle, so keeping
	// many costs every allocation of the process.
	MaxTurns int
	// MaxBytes caps the estimated bytes kept; 0 means 64 MiB, < 0 no cap.
	MaxBytes int64
	// Retention drops turns not written for longer (checked on writes);
	// 0 means no time limit.
	Retention time.Duration

	mu    sync.Mutex
	turns map[string]*memTurn
	convs map[string]*memConv
	lru   list.List // *memTurn, least recently written first
	bytes int64
	loose int // turns outside any conversation
}

// memTurn is one turn's entries with an index, so Save is O(1).
type memTurn struct {
	id      string
	entries []Entry
	pos     map[entryKey]int
	size    int64
	elem    *list.Element
	conv    string
	state   TurnState
	gates   []OpenGate
	started time.Time
	updated time.Time
}

type memConv struct {
	id      string
	turns   []string
	created time.Time
	updated time.Time
}

// NewMemoryStore returns an empty MemoryStore with the default bounds.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// turn returns the record of turnID, creating it; callers hold mu.
func (s *MemoryStore) turn(turnID string, now time.Time) *memTurn {
	if s.turns == nil {
		s.turns = make(map[string]*memTurn)
		s.convs = make(map[string]*memConv)
	}
	t := s.turns[turnID]
	if t == nil {
		t = &memTurn{id: turnID, pos: make(map[entryKey]int), started: now}
		t.elem = s.lru.PushBack(t)
		s.turns[turnID] = t
		s.loose++
	}
	t.updated = now
	s.lru.MoveToBack(t.elem)
	return t
}

// Save implements [Store].
func (s *MemoryStore) Save(ctx context.Context, turnID string, e Entry) error {
	k := e.Kind()
	if k == EntryNone {
		return ErrStore.With(nil, "dispatch: save: entry must hold exactly one value")
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turn(turnID, now)
	size := entrySize(e)
	key := entryKey{k, e.ID()}
	if i, ok := t.pos[key]; ok {
		s.grow(t, size-entrySize(t.entries[i]))
		t.entries[i] = e
	} else {
		t.pos[key] = len(t.entries)
		t.entries = append(t.entries, e)
		s.grow(t, size)
	}
	s.evict(t, now)
	return nil
}

func (s *MemoryStore) grow(t *memTurn, n int64) {
	t.size += n
	s.bytes += n
}

// evict applies Retention, MaxTurns and MaxBytes, sparing keep and every
// running or suspended turn; callers hold mu. When only the turns outside
// conversations are too many, it passes over the others to drop them.
func (s *MemoryStore) evict(keep *memTurn, now time.Time) {
	// The bound on loose turns is the zero value's: an explicit MaxTurns
	// bounds all turns alike.
	maxTurns, maxLoose, maxBytes := s.MaxTurns, 0, s.MaxBytes
	if maxTurns == 0 {
		maxTurns, maxLoose = defaultMaxTurns, defaultMaxLooseTurns
	}
	if maxBytes == 0 {
		maxBytes = defaultMaxBytes
	}
	over := func() bool {
		return (maxTurns > 0 && len(s.turns) > maxTurns) || (maxBytes > 0 && s.bytes > maxBytes)
	}
	for el := s.lru.Front(); el != nil; {
		t := el.Value.(*memTurn)
		el = el.Next()
		expired := s.Retention > 0 && now.Sub(t.updated) > s.Retention
		tooLoose := maxLoose > 0 && s.loose > maxLoose
		if !expired && !over() && !tooLoose {
			break
		}
		if t == keep || t.state == TurnRunning || t.state == TurnSuspended || !expired && !over() && t.conv != "" {
			continue
		}
		s.drop(t)
	}
}

// drop removes t and its place in its conversation; callers hold mu.
func (s *MemoryStore) drop(t *memTurn) {
	s.lru.Remove(t.elem)
	delete(s.turns, t.id)
	s.bytes -= t.size
	if t.conv == "" {
		s.loose--
	}
	if c := s.convs[t.conv]; c != nil {
		c.turns = slices.DeleteFunc(c.turns, func(id string) bool { return id == t.id })
		if len(c.turns) == 0 {
			delete(s.convs, c.id)
		}
	}
}

// Load implements [Store]; the slice is a copy.
func (s *MemoryStore) Load(ctx context.Context, turnID string) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turns[turnID]
	if t == nil {
		return nil, nil
	}
	return append([]Entry(nil), t.entries...), nil
}

// StartTurn implements [ConversationStore].
func (s *MemoryStore) StartTurn(ctx context.Context, convID, turnID string) error {
	if convID == "" || turnID == "" {
		return ErrStore.With(nil, "dispatch: start turn: conversation and turn ids are required")
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.turns[turnID]; t != nil && t.conv != "" && t.conv != convID {
		return ErrStore.With(nil, "dispatch: start turn %q: it belongs to conversation %q", turnID, t.conv)
	}
	t := s.turn(turnID, now)
	c := s.convs[convID]
	if c == nil {
		c = &memConv{id: convID, created: now}
		s.convs[convID] = c
	}
	c.updated = now
	if t.conv == "" {
		for _, id := range c.turns {
			if o := s.turns[id]; o != nil && (o.state == TurnRunning || o.state == TurnSuspended) {
				o.state, o.gates, o.updated = TurnInterrupted, nil, now
			}
		}
		t.conv = convID
		s.loose--
		c.turns = append(c.turns, turnID)
	}
	t.state, t.gates = TurnRunning, nil
	s.evict(t, now)
	return nil
}

// SetTurnState implements [ConversationStore].
func (s *MemoryStore) SetTurnState(ctx context.Context, turnID string, state TurnState, gates []OpenGate) error {
	if !state.Valid() {
		return ErrStore.With(nil, "dispatch: set turn state: unknown state %q", state)
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turns[turnID]
	if t == nil {
		return ErrTurnNotFound.With(nil, "dispatch: set turn state: no turn %q", turnID)
	}
	t.state, t.gates, t.updated = state, cloneGates(gates), now
	if c := s.convs[t.conv]; c != nil {
		c.updated = now
	}
	return nil
}

// Turn implements [ConversationStore].
func (s *MemoryStore) Turn(ctx context.Context, turnID string) (TurnInfo, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turns[turnID]
	if t == nil {
		return TurnInfo{}, false, nil
	}
	return t.info(), true, nil
}

func (t *memTurn) info() TurnInfo {
	st := t.state
	if st == "" {
		st = TurnRunning
	}
	return TurnInfo{ID: t.id, ConversationID: t.conv, State: st, Gates: cloneGates(t.gates),
		StartedAt: t.started, UpdatedAt: t.updated}
}

// Turns implements [ConversationStore].
func (s *MemoryStore) Turns(ctx context.Context, convID string) ([]TurnInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.convs[convID]
	if c == nil {
		return nil, nil
	}
	out := make([]TurnInfo, 0, len(c.turns))
	for _, id := range c.turns {
		out = append(out, s.turns[id].info())
	}
	return out, nil
}

// Conversations implements [ConversationStore].
func (s *MemoryStore) Conversations(ctx context.Context) ([]ConversationInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ConversationInfo, 0, len(s.convs))
	for _, c := range s.convs {
		out = append(out, ConversationInfo{ID: c.id, Turns: len(c.turns), CreatedAt: c.created, UpdatedAt: c.updated})
	}
	sortConversations(out)
	return out, nil
}

// DeleteConversation implements [ConversationStore].
func (s *MemoryStore) DeleteConversation(ctx context.Context, convID string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.convs[convID]
	if c == nil {
		return false, nil
	}
	for _, id := range slices.Clone(c.turns) {
		if t := s.turns[id]; t != nil {
			s.drop(t)
		}
	}
	delete(s.convs, convID)
	return true, nil
}

// sortConversations orders cs as Conversations returns them: most recently
// updated first, ties by id.
func sortConversations(cs []ConversationInfo) {
	slices.SortFunc(cs, func(a, b ConversationInfo) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
}

func cloneGates(gs []OpenGate) []OpenGate {
	if len(gs) == 0 {
		return nil
	}
	out := make([]OpenGate, len(gs))
	for i, g := range gs {
		g.Payload = append([]byte(nil), g.Payload...)
		out[i] = g
	}
	return out
}

// entrySize estimates the bytes an entry holds: its text, arguments,
// payloads and the bytes of its artifacts, plus a fixed overhead.
func entrySize(e Entry) int64 {
	const overhead = 256
	switch {
	case e.Message != nil:
		return overhead + int64(len(e.Message.Text())) + 128*int64(len(e.Message.attachments))
	case e.Thought != nil:
		return overhead + int64(len(e.Thought.Content().String())+len(e.Thought.payload))
	case e.ToolCall != nil:
		c := e.ToolCall
		n := overhead + int64(len(c.Args())+len(c.Payload()))
		r := c.Results()
		if t := r.Text(); t != nil {
			n += int64(len(t.String()))
		}
		for _, a := range r.Artifacts() {
			if b, err := a.ByteLength(context.Background()); err == nil {
				n += b
			}
		}
		return n + 128*int64(len(r.Media()))
	}
	return 0
}
