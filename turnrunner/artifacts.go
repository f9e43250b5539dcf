package turnrunner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
)

// ResultHook may replace a tool call after it settles and before it is
// emitted and stored (e.g. spooledartifact.HandleAbove(n) turns large
// results into handles). Returning nil keeps the call; an error becomes the
// call's error result. A settled call is stored even when the turn is
// cancelled, so hooks get the turn's ctx without its cancellation: they
// must not fail a finished result because the user stopped the turn.
type ResultHook func(ctx context.Context, call *forge.ToolCall) (*forge.ToolCall, error)

// spool stores a handler's text, bytes or stream under id, the call's spool
// key (its id, or a derived one: see TurnContext.spoolKey), in the turn's
// scope of the spool store, and wraps it in the tool's kind.
func (r *Runner) spool(ctx context.Context, store spooledartifact.Store, id string, kind forge.ArtifactKind, out forge.Output) (forge.Artifact, error) {
	var src io.Reader
	switch out.Kind() {
	case forge.OutputText:
		src = strings.NewReader(out.Text())
	case forge.OutputBytes:
		src = bytes.NewReader(out.Bytes())
	default:
		src = out.Reader()
	}
	return spooledartifact.Spool(ctx, store, id, kind, src)
}

// forgeArtifactTools drops last iteration's ephemeral tools and registers
// artifact_* tools over the turn's tool calls into the dispatch registry.
// The forged set is rebuilt only when the queryable calls changed.
func (r *Runner) forgeArtifactTools(tc *TurnContext, dc *dispatch.Context) error {
	reg := dc.Tools()
	reg.PruneEphemeral()
	calls := spooledartifact.ArtifactCalls(dc.ToolCalls())
	var key strings.Builder
	for _, c := range calls {
		key.WriteString(c.ID())
		key.WriteByte(0)
		key.WriteString(c.Results().Artifacts()[0].Kind())
		key.WriteByte(0)
	}
	if tc.forged == nil || tc.forgedKey != key.String() {
		forged, err := spooledartifact.ForgeTools(calls, nil)
		if err != nil {
			return err
		}
		tc.forged, tc.forgedKey = forged.All(), key.String()
	}
	for _, t := range tc.forged {
		if err := reg.Register(t, true); err != nil {
			return err
		}
	}
	return nil
}

// ArtifactExpiredText is what RenderResult gives for an artifact whose
// bytes are no longer stored (cleaned up or swept, see
// Options.CleanupArtifacts): the model learns the output is gone instead of
// the turn failing.
const ArtifactExpiredText = "(artifact expired: the output of this tool call is no longer stored; call the tool again if you need it)"

// expired reports whether err means an artifact's bytes are gone.
func expired(err error) bool {
	return err != nil && (errors.Is(err, spooledartifact.ErrNotFound) || errors.Is(err, fs.ErrNotExist))
}

// RenderResult is the text a model sees for call's results: text as is; a
// spooled artifact's body when the call is inline, else the handle from
// spooledartifact.RenderHandle; several artifacts' bodies joined by a blank
// line; media as one descriptive line each (adapters that send media
// natively render those themselves). An artifact whose bytes are gone
// renders as [ArtifactExpiredText], not as an error.
func RenderResult(ctx context.Context, call *forge.ToolCall) (string, error) {
	res := call.Results()
	switch res.Kind() {
	case forge.ResultText:
		return res.Text().Render(nil)
	case forge.ResultArtifacts:
		arts := res.Artifacts()
		if len(arts) == 1 && !call.Inline() {
			s, err := spooledartifact.RenderHandle(ctx, call, nil)
			if expired(err) {
				return ArtifactExpiredText, nil
			}
			return s, err
		}
		var b strings.Builder
		for i, a := range arts {
			if i > 0 {
				b.WriteString("\n\n")
			}
			body, err := artifactBody(ctx, a)
			if expired(err) {
				body, err = []byte(ArtifactExpiredText), nil
			}
			if err != nil {
				return "", err
			}
			b.Write(body)
		}
		return b.String(), nil
	case forge.ResultMedia:
		var b strings.Builder
		for i, m := range res.Media() {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("[" + string(m.Kind()) + " " + m.MIMEType())
			if m.Filename() != "" {
				b.WriteString(" " + m.Filename())
			}
			b.WriteString("]")
		}
		return b.String(), nil
	}
	return "", nil
}

func artifactBody(ctx context.Context, a forge.Artifact) ([]byte, error) {
	if ra, ok := a.(interface {
		ReadAll(ctx context.Context) ([]byte, error)
	}); ok {
		return ra.ReadAll(ctx)
	}
	return []byte("[artifact " + a.ID() + " of kind " + a.Kind() + "]"), nil
}

// previewResult is a short preview of a call's result for loop-guard texts:
// the first lines of an artifact, never its handle.
func previewResult(ctx context.Context, call *forge.ToolCall, n int) string {
	res := call.Results()
	if res.Kind() == forge.ResultArtifacts && len(res.Artifacts()) > 0 {
		if h, ok := res.Artifacts()[0].(interface {
			Head(ctx context.Context, n int) ([]string, error)
		}); ok {
			lines, err := h.Head(ctx, 5)
			if err == nil {
				return quote(preview(strings.Join(lines, "\n"), n))
			}
		}
	}
	s, err := RenderResult(ctx, call)
	if err != nil {
		return "(unavailable)"
	}
	return quote(preview(s, n))
}

func quote(s string) string { return "\"" + s + "\"" }
