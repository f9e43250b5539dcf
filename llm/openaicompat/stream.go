package openaicompat

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ebbforge/adk/llm"
)

// Replay tags of the opaque data this adapter stores with a response.
const (
	// ReplayReasoningDetails tags OpenRouter's reasoning_details, sent back
	// on the assistant turn that produced them.
	ReplayReasoningDetails = "openrouter.reasoning_details"
	// ReplayExtraContent tags a tool call's extra_content (Gemini's thought
	// signature), echoed on the call when it is replayed.
	ReplayExtraContent = "openai.extra_content"
)

// decoder turns Chat Completions chunks (or one whole completion) into
// parts. It assembles tool-call deltas by index, then by id: a delta
// without an index, or with an index already used by a call with another
// id, starts a new call; a call with neither gets a generated id. Parts
// are appended to out; the caller drains it after each chunk.
type decoder struct {
	out   []llm.Part
	calls []callSlot
	// finish is the last finish_reason seen ("" before one).
	finish   string
	usage    llm.Usage
	hasUsage bool
	details  detailsAcc
	done     bool // [DONE] seen
	newID    func(n int) string
}

type callSlot struct {
	wireIndex int // -1 when the server sent none
	id        string
	generated bool // id was made up here; a real one may still match
}

// errorBody is an error object inside a stream or a response body.
type errorBody struct {
	status int
	typ    string
	code   string
	msg    string
}

// chunk decodes one data payload. It returns the error object the payload
// carries, if any, or a syntax error.
func (d *decoder) chunk(data string) (*errorBody, error) {
	if data == "[DONE]" {
		d.done = true
		return nil, nil
	}
	if !gjson.Valid(data) {
		return nil, errMalformed
	}
	var eb *errorBody
	gjson.Parse(data).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "error":
			if v.Type != gjson.Null {
				eb = parseError(v)
			}
		case "choices":
			v.ForEach(func(_, c gjson.Result) bool {
				d.choice(c)
				return false // only the first choice: the adapter asks for one
			})
		case "usage":
			if v.IsObject() {
				d.usage, d.hasUsage = parseUsage(v), true
			}
		}
		return true
	})
	return eb, nil
}

func parseError(v gjson.Result) *errorBody {
	eb := &errorBody{}
	if v.Type == gjson.String {
		eb.msg = v.Str
		return eb
	}
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "message":
			eb.msg = v.String()
		case "type":
			eb.typ = v.String()
		case "code":
			eb.code = v.String()
		case "status_code", "status":
			if v.Type == gjson.Number {
				eb.status = int(v.Int())
			}
		}
		return true
	})
	return eb
}

func parseUsage(v gjson.Result) llm.Usage {
	var u llm.Usage
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "prompt_tokens":
			u.InputTokens = int(v.Int())
		case "completion_tokens":
			u.OutputTokens = int(v.Int())
		case "total_tokens":
			u.TotalTokens = int(v.Int())
		case "prompt_tokens_details":
			u.CachedTokens = int(v.Get("cached_tokens").Int())
		case "completion_tokens_details":
			u.ReasoningTokens = int(v.Get("reasoning_tokens").Int())
		}
		return true
	})
	return u
}

func (d *decoder) choice(c gjson.Result) {
	c.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "delta", "message":
			d.delta(v)
		case "finish_reason":
			if v.Type == gjson.String {
				d.finish = v.Str
			}
		}
		return true
	})
}

func (d *decoder) delta(v gjson.Result) {
	var reasoning, content string
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content", "refusal":
			if v.Type == gjson.String {
				content = v.Str
			}
		case "reasoning_content":
			if v.Type == gjson.String && v.Str != "" {
				reasoning = v.Str
			}
		case "reasoning":
			if v.Type == gjson.String && reasoning == "" {
				reasoning = v.Str
			}
		case "reasoning_details":
			v.ForEach(func(_, e gjson.Result) bool {
				d.details.add(e)
				return true
			})
		case "tool_calls":
			if content != "" { // text before the calls keeps its place
				d.out = append(d.out, llm.Part{Kind: llm.PartText, Text: content})
				content = ""
			}
			if reasoning != "" {
				d.out = append(d.out, llm.Part{Kind: llm.PartThought, Text: reasoning})
				reasoning = ""
			}
			v.ForEach(func(_, tc gjson.Result) bool {
				d.toolDelta(tc)
				return true
			})
		}
		return true
	})
	if reasoning != "" {
		d.out = append(d.out, llm.Part{Kind: llm.PartThought, Text: reasoning})
	}
	if content != "" {
		d.out = append(d.out, llm.Part{Kind: llm.PartText, Text: content})
	}
}

func (d *decoder) toolDelta(tc gjson.Result) {
	wire, hasIndex := -1, false
	var id, name, args string
	var extra gjson.Result
	tc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "index":
			wire, hasIndex = int(v.Int()), true
		case "id":
			id = v.String()
		case "function":
			v.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "name":
					name = v.String()
				case "arguments":
					if v.Type == gjson.String {
						args = v.Str
					} else if v.IsObject() { // a server that sends an object
						args = v.Raw
					}
				}
				return true
			})
		case "extra_content":
			if v.IsObject() {
				extra = v
			}
		}
		return true
	})
	slot := d.slotFor(hasIndex, wire, id, name)
	isNew := slot < 0
	if isNew {
		s := callSlot{wireIndex: wire, id: id}
		if id == "" {
			s.id, s.generated = d.newID(len(d.calls)), true
		}
		d.calls = append(d.calls, s)
		slot = len(d.calls) - 1
	} else if id != "" && d.calls[slot].generated {
		d.calls[slot].id, d.calls[slot].generated = id, false
	}
	if !isNew && args == "" && name == "" && !extra.Exists() {
		return // an empty fragment: nothing to say
	}
	p := llm.Part{Kind: llm.PartToolCall, Index: slot, Name: name, Text: args}
	if isNew {
		p.ID = d.calls[slot].id
	}
	if extra.Exists() {
		p.Payload, p.ReplayCompatibility = json.RawMessage(extra.Raw), ReplayExtraContent
	}
	d.out = append(d.out, p)
}

// slotFor is the call a delta continues, or -1 for a new call.
func (d *decoder) slotFor(hasIndex bool, wire int, id, name string) int {
	switch {
	case hasIndex:
		for i := len(d.calls) - 1; i >= 0; i-- {
			if c := d.calls[i]; c.wireIndex == wire {
				if id == "" || c.generated || c.id == id {
					return i
				}
				return -1 // the index is reused for another call
			}
		}
	case id != "":
		for i := len(d.calls) - 1; i >= 0; i-- {
			if d.calls[i].id == id {
				return i
			}
		}
	case name == "" && len(d.calls) > 0:
		return len(d.calls) - 1 // a bare fragment continues the latest call
	}
	return -1
}

// end appends the response's closing parts: OpenRouter's reasoning
// details, the last usage and the stop reason. Whether tools were called
// is decided from the assembled calls, not from finish_reason alone.
func (d *decoder) end() {
	if raw := d.details.json(); raw != nil {
		d.out = append(d.out, llm.Part{Kind: llm.PartThought, Payload: raw, ReplayCompatibility: ReplayReasoningDetails})
	}
	if d.hasUsage {
		d.out = append(d.out, llm.Part{Kind: llm.PartUsage, Usage: d.usage})
	}
	d.out = append(d.out, llm.Part{Kind: llm.PartStop, StopReason: stopReason(d.finish, len(d.calls) > 0)})
}

func stopReason(finish string, called bool) llm.StopReason {
	switch finish {
	case "length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopContentFilter
	}
	if called {
		return llm.StopToolUse
	}
	switch finish {
	case "stop", "", "end_turn", "eos":
		return llm.StopEnd
	}
	return llm.StopOther
}

// detailsAcc gathers OpenRouter reasoning_details deltas by their index:
// text fields are joined, the others (type, format, signature, id) take
// the last value, so the assembled list can be sent back as received.
type detailsAcc struct {
	entries []detail
}

type detail struct {
	index  int64
	keys   []string
	text   map[string]*strings.Builder
	values map[string]string // raw JSON
}

func (a *detailsAcc) add(e gjson.Result) {
	if !e.IsObject() {
		return
	}
	idx := int64(len(a.entries))
	if i := e.Get("index"); i.Exists() {
		idx = i.Int()
	}
	var d *detail
	for i := range a.entries {
		if a.entries[i].index == idx {
			d = &a.entries[i]
		}
	}
	if d == nil {
		a.entries = append(a.entries, detail{index: idx, text: map[string]*strings.Builder{}, values: map[string]string{}})
		d = &a.entries[len(a.entries)-1]
	}
	e.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		_, seenText := d.text[key]
		_, seenValue := d.values[key]
		if !seenText && !seenValue {
			d.keys = append(d.keys, key)
		}
		if (key == "text" || key == "summary" || key == "data") && v.Type == gjson.String {
			b := d.text[key]
			if b == nil {
				b = &strings.Builder{}
				d.text[key] = b
			}
			b.WriteString(v.Str)
			return true
		}
		if v.Type != gjson.Null || !seenValue {
			d.values[key] = v.Raw
		}
		return true
	})
}

// json is the assembled list, or nil when none arrived.
func (a *detailsAcc) json() json.RawMessage {
	if len(a.entries) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range a.entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for j, k := range d.keys {
			if j > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			if t, ok := d.text[k]; ok {
				q, _ := json.Marshal(t.String())
				b.Write(q)
			} else {
				b.WriteString(d.values[k])
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return json.RawMessage(b.String())
}
