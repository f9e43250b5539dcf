package anthropic

import (
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/ebbforge/adk/llm"
)

// ReplayThinking tags thinking and redacted thinking blocks; their Payload
// is the block without its text ({"type":"thinking","signature":…} or
// {"type":"redacted_thinking","data":…}), replayed verbatim next to the
// thought's text.
const ReplayThinking = "anthropic.thinking"

// decoder turns Messages API events (or one whole message) into parts.
// Parts are appended to out; the caller drains it after each event.
type decoder struct {
	out    []llm.Part
	blocks []block // by the content block index of the response
	thinks int     // thought blocks so far
	calls  int     // tool_use blocks so far
	stop   string  // stop_reason once seen
	usage  usage
	done   bool // message_stop seen
}

type block struct {
	kind      string // text, thinking, redacted_thinking, tool_use; "" for others
	part      int    // thought or call index
	signature []byte
	started   bool
	closed    bool
}

type usage struct {
	in, out, cacheRead, cacheWrite int64
	seen                           bool
}

// errorBody is an error event or an HTTP error body.
type errorBody struct {
	typ, msg, requestID string
}

// event decodes one data payload.
func (d *decoder) event(data string) (*errorBody, error) {
	if !gjson.Valid(data) {
		return nil, errMalformed
	}
	var typ string
	var eb *errorBody
	var index int
	var cb, delta, msg, u gjson.Result
	gjson.Parse(data).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v.Str
		case "index":
			index = int(v.Int())
		case "content_block":
			cb = v
		case "delta":
			delta = v
		case "message":
			msg = v
		case "usage":
			u = v
		case "error":
			eb = parseError(v)
		case "request_id":
			if eb != nil {
				eb.requestID = v.Str
			}
		}
		return true
	})
	switch typ {
	case "message_start":
		d.usage.add(msg.Get("usage"))
	case "content_block_start":
		d.start(index, cb)
	case "content_block_delta":
		d.delta(index, delta)
	case "content_block_stop":
		d.close(index)
	case "message_delta":
		if r := delta.Get("stop_reason"); r.Type == gjson.String {
			d.stop = r.Str
		}
		d.usage.add(u)
	case "message_stop":
		d.done = true
	case "error":
		if eb == nil {
			eb = &errorBody{}
		}
		return eb, nil
	case "message": // a whole response
		d.message(gjson.Parse(data))
	}
	return nil, nil
}

func parseError(v gjson.Result) *errorBody {
	return &errorBody{typ: v.Get("type").String(), msg: v.Get("message").String()}
}

func (u *usage) add(v gjson.Result) {
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "input_tokens":
			u.in, u.seen = v.Int(), true
		case "output_tokens":
			u.out, u.seen = v.Int(), true
		case "cache_read_input_tokens":
			u.cacheRead = v.Int()
		case "cache_creation_input_tokens":
			u.cacheWrite = v.Int()
		}
		return true
	})
}

// llm reports input tokens with the cached ones included, as the other
// adapters do.
func (u usage) llm() llm.Usage {
	in := int(u.in + u.cacheRead + u.cacheWrite)
	return llm.Usage{InputTokens: in, OutputTokens: int(u.out), TotalTokens: in + int(u.out), CachedTokens: int(u.cacheRead)}
}

func (d *decoder) blockAt(index int) *block {
	for len(d.blocks) <= index {
		d.blocks = append(d.blocks, block{})
	}
	return &d.blocks[index]
}

func (d *decoder) start(index int, cb gjson.Result) {
	if index < 0 || index > 1<<16 {
		return
	}
	b := d.blockAt(index)
	b.kind, b.started = cb.Get("type").Str, true
	switch b.kind {
	case "text":
		if t := cb.Get("text").Str; t != "" {
			d.out = append(d.out, llm.Part{Kind: llm.PartText, Text: t})
		}
	case "thinking":
		b.part, d.thinks = d.thinks, d.thinks+1
		if t := cb.Get("thinking").Str; t != "" {
			d.out = append(d.out, llm.Part{Kind: llm.PartThought, Index: b.part, Text: t})
		}
		b.signature = append(b.signature[:0], cb.Get("signature").Str...)
	case "redacted_thinking":
		b.part, d.thinks = d.thinks, d.thinks+1
		payload, _ := json.Marshal(struct {
			Type string `json:"type"`
			Data string `json:"data"`
		}{"redacted_thinking", cb.Get("data").Str})
		d.out = append(d.out, llm.Part{Kind: llm.PartThought, Index: b.part, Payload: payload, ReplayCompatibility: ReplayThinking})
		b.closed = true
	case "tool_use":
		b.part, d.calls = d.calls, d.calls+1
		p := llm.Part{Kind: llm.PartToolCall, Index: b.part, ID: cb.Get("id").Str, Name: cb.Get("name").Str}
		// A stream starts with "input": {} and sends the input as deltas; a
		// whole message carries it here.
		if in := cb.Get("input"); in.IsObject() && in.Raw != "{}" && !isEmptyObject(in) {
			p.Text = in.Raw
		}
		d.out = append(d.out, p)
	default:
		b.kind = "" // server tools and future blocks are not the runner's to see
	}
}

func isEmptyObject(v gjson.Result) bool {
	empty := true
	v.ForEach(func(_, _ gjson.Result) bool { empty = false; return false })
	return empty
}

func (d *decoder) delta(index int, delta gjson.Result) {
	if index < 0 || index > 1<<16 {
		return
	}
	b := d.blockAt(index)
	var typ string
	var text string
	delta.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v.Str
		case "text", "thinking", "partial_json", "signature":
			text = v.Str
		}
		return true
	})
	if !b.started { // a stream picked up mid-block: text and thinking still count
		switch typ {
		case "text_delta":
			b.kind, b.started = "text", true
		case "thinking_delta":
			b.kind, b.started = "thinking", true
			b.part, d.thinks = d.thinks, d.thinks+1
		}
	}
	switch {
	case typ == "text_delta" && b.kind == "text":
		if text != "" {
			d.out = append(d.out, llm.Part{Kind: llm.PartText, Text: text})
		}
	case typ == "thinking_delta" && b.kind == "thinking":
		if text != "" {
			d.out = append(d.out, llm.Part{Kind: llm.PartThought, Index: b.part, Text: text})
		}
	case typ == "signature_delta" && b.kind == "thinking":
		b.signature = append(b.signature, text...)
	case typ == "input_json_delta" && b.kind == "tool_use":
		if text != "" {
			d.out = append(d.out, llm.Part{Kind: llm.PartToolCall, Index: b.part, Text: text})
		}
	}
}

// close ends a block: a thinking block's signature becomes its payload.
func (d *decoder) close(index int) {
	if index < 0 || index >= len(d.blocks) {
		return
	}
	b := &d.blocks[index]
	if b.closed {
		return
	}
	b.closed = true
	if b.kind == "thinking" {
		payload, _ := json.Marshal(struct {
			Type      string `json:"type"`
			Signature string `json:"signature"`
		}{"thinking", string(b.signature)})
		d.out = append(d.out, llm.Part{Kind: llm.PartThought, Index: b.part, Payload: payload, ReplayCompatibility: ReplayThinking})
	}
}

// message decodes a whole (non-streamed) response as if streamed.
func (d *decoder) message(v gjson.Result) {
	i := 0
	v.Get("content").ForEach(func(_, cb gjson.Result) bool {
		d.start(i, cb)
		d.close(i)
		i++
		return true
	})
	if r := v.Get("stop_reason"); r.Type == gjson.String {
		d.stop = r.Str
	}
	d.usage.add(v.Get("usage"))
	d.done = true
}

// end appends usage and the stop reason. A thinking block left open (the
// stream was cut) gets no signature and so is never replayed.
func (d *decoder) end() {
	if d.usage.seen {
		d.out = append(d.out, llm.Part{Kind: llm.PartUsage, Usage: d.usage.llm()})
	}
	d.out = append(d.out, llm.Part{Kind: llm.PartStop, StopReason: stopReason(d.stop, d.calls > 0)})
}

func stopReason(r string, called bool) llm.StopReason {
	switch r {
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopMaxTokens
	case "refusal":
		return llm.StopContentFilter
	case "tool_use":
		return llm.StopToolUse
	case "end_turn", "stop_sequence":
		if called {
			return llm.StopToolUse
		}
		return llm.StopEnd
	}
	return llm.StopOther
}
