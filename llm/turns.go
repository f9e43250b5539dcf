package llm

import (
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

// TurnKind tells what a [Turn] holds.
type TurnKind uint8

// Turn kinds.
const (
	// TurnUser: consecutive user messages.
	TurnUser TurnKind = iota + 1
	// TurnAssistant: one model response's thoughts, messages and tool
	// calls, in the order it streamed them.
	TurnAssistant
	// TurnToolResults: the results of the tool calls of the assistant turn
	// just before, in call order (the same entries: a stored call holds its
	// results).
	TurnToolResults
)

// String names the kind.
func (k TurnKind) String() string {
	switch k {
	case TurnUser:
		return "user"
	case TurnAssistant:
		return "assistant"
	case TurnToolResults:
		return "toolResults"
	}
	return "none"
}

// Turn is one provider-neutral turn of a conversation: what an adapter
// sends as one message (or, for tool results, as the messages a provider
// wants for them).
type Turn struct {
	Kind TurnKind
	// ResponseID is the model response an assistant turn came from; "" for
	// other turns and for history stored without response ids.
	ResponseID string
	// Entries are the turn's timeline entries, in order.
	Entries []dispatch.Entry
}

// ToolCalls returns the turn's tool calls in order.
func (t Turn) ToolCalls() []*forge.ToolCall {
	var out []*forge.ToolCall
	for _, e := range t.Entries {
		if e.ToolCall != nil {
			out = append(out, e.ToolCall)
		}
	}
	return out
}

// Turns groups a request's timeline into turns, the one grouping every
// adapter shares:
//
//   - entries carrying the same ResponseID, adjacent in the timeline, are
//     one assistant turn in their order, so two consecutive tool-only
//     responses stay two turns and a thought between two tool calls keeps
//     its place;
//   - every assistant turn with tool calls is followed by a tool-results
//     turn holding those calls;
//   - consecutive user messages are one user turn;
//   - assistant entries without a ResponseID (history stored without ids,
//     entries middleware added) are grouped as a response stores them —
//     thoughts, then a message, then tool calls — so a thought or message
//     after a tool call starts a new assistant turn.
//
// Entries holding no value are skipped. The entries are shared, not copied.
func Turns(timeline []dispatch.Entry) []Turn {
	var turns []Turn
	// open is the index in turns of the assistant turn still accepting
	// entries, or -1.
	open := -1
	closeAssistant := func() {
		if open < 0 {
			return
		}
		if calls := turns[open].toolEntries(); len(calls) > 0 {
			turns = append(turns, Turn{Kind: TurnToolResults, Entries: calls})
		}
		open = -1
	}
	for _, e := range timeline {
		switch e.Kind() {
		case dispatch.EntryNone:
			continue
		case dispatch.EntryMessage:
			if e.Message.Role() == dispatch.RoleUser {
				closeAssistant()
				if n := len(turns); n > 0 && turns[n-1].Kind == TurnUser {
					turns[n-1].Entries = append(turns[n-1].Entries, e)
				} else {
					turns = append(turns, Turn{Kind: TurnUser, Entries: []dispatch.Entry{e}})
				}
				continue
			}
		}
		if open >= 0 && continues(turns[open], e) {
			turns[open].Entries = append(turns[open].Entries, e)
			continue
		}
		closeAssistant()
		turns = append(turns, Turn{Kind: TurnAssistant, ResponseID: e.ResponseID, Entries: []dispatch.Entry{e}})
		open = len(turns) - 1
	}
	closeAssistant()
	return turns
}

// continues reports whether assistant entry e belongs to the open turn t.
func continues(t Turn, e dispatch.Entry) bool {
	if t.ResponseID != "" || e.ResponseID != "" {
		return t.ResponseID == e.ResponseID
	}
	// Without ids: a response stores thoughts, a message, then tool calls.
	last := t.Entries[len(t.Entries)-1]
	switch e.Kind() {
	case dispatch.EntryThought:
		return last.Thought != nil
	case dispatch.EntryMessage:
		return last.Thought != nil
	}
	return true
}

func (t Turn) toolEntries() []dispatch.Entry {
	var out []dispatch.Entry
	for _, e := range t.Entries {
		if e.ToolCall != nil {
			out = append(out, e)
		}
	}
	return out
}
