package gemini

import (
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/ebbforge/adk/llm"
)

// ReplaySignature tags the thought signatures this adapter keeps: a
// function call's Payload, or a thought's, is {"thoughtSignature": …}
// (with "onText": true when the signature came on a visible text part),
// sent back verbatim on the same part of the next request, as the API
// requires.
const ReplaySignature = "gemini"

// signature is the Payload of a part that carried a thought signature.
type signature struct {
	ThoughtSignature string `json:"thoughtSignature"`
	OnText           bool   `json:"onText,omitempty"`
}

// decoder turns generateContent responses (stream chunks, or one whole
// response) into parts. Function calls arrive whole; one without an id gets
// a generated one. Parts are appended to out; the caller drains it after
// each chunk.
type decoder struct {
	out       []llm.Part
	calls     int  // function calls so far
	thinks    int  // thought blocks so far
	inThought bool // the last part was a thought of block thinks-1, still open
	finish    string
	usage     llm.Usage
	hasUsage  bool
	blocked   string // promptFeedback.blockReason
	blockMsg  string
	newID     func() string
}

// chunk decodes one response. It returns the error object the response
// carries, if any, or a syntax error.
func (d *decoder) chunk(data string) (*errorBody, error) {
	if !gjson.Valid(data) {
		return nil, errMalformed
	}
	v := gjson.Parse(data)
	if v.IsArray() { // the JSON-array form of a stream or an error
		v = v.Get("0")
	}
	var eb *errorBody
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "error":
			if v.IsObject() {
				eb = parseError(v)
			}
		case "candidates":
			v.ForEach(func(_, c gjson.Result) bool {
				d.candidate(c)
				return false // only the first candidate: the adapter asks for one
			})
		case "usageMetadata":
			if v.IsObject() {
				d.usage, d.hasUsage = parseUsage(v), true
			}
		case "promptFeedback":
			if r := v.Get("blockReason"); r.Type == gjson.String && r.Str != "" {
				d.blocked, d.blockMsg = r.Str, v.Get("blockReasonMessage").String()
			}
		}
		return true
	})
	return eb, nil
}

func (d *decoder) candidate(c gjson.Result) {
	c.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			v.Get("parts").ForEach(func(_, p gjson.Result) bool {
				d.part(p)
				return true
			})
		case "finishReason":
			if v.Type == gjson.String && v.Str != "" {
				d.finish = v.Str
			}
		}
		return true
	})
}

// part decodes one content part: a function call, a thought, or text.
// A thought signature goes with its part: on a call into the call's
// payload, on a thought into the thought's (closing its block), on text
// into a thought block of its own marked onText. Other parts (inline
// data, executable code) are not the runner's to see.
func (d *decoder) part(p gjson.Result) {
	var text, sig string
	var hasText, thought bool
	var fc gjson.Result
	p.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "text":
			text, hasText = v.String(), true
		case "thought":
			thought = v.Bool()
		case "thoughtSignature":
			sig = v.String()
		case "functionCall":
			fc = v
		}
		return true
	})
	switch {
	case fc.IsObject():
		d.inThought = false
		args := "{}"
		if a := fc.Get("args"); a.IsObject() {
			args = a.Raw
		}
		id := fc.Get("id").String()
		if id == "" {
			id = d.newID()
		}
		call := llm.Part{Kind: llm.PartToolCall, Index: d.calls, ID: id, Name: fc.Get("name").String(), Text: args}
		if sig != "" {
			call.Payload, call.ReplayCompatibility = payload(signature{ThoughtSignature: sig}), ReplaySignature
		}
		d.calls++
		d.out = append(d.out, call)
	case thought:
		if !d.inThought {
			d.thinks, d.inThought = d.thinks+1, true
		}
		if text != "" {
			d.out = append(d.out, llm.Part{Kind: llm.PartThought, Index: d.thinks - 1, Text: text})
		}
		if sig != "" {
			d.out = append(d.out, llm.Part{Kind: llm.PartThought, Index: d.thinks - 1,
				Payload: payload(signature{ThoughtSignature: sig}), ReplayCompatibility: ReplaySignature})
			d.inThought = false
		}
	case hasText || sig != "":
		d.inThought = false
		if text != "" {
			d.out = append(d.out, llm.Part{Kind: llm.PartText, Text: text})
		}
		if sig != "" {
			d.thinks++
			d.out = append(d.out, llm.Part{Kind: llm.PartThought, Index: d.thinks - 1,
				Payload: payload(signature{ThoughtSignature: sig, OnText: true}), ReplayCompatibility: ReplaySignature})
		}
	}
}

func payload(s signature) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// parseUsage reads usageMetadata. Output counts the thoughts too, as the
// other adapters' providers do; the total is the API's.
func parseUsage(v gjson.Result) llm.Usage {
	var u llm.Usage
	var candidates int
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "promptTokenCount", "toolUsePromptTokenCount":
			u.InputTokens += int(v.Int())
		case "candidatesTokenCount":
			candidates = int(v.Int())
		case "thoughtsTokenCount":
			u.ReasoningTokens = int(v.Int())
		case "cachedContentTokenCount":
			u.CachedTokens = int(v.Int())
		case "totalTokenCount":
			u.TotalTokens = int(v.Int())
		}
		return true
	})
	u.OutputTokens = candidates + u.ReasoningTokens
	if u.TotalTokens == 0 {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	return u
}

// end appends usage (the last report wins) and the stop reason.
func (d *decoder) end() {
	if d.hasUsage {
		d.out = append(d.out, llm.Part{Kind: llm.PartUsage, Usage: d.usage})
	}
	d.out = append(d.out, llm.Part{Kind: llm.PartStop, StopReason: stopReason(d.finish, d.calls > 0)})
}

// stopReason maps a finishReason. STOP comes with function calls too, so
// whether tools were called is decided from the calls.
func stopReason(r string, called bool) llm.StopReason {
	switch r {
	case "STOP":
		if called {
			return llm.StopToolUse
		}
		return llm.StopEnd
	case "MAX_TOKENS":
		return llm.StopMaxTokens
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return llm.StopContentFilter
	}
	// MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS,
	// LANGUAGE, OTHER and reasons added later.
	return llm.StopOther
}
