package uistream

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/turnrunner"
)

// msg is a text message of a request's conversation.
type msg struct{ role, text string }

// turnInput is a new turn's input: the prompt, and the earlier user and
// assistant text as history the model sees (other roles are skipped).
func turnInput(prompt string, history []msg) (turnrunner.Input, error) {
	in := turnrunner.Input{Prompt: prompt}
	for i, m := range history {
		var role dispatch.Role
		switch m.role {
		case "user":
			role = dispatch.RoleUser
		case "assistant":
			role = dispatch.RoleAssistant
		default:
			continue
		}
		if m.text == "" {
			continue
		}
		dm, err := dispatch.NewMessage(dispatch.RawMessage{ID: uuid.NewString(), Role: role, Content: forge.NewTokenizable(m.text)})
		if err != nil {
			return in, fmt.Errorf("messages[%d]: %v", i, err)
		}
		in.History = append(in.History, dispatch.Entry{Message: dm})
	}
	return in, nil
}

// wire is ev's JSON wire form (turnrunner.MarshalEvent). Events always
// marshal; the fallback keeps a stream going if one ever does not.
func wire(ev turnrunner.Event) []byte {
	b, err := turnrunner.MarshalEvent(context.Background(), ev)
	if err != nil {
		return []byte(`{"type":"unknown"}`)
	}
	return b
}

// resultOf is the renderable result object of a tool call's wire form.
func resultOf(wireForm []byte) []byte {
	r := gjson.GetBytes(wireForm, "result")
	if !r.Exists() {
		return []byte(`{"kind":"text","text":""}`)
	}
	return []byte(r.Raw)
}

// resultText is the text a UI shows for a tool call's result: the text,
// the handle, or one line per media.
func resultText(wireForm []byte) string {
	r := gjson.GetBytes(wireForm, "result")
	switch r.Get("kind").String() {
	case "handle":
		return r.Get("handle").String()
	case "media":
		var lines []string
		for _, m := range r.Get("media").Array() {
			lines = append(lines, "["+m.Get("kind").String()+" "+m.Get("mimeType").String()+" "+m.Get("filename").String()+"]")
		}
		return strings.Join(lines, "\n")
	}
	return r.Get("text").String()
}

// appendJSON appends raw JSON, escaping <, >, & and U+2028/U+2029 as
// appendString does (they can only occur inside strings, where the escape
// means the same); text that is not valid JSON goes in as a string.
func appendJSON(b []byte, raw []byte) []byte {
	if len(raw) == 0 || !json.Valid(raw) {
		return appendString(b, string(raw))
	}
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '<' || c == '>' || c == '&':
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(b, raw[start:]...)
}

// jsonString is the string at path of a wire form, or fallback.
func jsonString(wireForm []byte, path, fallback string) string {
	if r := gjson.GetBytes(wireForm, path); r.Exists() {
		return r.String()
	}
	return fallback
}
