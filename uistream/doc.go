// Package uistream streams turns to web UIs over Server-Sent Events in the
// two protocols existing frontends speak: the Vercel AI SDK UI message
// stream (NewAISDK; React/Vue/Svelte useChat) and AG-UI (NewAGUI;
// CopilotKit and other @ag-ui/client consumers).
//
// Each is one net/http handler. A POST starts a turn on the runner and
// streams its events as they happen, one flush per event, with heartbeat
// comments while the turn is quiet. Errors arrive as protocol events (AI
// SDK error, AG-UI RUN_ERROR). A tool listed in the runner's
// RequireApproval stops the response at its approval (AI SDK
// tool-approval-request, AG-UI RUN_FINISHED with an interrupt outcome);
// the follow-up POST that carries the user's answer (useChat's approval
// response, AG-UI resume) settles the gate and streams the rest of the
// same turn. A client that disconnects cancels its turn (or, with
// Options.ResumeWindow, may reconnect with Last-Event-ID and get the frames
// it missed from a bounded per-turn replay buffer).
//
// # Security
//
// The handlers are meant to sit in your service behind your own
// authentication middleware. Options.Authorize is consulted on every
// request and names the caller; a turn belongs to the caller that started
// it, and approvals and reconnects of anybody else's turn are refused
// exactly like unknown ones. Turn and approval ids are random. Bodies are
// size-limited (Options.MaxBodyBytes) and malformed ones answer 400 with a
// clear message before any turn starts. No CORS headers are sent unless
// Options.AllowedOrigins lists the origin. Every string the handlers write
// escapes <, > and &, and a page renders tool output as text.
package uistream
