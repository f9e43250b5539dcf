package uistream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ebbforge/adk/turnrunner"
)

// Options configures a Handler. The zero value (or nil) is usable: every
// caller is one anonymous owner, 1 MiB bodies, a heartbeat every 15s, 1024
// frames of replay, approvals wait 10 minutes, no CORS.
type Options struct {
	// Authorize is consulted on every request before anything else and
	// names the caller; a turn belongs to the caller that started it, and
	// only the same caller may answer its approvals or reconnect to it. An
	// error answers 401 with the error's text. Nil means every caller is
	// the same anonymous owner: use it only behind your own authentication
	// middleware, which should then put the user on the request's context
	// for Authorize to read.
	Authorize func(r *http.Request) (owner string, err error)
	// Prepare, when set, adjusts a new turn's input (system prompt, stash,
	// history from your own store) before it starts; an error answers 400
	// with its text and no turn starts.
	Prepare func(r *http.Request, in *turnrunner.Input) error
	// MaxBodyBytes bounds a request body; 0 means 1 MiB. A larger body
	// answers 413.
	MaxBodyBytes int64
	// Heartbeat is the interval of SSE comments that keep idle
	// connections open; 0 means 15s, negative disables them.
	Heartbeat time.Duration
	// ReplayFrames bounds the frames kept per turn for reconnection with
	// Last-Event-ID; 0 means 1024 (and never more than 8 MiB of them).
	// Older frames are gone.
	ReplayFrames int
	// ApprovalTimeout is how long a turn waits at an approval for the
	// follow-up request before it is cancelled; 0 means 10 minutes.
	ApprovalTimeout time.Duration
	// ResumeWindow is how long a turn survives its client's disconnect
	// (and its replay buffer the turn's end) for a reconnect with
	// Last-Event-ID. 0 means a disconnect cancels the turn at once.
	ResumeWindow time.Duration
	// AllowedOrigins enables CORS for exactly these origins ("*" for any).
	// Empty means no CORS headers at all.
	AllowedOrigins []string
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = 15 * time.Second
	}
	if c.ReplayFrames <= 0 {
		c.ReplayFrames = 1024
	}
	if c.ApprovalTimeout <= 0 {
		c.ApprovalTimeout = 10 * time.Minute
	}
	return c
}

// Handler serves one UI stream protocol over SSE: a POST starts a turn (or
// answers its approvals) and streams it; a GET with Last-Event-ID
// reconnects. Safe for concurrent use. Call Close on shutdown to cancel
// the turns waiting for approvals or reconnects.
type Handler struct {
	runner *turnrunner.Runner
	opts   Options
	proto  protocol

	mu     sync.Mutex
	turns  map[string]*turn // by turn id
	gates  map[string]*turn // open approvals by gate id
	closed bool
}

// NewAISDK returns the handler of the Vercel AI SDK UI message stream
// (protocol v1): it accepts the body useChat's default transport posts and
// streams UI message chunks.
func NewAISDK(r *turnrunner.Runner, o *Options) *Handler { return newHandler(r, o, aiSDK{}) }

// NewAGUI returns the handler of the AG-UI protocol: it accepts a
// RunAgentInput and streams AG-UI events.
func NewAGUI(r *turnrunner.Runner, o *Options) *Handler { return newHandler(r, o, agUI{}) }

func newHandler(r *turnrunner.Runner, o *Options, p protocol) *Handler {
	return &Handler{runner: r, opts: o.withDefaults(), proto: p,
		turns: map[string]*turn{}, gates: map[string]*turn{}}
}

// protocol is what differs between the two wire protocols.
type protocol interface {
	// parse reads a POST body into a new turn's input or gate answers.
	parse(body []byte) (request, error)
	encoder(turnID string, req request) encoder
	headers(h http.Header)
}

// request is a parsed POST.
type request struct {
	in      turnrunner.Input
	answers []answer // answers to open approvals; then in is unused
	thread  string   // AG-UI thread and run ids, echoed back
	run     string
}

type answer struct {
	gateID   string
	approved bool
	reason   string
}

// encoder turns events into protocol chunks; emit copies what it is given.
// It keeps the protocol state of one turn (open text and reasoning parts)
// across the requests that stream the turn.
type encoder interface {
	// open starts a response: a new turn, or one resumed after approval.
	open(emit func([]byte), req request, resumed bool)
	event(emit func([]byte), ev turnrunner.Event)
	// interrupt asks for an approval and ends the response.
	interrupt(emit func([]byte), gate *turnrunner.Gate, a turnrunner.ToolApproval)
	// denied notes a tool call whose approval the user refused.
	denied(toolCallID string)
}

// frame is one SSE event as written, with its sequence number.
type frame struct {
	seq  int64
	data []byte // "id: ...\ndata: ...\n\n"
}

// turn is a turn the handler streams, possibly over several requests.
type turn struct {
	id, owner string
	events    <-chan turnrunner.Event
	cancel    context.CancelFunc
	enc       encoder

	mu       sync.Mutex
	attached bool          // a request is streaming it (the only reader of events)
	kick     chan struct{} // closed to make the streaming request let go (a reconnect takes over)
	released chan struct{} // closed when the streaming request has let go
	dead     bool          // cancelled and drained, or forgotten
	finished bool          // the channel closed: the stream is complete
	ring     []frame       // the replay buffer: ring[head:] are kept
	head     int
	ringSize int // bytes kept
	next     int64
	gateID   string // the approval waiting for a follow-up request
	timer    *time.Timer
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.cors(w, r) {
		return
	}
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET, POST")
		httpError(w, http.StatusMethodNotAllowed, "method %s not allowed: POST a request, or GET with Last-Event-ID to reconnect", r.Method)
		return
	}
	owner := ""
	if h.opts.Authorize != nil {
		o, err := h.opts.Authorize(r)
		if err != nil {
			httpError(w, http.StatusUnauthorized, "%v", err)
			return
		}
		owner = o
	}
	if r.Method == http.MethodGet {
		h.reconnect(w, r, owner)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			httpError(w, http.StatusRequestEntityTooLarge, "request body over %d bytes", h.opts.MaxBodyBytes)
			return
		}
		httpError(w, http.StatusBadRequest, "reading the request body: %v", err)
		return
	}
	req, err := h.proto.parse(body)
	if err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	if len(req.answers) > 0 {
		h.answer(w, r, owner, req)
		return
	}
	h.start(w, r, owner, req)
}

func httpError(w http.ResponseWriter, status int, format string, args ...any) {
	http.Error(w, "uistream: "+fmt.Sprintf(format, args...), status)
}

// cors writes the CORS headers of an allowed origin and answers a
// preflight; it reports whether to go on.
func (h *Handler) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	allowed := origin != "" && (slices.Contains(h.opts.AllowedOrigins, origin) || slices.Contains(h.opts.AllowedOrigins, "*"))
	if allowed {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
		w.Header().Set("Access-Control-Expose-Headers", "x-vercel-ai-ui-message-stream")
	}
	if r.Method != http.MethodOptions {
		return true
	}
	if !allowed {
		httpError(w, http.StatusForbidden, "cross-origin requests are not enabled for %q", origin)
		return false
	}
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
	w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Last-Event-ID")
	w.WriteHeader(http.StatusNoContent)
	return false
}

// start runs a new turn and streams it.
func (h *Handler) start(w http.ResponseWriter, r *http.Request, owner string, req request) {
	// The turn id is random (never the client's thread or chat id): it
	// keys reconnects, so it must not be guessable.
	req.in.TurnID = uuid.NewString()
	if h.opts.Prepare != nil {
		if err := h.opts.Prepare(r, &req.in); err != nil {
			httpError(w, http.StatusBadRequest, "%v", err)
			return
		}
	}
	// The turn outlives the request only while it waits for an approval
	// or a reconnect; the handler cancels it otherwise.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	events, err := h.runner.Run(ctx, req.in)
	if err != nil {
		cancel()
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	t := &turn{id: req.in.TurnID, owner: owner, events: events, cancel: cancel,
		enc: h.proto.encoder(req.in.TurnID, req)}
	t.attach()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.kill(t)
		httpError(w, http.StatusServiceUnavailable, "the handler is closed")
		return
	}
	h.turns[t.id] = t
	h.mu.Unlock()
	h.stream(w, r, t, func(emit func([]byte)) { t.enc.open(emit, req, false) }, -1)
}

// answer settles the approvals a follow-up request answers and streams the
// rest of their turn.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, owner string, req request) {
	h.mu.Lock()
	var t *turn
	for _, a := range req.answers {
		x := h.gates[a.gateID]
		// An approval of another caller's turn is reported exactly like
		// one that does not exist.
		if x == nil || x.owner != owner {
			h.mu.Unlock()
			httpError(w, http.StatusNotFound, "no open approval %q (answered already, expired, or not yours)", a.gateID)
			return
		}
		if t != nil && x != t {
			h.mu.Unlock()
			httpError(w, http.StatusBadRequest, "the answers belong to different turns")
			return
		}
		t = x
	}
	t.mu.Lock()
	if t.attached || t.dead {
		t.mu.Unlock()
		h.mu.Unlock()
		httpError(w, http.StatusConflict, "the turn is being streamed to another request")
		return
	}
	if t.timer != nil && !t.timer.Stop() {
		// The approval timed out just now: the turn is being cancelled.
		t.mu.Unlock()
		h.mu.Unlock()
		httpError(w, http.StatusNotFound, "no open approval %q (expired)", req.answers[0].gateID)
		return
	}
	t.attach()
	t.gateID = ""
	for _, a := range req.answers {
		delete(h.gates, a.gateID)
	}
	t.mu.Unlock()
	h.mu.Unlock()

	for _, a := range req.answers {
		g, ok := h.runner.Gate(t.id, a.gateID)
		if !ok {
			continue // settled meanwhile (its own timeout): the stream says how
		}
		if a.approved {
			_ = g.Resolve(true)
			continue
		}
		if ta, ok := g.Payload().(turnrunner.ToolApproval); ok {
			t.enc.denied(ta.ToolCallID)
		}
		if a.reason != "" {
			g.Reject(errors.New(a.reason))
		} else {
			_ = g.Resolve(false)
		}
	}
	h.stream(w, r, t, func(emit func([]byte)) { t.enc.open(emit, req, true) }, -1)
}

// reconnect replays a turn's frames after Last-Event-ID and streams the
// rest, if the turn is still running and nobody else streams it.
func (h *Handler) reconnect(w http.ResponseWriter, r *http.Request, owner string) {
	last := r.Header.Get("Last-Event-ID")
	id, seqText, ok := strings.Cut(last, ":")
	seq, err := strconv.ParseInt(seqText, 10, 64)
	if !ok || err != nil || seq < 0 {
		httpError(w, http.StatusBadRequest, "reconnect needs a Last-Event-ID header of this stream (turn:sequence), got %q", last)
		return
	}
	h.mu.Lock()
	t := h.turns[id]
	if t == nil || t.owner != owner {
		h.mu.Unlock()
		httpError(w, http.StatusNotFound, "no stream %q to resume (ended, expired, or not yours)", id)
		return
	}
	t.mu.Lock()
	if t.attached && !t.dead {
		// The old request has not noticed its client is gone: it lets go
		// of the turn (without cancelling it) and this one takes over.
		kick, released := t.kick, t.released
		t.mu.Unlock()
		h.mu.Unlock()
		select {
		case <-kick:
		default:
			close(kick)
		}
		select {
		case <-released:
		case <-r.Context().Done():
			return
		}
		h.mu.Lock()
		t.mu.Lock()
	}
	if t.attached || t.dead || (t.timer != nil && !t.timer.Stop()) {
		t.mu.Unlock()
		h.mu.Unlock()
		httpError(w, http.StatusConflict, "stream %q cannot be resumed now", id)
		return
	}
	t.attach()
	t.mu.Unlock()
	h.mu.Unlock()
	h.stream(w, r, t, nil, seq)
}

// stream writes the response: the frames after replayFrom (if >= 0), then
// open's frames, then the turn's events as they come, until the turn ends,
// waits for an approval, or the client goes away.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, t *turn, open func(func([]byte)), replayFrom int64) {
	flusher, _ := w.(http.Flusher)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	hdr.Set("X-Content-Type-Options", "nosniff")
	h.proto.headers(hdr)
	w.WriteHeader(http.StatusOK)

	var werr error
	write := func(b []byte) {
		if werr == nil {
			_, werr = w.Write(b)
		}
	}
	var pending [][]byte // frames of one event, written then flushed together
	emit := func(data []byte) { pending = append(pending, t.record(data, h.opts.ReplayFrames)) }
	flush := func() {
		for _, f := range pending {
			write(f)
		}
		pending = pending[:0]
		if flusher != nil && werr == nil {
			flusher.Flush()
		}
	}

	if replayFrom >= 0 {
		for _, f := range t.replay(replayFrom) {
			write(f)
		}
		flush()
	}
	if open != nil {
		open(emit)
		flush()
	}
	var beat <-chan time.Time
	if h.opts.Heartbeat > 0 {
		tk := time.NewTicker(h.opts.Heartbeat)
		defer tk.Stop()
		beat = tk.C
	}
	for {
		if t.isFinished() || t.isParked() {
			// A reconnect to a turn that ended or waits for an approval:
			// the replay was all there is.
			h.detach(t, false)
			return
		}
		select {
		case ev, ok := <-t.events:
			if !ok {
				t.finish()
				emitDone(t, emit)
				flush()
				h.detach(t, false)
				return
			}
			if g, ok := ev.(turnrunner.GateOpen); ok && g.Gate != nil {
				if a, ok := g.Gate.Payload().(turnrunner.ToolApproval); ok {
					t.enc.interrupt(emit, g.Gate, a)
					h.park(t, g.Gate.ID())
					flush()
					h.detach(t, false)
					return
				}
			}
			t.enc.event(emit, ev)
			flush()
		case <-beat:
			write([]byte(": ping\n\n"))
			flush()
		case <-t.kick:
			t.release()
			return
		case <-r.Context().Done():
			werr = r.Context().Err()
		}
		if werr != nil {
			h.detach(t, true)
			return
		}
	}
}

// emitDone writes the protocol's end-of-stream marker, if it has one.
func emitDone(t *turn, emit func([]byte)) {
	if d, ok := t.enc.(interface{ done(func([]byte)) }); ok {
		d.done(emit)
	}
}

// record stores data as the turn's next frame and returns its SSE text.
func (t *turn) record(data []byte, limit int) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	seq := t.next
	t.next++
	f := make([]byte, 0, len(t.id)+len(data)+32)
	f = append(f, "id: "...)
	f = append(f, t.id...)
	f = append(f, ':')
	f = strconv.AppendInt(f, seq, 10)
	f = append(f, "\ndata: "...)
	f = append(f, data...)
	f = append(f, '\n', '\n')
	t.ring = append(t.ring, frame{seq: seq, data: f})
	t.ringSize += len(f)
	for len(t.ring)-t.head > 1 && (len(t.ring)-t.head > limit || t.ringSize > maxReplayBytes) {
		t.ringSize -= len(t.ring[t.head].data)
		t.ring[t.head] = frame{}
		t.head++
	}
	if t.head > 64 && t.head > len(t.ring)/2 {
		t.ring = append(t.ring[:0], t.ring[t.head:]...)
		t.head = 0
	}
	return f
}

// maxReplayBytes bounds a turn's replay buffer in bytes, whatever
// Options.ReplayFrames allows.
const maxReplayBytes = 8 << 20

// replay returns the kept frames after seq.
func (t *turn) replay(seq int64) [][]byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out [][]byte
	for _, f := range t.ring[t.head:] {
		if f.seq > seq {
			out = append(out, f.data)
		}
	}
	return out
}

func (t *turn) isFinished() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.finished
}

// attach marks the turn streamed by a request (t.mu held, or t unshared).
func (t *turn) attach() {
	t.attached = true
	t.kick, t.released = make(chan struct{}), make(chan struct{})
}

// release lets go of the turn for a request taking it over.
func (t *turn) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.attached = false
	close(t.released)
}

func (t *turn) isParked() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gateID != ""
}

func (t *turn) finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.finished = true
}

// park records the turn's open approval so a follow-up request finds it.
func (h *Handler) park(t *turn, gateID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gates[gateID] = t
	t.mu.Lock()
	t.gateID = gateID
	t.mu.Unlock()
}

// detach ends a request's hold on its turn and decides the turn's fate:
// forgotten when finished (after ResumeWindow), cancelled after
// ApprovalTimeout while it waits for an approval, kept for ResumeWindow
// after a disconnect, or cancelled at once.
func (h *Handler) detach(t *turn, disconnected bool) {
	t.mu.Lock()
	t.attached = false
	close(t.released)
	finished, parked := t.finished, t.gateID != ""
	var wait time.Duration
	switch {
	case parked:
		wait = h.opts.ApprovalTimeout
	case finished || disconnected:
		wait = h.opts.ResumeWindow
	}
	if wait > 0 {
		t.timer = time.AfterFunc(wait, func() { h.expire(t) })
	}
	t.mu.Unlock()
	if wait <= 0 {
		// In the request's own goroutine: the turn has ended when the
		// request returns.
		h.expire(t)
	}
}

// expire forgets t and cancels it, draining its events until the runner
// closes the channel (it does so promptly once cancelled).
func (h *Handler) expire(t *turn) {
	h.mu.Lock()
	t.mu.Lock()
	if t.attached || t.dead {
		t.mu.Unlock()
		h.mu.Unlock()
		return
	}
	t.dead = true
	if h.turns[t.id] == t {
		delete(h.turns, t.id)
	}
	if t.gateID != "" {
		delete(h.gates, t.gateID)
	}
	t.mu.Unlock()
	h.mu.Unlock()
	h.kill(t)
}

func (h *Handler) kill(t *turn) {
	t.cancel()
	for range t.events {
	}
}

// Close cancels every turn: those no request is streaming (waiting for an
// approval or a reconnect) end before Close returns; those being streamed
// end their responses with a cancelled turn. New requests answer 503
// afterwards.
func (h *Handler) Close() {
	h.mu.Lock()
	h.closed = true
	var idle []*turn
	for _, t := range h.turns {
		t.mu.Lock()
		switch {
		case t.attached:
			t.cancel()
		case !t.dead && (t.timer == nil || t.timer.Stop()):
			idle = append(idle, t)
		}
		t.mu.Unlock()
	}
	h.mu.Unlock()
	for _, t := range idle {
		h.expire(t)
	}
}
