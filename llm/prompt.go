package llm

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
)

// CodeUnsupportedMedia is the code of [ErrUnsupportedMedia].
const CodeUnsupportedMedia forge.Code = "E_UNSUPPORTED_MEDIA_MODALITY"

// ErrUnsupportedMedia: a media item of a modality the provider cannot take,
// under [MediaRefuse].
var ErrUnsupportedMedia = &forge.Error{Code: CodeUnsupportedMedia, Status: 415}

// MediaPolicy is what a [Renderer] does with a media item of a modality the
// provider cannot take.
type MediaPolicy uint8

// Media policies.
const (
	// MediaRefuse fails the render with ErrUnsupportedMedia (the default):
	// the model must not silently miss what the user sent.
	MediaRefuse MediaPolicy = iota
	// MediaFallbackStash renders the media's derived text (its transcript,
	// else caption, else description; see media.StashTranscript) in an
	// envelope of that text's own trust tier, and a description when it
	// has none.
	MediaFallbackStash
	// MediaDescribe renders "[media: <filename>, <mime type>, <size>]".
	MediaDescribe
)

// Block is one piece of rendered content: text, or a media item the adapter
// encodes in its provider's wire form (exactly one is set).
type Block struct {
	Text  string
	Media *media.Media
}

// JoinText concatenates the text of blocks (media blocks are skipped).
func JoinText(blocks []Block) string {
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// Renderer renders what every adapter shows a model the same way: the
// system prompt with its standing instructions, message text, tool results
// in nonce-keyed envelopes, and media by each item's trust tier. A zero
// Renderer is ready to use: no media taken natively, unsupported media
// refused, nonces keyed by a per-process random key.
//
// # Envelopes
//
// Content an adversary could influence is wrapped in tags whose name holds
// a nonce, so that a closing tag written inside the content cannot end the
// envelope:
//
//	<untrusted_content_9f2c47d1a0b3e865 kind="tool-result" tool="fetch">
//	…tool output…
//	</untrusted_content_9f2c47d1a0b3e865>
//
// The nonce is an HMAC of the call's id and checksum under Key, so it is
// stable across requests (prompt caches keep hitting) but cannot be derived
// from anything the model or a tool sees: a checksum is computable from a
// call's tool and arguments, which is why it is not the nonce. A body that
// holds the envelope's own closing tag anyway has it neutralised. Output of
// tools marked trusted (forge.ToolOptions.Trusted) goes in
// trusted_content_<nonce> envelopes; artifact handles are always untrusted;
// media get the envelope of their own trust tier (first-party is trusted),
// never their tool's.
type Renderer struct {
	// Key keys the envelope nonces; nil means a random key made once per
	// process. Set it to keep nonces (and prompt caches) stable across
	// restarts; keep it secret.
	Key []byte
	// Accepts lists the media kinds the provider takes natively; any other
	// follows Unsupported.
	Accepts []media.Kind
	// Unsupported is the policy for media the provider cannot take.
	Unsupported MediaPolicy
}

var processKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand.Read never fails
	return k
})

// nonce is the envelope nonce of the content identified by parts.
func (r *Renderer) nonce(parts ...string) string {
	key := r.Key
	if len(key) == 0 {
		key = processKey()
	}
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// System is the system prompt: the base prompt first, as is, then the
// non-empty standing instructions joined by blank lines in a
// <system_instructions kind="developer-rules"> block, the only place that
// tag is ever emitted (see [NeutraliseSystemTags]).
func (r *Renderer) System(base string, instructions []string) string {
	var rules []string
	for _, s := range instructions {
		if s = strings.TrimSpace(s); s != "" {
			rules = append(rules, s)
		}
	}
	if len(rules) == 0 {
		return base
	}
	var b strings.Builder
	if base != "" {
		b.WriteString(base)
		b.WriteString("\n\n")
	}
	b.WriteString("<system_instructions kind=\"developer-rules\">\n")
	b.WriteString(strings.Join(rules, "\n\n"))
	b.WriteString("\n</system_instructions>")
	return b.String()
}

// NeutraliseSystemTags escapes every "<system_instructions" and
// "</system_instructions" in s (case-insensitively) as "&lt;…", so that
// text from a user, a model or a tool cannot pose as the developer rules.
func NeutraliseSystemTags(s string) string {
	const tag = "system_instructions"
	lower := strings.ToLower(s)
	if !strings.Contains(lower, tag) {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == '/' {
			j++
		}
		if strings.HasPrefix(lower[j:], tag) {
			b.WriteString(s[last:i])
			b.WriteString("&lt;")
			last = i + 1
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// Message renders a message: its text with system tags neutralised, then
// each attachment (after its media marker line) by its own trust tier.
func (r *Renderer) Message(ctx context.Context, m *dispatch.Message) ([]Block, error) {
	var out []Block
	if m.Content() != nil {
		text, err := m.Content().Render(nil)
		if err != nil {
			return nil, err
		}
		out = append(out, Block{Text: NeutraliseSystemTags(text)})
	}
	for _, a := range m.Attachments() {
		bl, err := r.media(ctx, a, "message-media", r.nonce("message", m.ID(), a.ID()))
		if err != nil {
			return nil, err
		}
		out = append(out, bl...)
	}
	return out, nil
}

// ToolResult renders call's results for the model: text and inline
// artifacts in a tool-result envelope (trusted only when trusted is true),
// a handle always in an untrusted artifact-handle envelope, media each by
// its own trust tier. An artifact whose bytes are gone renders as
// [ArtifactExpiredText].
func (r *Renderer) ToolResult(ctx context.Context, call *forge.ToolCall, trusted bool) ([]Block, error) {
	nonce := r.nonce("tool", call.ID(), call.Checksum())
	res := call.Results()
	if len(res.Media()) > 0 {
		var out []Block
		for i, m := range res.Media() {
			bl, err := r.media(ctx, m, "tool-result-media", r.nonce("tool", call.ID(), call.Checksum(), strconv.Itoa(i)))
			if err != nil {
				return nil, err
			}
			out = append(out, bl...)
		}
		return out, nil
	}
	body, err := RenderResult(ctx, call)
	if err != nil {
		return nil, err
	}
	kind := "tool-result"
	if len(res.Artifacts()) == 1 && !call.Inline() {
		kind, trusted = "artifact-handle", false
	}
	return []Block{{Text: envelope(trusted, nonce, kind, [][2]string{{"tool", call.Tool()}}, body)}}, nil
}

// media renders one media item: natively (marker, envelope, media block)
// when the provider takes its kind, else under the Unsupported policy.
func (r *Renderer) media(ctx context.Context, m *media.Media, kind, nonce string) ([]Block, error) {
	trusted := m.TrustTier() == media.FirstParty
	attrs := [][2]string{{"modality", string(m.Kind())}, {"mime", m.MIMEType()}}
	marker := m.Marker() + "\n"
	for _, k := range r.Accepts {
		if k == m.Kind() {
			open, closing := tags(trusted, nonce, kind, attrs)
			return []Block{{Text: marker + open + "\n"}, {Media: m}, {Text: "\n" + closing}}, nil
		}
	}
	switch r.Unsupported {
	case MediaFallbackStash:
		for _, key := range []string{media.StashTranscript, media.StashCaption, media.StashDescription} {
			if e, ok := m.Stash(key); ok && e.Value != "" {
				tier := e.TrustTier.Floor(m.TrustTier())
				return []Block{{Text: marker + envelope(tier == media.FirstParty, nonce, "media-fallback",
					append(attrs, [2]string{"source", key}), e.Value)}}, nil
			}
		}
		fallthrough
	case MediaDescribe:
		return []Block{{Text: marker + describe(m)}}, nil
	}
	return nil, ErrUnsupportedMedia.With(nil, "llm: the provider cannot take %s media (%s %s)", m.Kind(), m.ID(), m.MIMEType())
}

func describe(m *media.Media) string {
	size := "unknown size"
	if n := m.Size(); n >= 0 {
		size = strconv.FormatInt(n, 10) + " bytes"
	}
	name := m.Filename()
	if name == "" {
		name = m.ID()
	}
	return "[media: " + attrEscape(name) + ", " + attrEscape(m.MIMEType()) + ", " + size + "]"
}

// envelope wraps body in the nonce-keyed tags; the body's own copies of the
// closing tag and of system tags are neutralised.
func envelope(trusted bool, nonce, kind string, attrs [][2]string, body string) string {
	open, closing := tags(trusted, nonce, kind, attrs)
	body = NeutraliseSystemTags(body)
	body = strings.ReplaceAll(body, closing[:len(closing)-1], "&lt;"+closing[1:len(closing)-1])
	return open + "\n" + body + "\n" + closing
}

// tags returns the opening and closing tags of an envelope.
func tags(trusted bool, nonce, kind string, attrs [][2]string) (open, closing string) {
	name := "untrusted_content_" + nonce
	if trusted {
		name = "trusted_content_" + nonce
		kind = "trusted-" + kind
	}
	var b strings.Builder
	b.WriteString("<" + name + ` kind="` + kind + `"`)
	for _, a := range attrs {
		if a[1] != "" {
			b.WriteString(" " + a[0] + `="` + attrEscape(a[1]) + `"`)
		}
	}
	b.WriteString(">")
	return b.String(), "</" + name + ">"
}

var attrReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", " ", "\r", " ")

func attrEscape(s string) string { return attrReplacer.Replace(s) }
