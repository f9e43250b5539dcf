package spooledartifact

import (
	"context"
	"strconv"
	"strings"

	"github.com/ebbforge/adk/forge"
)

// HandleOptions tune RenderHandle; nil means defaults.
type HandleOptions struct {
	// Encoding, when set, adds the artifact's estimated token count under
	// it to the metadata.
	Encoding forge.Encoding
	// Estimators count tokens (custom estimators over the built-ins); nil
	// means forge's built-ins.
	Estimators *forge.Estimators
}

// Fixed sentences of the handle text.
const (
	handleIntro   = "This result was too large to place here, so it was stored as an artifact."
	handleInvite  = "Read it with these tools from your tool list, passing callId=%s: "
	handleClosing = "It stays available for this turn; its content is shown nowhere else, so do not assume you have seen it."
)

// RenderHandle renders the text the model sees in place of a non-inline
// spooled result: what the artifact is (kind, byte length, line count, and
// with opts.Encoding its estimated tokens) and which artifact_* tools read
// it (its kind's EffectiveMethods, by name only: their descriptions are in
// the request's tool list). The call's results must be exactly one
// artifact. This is the one canonical renderer: adapters use it as is.
//
// Layout (lines joined with '\n'):
//
//	<intro sentence>
//
//	Artifact metadata:
//	- callId: <id>
//	- kind: <kind name>
//	- byteLength: <n>
//	- lineCount: <n>
//	- estimatedTokens: <n> (encoding: <enc>)    (only with opts.Encoding)
//
//	Read it with these tools from your tool list, passing callId=<id>: <tool>, <tool>, ….
//
//	<closing sentence>
func RenderHandle(ctx context.Context, call *forge.ToolCall, opts *HandleOptions) (string, error) {
	var o HandleOptions
	if opts != nil {
		o = *opts
	}
	if call == nil {
		return "", forge.ErrInvalidInitialToolCallValue.With(nil, "spooledartifact: RenderHandle of a nil tool call")
	}
	arts := call.Results().Artifacts()
	if len(arts) != 1 || arts[0] == nil {
		return "", forge.ErrInvalidInitialToolCallValue.With(nil,
			"spooledartifact: tool call %s does not hold exactly one artifact; only such results render as a handle", call.ID())
	}
	a := arts[0]
	size, err := a.ByteLength(ctx)
	if err != nil {
		return "", err
	}
	lines, err := a.LineCount(ctx)
	if err != nil {
		return "", err
	}
	kind := a.Kind()
	if k := kindOf(a); k != nil {
		kind = k.Name()
	}
	var b strings.Builder
	b.WriteString(handleIntro)
	b.WriteString("\n\nArtifact metadata:\n- callId: ")
	b.WriteString(call.ID())
	b.WriteString("\n- kind: ")
	b.WriteString(kind)
	b.WriteString("\n- byteLength: ")
	b.WriteString(strconv.FormatInt(size, 10))
	b.WriteString("\n- lineCount: ")
	b.WriteString(strconv.Itoa(lines))
	if o.Encoding != "" {
		n, err := estimateArtifact(ctx, a, o)
		if err != nil {
			return "", err
		}
		b.WriteString("\n- estimatedTokens: ")
		b.WriteString(strconv.Itoa(n))
		b.WriteString(" (encoding: ")
		b.WriteString(string(o.Encoding))
		b.WriteString(")")
	}
	b.WriteString("\n\n")
	b.WriteString(strings.Replace(handleInvite, "%s", call.ID(), 1))
	// The tools' descriptions are already in the request's tool list:
	// naming them keeps a handle a few dozen tokens.
	for i, m := range EffectiveMethods(kindOf(a)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Tool)
	}
	b.WriteString(".")
	b.WriteString("\n\n")
	b.WriteString(handleClosing)
	return b.String(), nil
}

func estimateArtifact(ctx context.Context, a forge.Artifact, o HandleOptions) (int, error) {
	type withEstimators interface {
		EstimateTokensWith(ctx context.Context, est *forge.Estimators, enc forge.Encoding) (int, error)
	}
	if e, ok := a.(withEstimators); ok {
		return e.EstimateTokensWith(ctx, o.Estimators, o.Encoding)
	}
	if e, ok := a.(interface {
		EstimateTokens(ctx context.Context, enc forge.Encoding) (int, error)
	}); ok {
		return e.EstimateTokens(ctx, o.Encoding)
	}
	return 0, forge.ErrUnknownTokenEncoding.With(nil, "spooledartifact: artifact %q of kind %s cannot estimate tokens", a.ID(), a.Kind())
}

// HandleAbove returns a hook that turns a call whose single artifact is
// larger than threshold bytes into a handle (Inline false), as a changed
// copy; every other call comes back unchanged. Results stay inline by
// default: install it (as tool-call middleware in the turn runner) to opt in.
func HandleAbove(threshold int64) func(ctx context.Context, call *forge.ToolCall) (*forge.ToolCall, error) {
	return func(ctx context.Context, call *forge.ToolCall) (*forge.ToolCall, error) {
		if call == nil || !call.Inline() {
			return call, nil
		}
		arts := call.Results().Artifacts()
		if len(arts) != 1 || arts[0] == nil {
			return call, nil
		}
		size, err := arts[0].ByteLength(ctx)
		if err != nil {
			return nil, err
		}
		if size <= threshold {
			return call, nil
		}
		raw := call.Raw()
		inline := false
		raw.Inline = &inline
		return forge.NewToolCall(raw)
	}
}
