package turnrunner

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/forgestate"
	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/llm"
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
		// SpoolString lets the default in-memory store keep the text
		// itself instead of a copy.
		return spooledartifact.SpoolString(ctx, store, id, kind, out.Text())
	case forge.OutputBytes:
		src = bytes.NewReader(out.Bytes())
	default:
		src = out.Reader()
	}
	return spooledartifact.Spool(ctx, store, id, kind, src)
}

// forgeArtifactTools drops last iteration's ephemeral tools and registers
// artifact_* tools over the turn's tool calls into the dispatch registry.
// The turn's Forger forges each tool once; new artifacts reach the tools
// already forged. When neither the tools nor the registry changed since
// they were registered, dropping and registering them again would give
// the same registry, so it is left as it is.
func (r *Runner) forgeArtifactTools(tc *TurnContext, dc *dispatch.Context) error {
	reg := dc.Tools()
	// The Forger keeps what it needs of calls, so the buffer is reused.
	tc.artCalls = drive.AppendToolCalls(dc, tc.artCalls[:0])
	if tc.forger == nil {
		if len(tc.artCalls) == 0 {
			// Nothing to query yet: no Forger, and no tools but
			// last iteration's ephemeral ones to drop.
			reg.PruneEphemeral()
			return nil
		}
		tc.forger = &spooledartifact.Forger{}
	}
	forged, err := tc.forger.Update(tc.artCalls)
	if err == nil && tc.artRegistered.same(reg, forged) {
		return nil
	}
	tc.artRegistered = artifactRegistration{}
	reg.PruneEphemeral()
	if err != nil {
		return err
	}
	for _, t := range forged {
		if err := reg.Register(t, true); err != nil {
			return err
		}
	}
	tc.artRegistered = artifactRegistration{reg: reg, changes: forgestate.Changes(reg), tools: forged}
	return nil
}

// artifactRegistration is the artifact tools last registered, the registry
// they went into, and its change count right after.
type artifactRegistration struct {
	reg     *forge.Registry
	changes uint64
	tools   []*forge.Tool
}

// same reports whether tools, as a Forger returns them, are those
// registered into reg, which has not changed since.
func (a artifactRegistration) same(reg *forge.Registry, tools []*forge.Tool) bool {
	return a.reg == reg && len(tools) > 0 && len(a.tools) == len(tools) && &a.tools[0] == &tools[0] &&
		forgestate.Changes(reg) == a.changes
}

// previewResult is a short preview of a call's result for loop-guard texts:
// the first lines of an artifact, never its handle.
func previewResult(ctx context.Context, call *forge.ToolCall, n int) string {
	res := call.Results()
	if len(res.Artifacts()) > 0 {
		if h, ok := res.Artifacts()[0].(interface {
			Head(ctx context.Context, n int) ([]string, error)
		}); ok {
			lines, err := h.Head(ctx, 5)
			if err == nil {
				return quote(preview(safetext.String(strings.Join(lines, "\n")), n))
			}
		}
	}
	s, err := llm.RenderResult(ctx, call)
	if err != nil {
		return "(unavailable)"
	}
	return quote(preview(s, n))
}

func quote(s string) string { return "\"" + s + "\"" }
