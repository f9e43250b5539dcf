package llm

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/spooledartifact"
)

// ArtifactExpiredText is what RenderResult gives for an artifact whose
// bytes are no longer stored (cleaned up or swept from the spool store):
// the model learns the output is gone instead of
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
//
// The text is safe for a model or a UI: invalid UTF-8 becomes U+FFFD and
// control characters other than tab and line feed (NUL, ESC, a lone
// carriage return) become visible symbols, by the rules of the kit's
// internal safetext package. The stored bytes stay as the tool wrote them,
// and the artifact_* tools still query them.
func RenderResult(ctx context.Context, call *forge.ToolCall) (string, error) {
	s, err := renderResult(ctx, call)
	return safetext.String(s), err
}

func renderResult(ctx context.Context, call *forge.ToolCall) (string, error) {
	res := call.Results()
	switch {
	case res.Text() != nil:
		return res.Text().Render(nil)
	case len(res.Artifacts()) > 0:
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
	case len(res.Media()) > 0:
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
