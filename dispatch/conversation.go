package dispatch

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ebbforge/adk/forge"
)

// ConversationStore is a [Store] that also groups turns into conversations
// (threads), records how each turn ended and keeps the approval gates a
// suspended turn waits on. [MemoryStore] implements it in memory and
// store/sqlitestore in a database file. Implementations must be safe for
// concurrent use.
//
// A conversation runs one turn at a time: StartTurn marks a turn of the
// same conversation still running or suspended as [TurnInterrupted] (the
// process that ran it stopped, or the caller moved on), so its unfinished
// tool calls are reported as interrupted by [LoadHistory].
//
// A store that can load the timelines of many turns at once (a database in
// one query) may also have a method
//
//	LoadTurns(ctx context.Context, turnIDs []string) ([][]Entry, error)
//
// returning them in the order given; [LoadHistory] uses it when present.
type ConversationStore interface {
	Store
	// StartTurn appends turnID to conversation convID (creating it) as
	// [TurnRunning]. Starting a turn already in the conversation again
	// (a resumed turn) keeps its place and sets it running.
	StartTurn(ctx context.Context, convID, turnID string) error
	// SetTurnState records a turn's state and replaces its open approval
	// gates: those a [TurnSuspended] turn waits on, or a [TurnRunning] one
	// waits on in its process (nil when it waits on none).
	SetTurnState(ctx context.Context, turnID string, state TurnState, gates []OpenGate) error
	// Turn returns what is known of a turn; ok is false for an unknown one.
	Turn(ctx context.Context, turnID string) (info TurnInfo, ok bool, err error)
	// Turns returns the conversation's turns, oldest first (nil for an
	// unknown conversation).
	Turns(ctx context.Context, convID string) ([]TurnInfo, error)
	// Conversations lists the conversations, most recently started turn first.
	Conversations(ctx context.Context) ([]ConversationInfo, error)
	// DeleteConversation removes a conversation, its turns and their
	// entries; it reports whether the conversation existed.
	DeleteConversation(ctx context.Context, convID string) (bool, error)
}

// TurnState is the lifecycle state of a stored turn.
type TurnState string

// Turn states.
const (
	TurnRunning     TurnState = "running"
	TurnCompleted   TurnState = "completed"
	TurnFailed      TurnState = "failed"
	TurnAborted     TurnState = "aborted"
	TurnSuspended   TurnState = "suspended"   // waiting on approval gates (see TurnInfo.Gates)
	TurnInterrupted TurnState = "interrupted" // it stopped without ending (the process died)
)

// Valid reports whether s is one of the known states.
func (s TurnState) Valid() bool {
	switch s {
	case TurnRunning, TurnCompleted, TurnFailed, TurnAborted, TurnSuspended, TurnInterrupted:
		return true
	}
	return false
}

// TurnInfo describes a stored turn.
type TurnInfo struct {
	ID             string
	ConversationID string
	State          TurnState
	Gates          []OpenGate // the open approval gates of a suspended or waiting turn
	StartedAt      time.Time
	UpdatedAt      time.Time
}

// ConversationInfo describes a stored conversation.
type ConversationInfo struct {
	ID        string
	Turns     int
	CreatedAt time.Time
	UpdatedAt time.Time // when its last turn started or changed state
}

// OpenGate is a persisted approval gate: what a human must answer before a
// suspended turn can resume. Payload is the gate's payload as JSON (for a
// tool approval, the call's id, tool, arguments and checksum).
type OpenGate struct {
	ID         string          `json:"id"`
	Reason     string          `json:"reason"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Payload    json.RawMessage `json:"payload"`
	CreatedAt  time.Time       `json:"createdAt"`
}

// HistoryOptions limit what [LoadHistory] returns. The zero value returns
// every turn.
type HistoryOptions struct {
	// LastTurns keeps only the newest turns; 0 means all.
	LastTurns int
	// MaxTokens keeps the newest whole turns whose entries' estimated
	// tokens (under Encoding) fit; the newest turn is always kept, so the
	// model sees at least the latest exchange. 0 means no limit.
	MaxTokens int
	// Encoding estimates tokens for MaxTokens; "" means forge.EncodingO200K.
	Encoding forge.Encoding
	// Before excludes this turn and every later one (to load the history
	// of a turn being resumed); "" means none is excluded.
	Before string
}

// interruptedText is the error result given by LoadHistory to a tool call
// of an ended turn that never completed.
const interruptedText = "Tool call interrupted: the turn stopped before the call finished, so it has no result."

// LoadHistory returns the entries of a conversation's turns, oldest first,
// limited by opts, ready to pass as the next turn's history. Whole turns are
// kept or dropped together, so a tool call never loses the response that
// asked for it. A tool call of an ended turn that never completed (the
// process stopped mid-call, or the turn was abandoned while waiting for
// approval) comes back completed with an error result saying it was interrupted, so
// every call the model sees has an answer; the stored entry is unchanged.
func LoadHistory(ctx context.Context, s ConversationStore, convID string, opts HistoryOptions) ([]Entry, error) {
	turns, err := s.Turns(ctx, convID)
	if err != nil {
		return nil, ErrStore.With(err, "dispatch: load history of %q", convID)
	}
	for i, t := range turns {
		if opts.Before != "" && t.ID == opts.Before {
			turns = turns[:i]
			break
		}
	}
	if opts.LastTurns > 0 && len(turns) > opts.LastTurns {
		turns = turns[len(turns)-opts.LastTurns:]
	}
	enc := opts.Encoding
	if enc == "" {
		enc = forge.EncodingO200K
	}
	loaded, err := loadTurns(ctx, s, turns)
	if err != nil {
		return nil, err
	}
	budget := opts.MaxTokens
	first := 0
	for i := len(turns) - 1; i >= 0; i-- {
		es := loaded[i]
		if opts.MaxTokens > 0 {
			n := estimateEntries(es, enc)
			if i < len(turns)-1 && n > budget {
				first = i + 1
				break
			}
			budget -= n
		}
		loaded[i] = markInterrupted(es, turns[i].State)
	}
	var out []Entry
	for _, es := range loaded[first:] {
		out = append(out, es...)
	}
	return out, nil
}

// turnsLoader is the optional method of a ConversationStore that loads
// the timelines of many turns at once (see ConversationStore).
type turnsLoader interface {
	LoadTurns(ctx context.Context, turnIDs []string) ([][]Entry, error)
}

// loadTurns loads the timelines of turns, in one call when s can.
func loadTurns(ctx context.Context, s ConversationStore, turns []TurnInfo) ([][]Entry, error) {
	ids := make([]string, len(turns))
	for i, t := range turns {
		ids[i] = t.ID
	}
	if tl, ok := s.(turnsLoader); ok {
		out, err := tl.LoadTurns(ctx, ids)
		if err != nil {
			return nil, ErrStore.With(err, "dispatch: load turns")
		}
		if len(out) != len(ids) {
			return nil, ErrStore.With(nil, "dispatch: load turns: %d timelines for %d turns", len(out), len(ids))
		}
		return out, nil
	}
	out := make([][]Entry, len(ids))
	for i, id := range ids {
		es, err := s.Load(ctx, id)
		if err != nil {
			return nil, ErrStore.With(err, "dispatch: load turn %q", id)
		}
		out[i] = es
	}
	return out, nil
}

// markInterrupted completes the unfinished tool calls of an ended turn with
// an interruptedText error result.
func markInterrupted(es []Entry, state TurnState) []Entry {
	if state == TurnRunning || state == TurnSuspended {
		return es
	}
	for i, e := range es {
		c := e.ToolCall
		if c == nil || c.IsComplete() {
			continue
		}
		raw := c.Raw()
		raw.Results = forge.NewTokenizable(interruptedText)
		raw.IsComplete, raw.IsError = true, true
		raw.CompletedAt = c.UpdatedAt()
		if done, err := forge.NewToolCall(raw); err == nil {
			es[i].ToolCall = done
		}
	}
	return es
}

// estimateEntries estimates the tokens a model would read for es.
func estimateEntries(es []Entry, enc forge.Encoding) int {
	n := 0
	add := func(t *forge.Tokenizable) {
		if t == nil {
			return
		}
		if k, err := t.EstimateTokens(enc); err == nil {
			n += k
		}
	}
	for _, e := range es {
		switch {
		case e.Message != nil:
			add(e.Message.Content())
		case e.Thought != nil:
			add(e.Thought.Content())
		case e.ToolCall != nil:
			add(forge.NewTokenizable(string(e.ToolCall.Args())))
			if t := e.ToolCall.Results().Text(); t != nil {
				add(t)
			}
		}
	}
	return n
}
