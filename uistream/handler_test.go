package uistream_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/turnrunner"
	"github.com/ebbforge/adk/uistream"
)

const chat = `{"id":"c","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"go"}]}]}`
const run = `{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":"go"}]}`

// countingModel counts model calls, so a test can prove no turn started.
func countingModel(calls *atomic.Int32, steps ...scripted.Step) llm.Model {
	i := 0
	return scripted.NewFunc(func(ctx context.Context, req *llm.Request) (scripted.Step, error) {
		calls.Add(1)
		if i >= len(steps) {
			return scripted.Say("ok"), nil
		}
		i++
		return steps[i-1], nil
	})
}

func TestBadRequests(t *testing.T) {
	big := `{"messages":[{"role":"user","parts":[{"type":"text","text":"` + strings.Repeat("x", 2000) + `"}]}]}`
	tests := []struct {
		name, proto, method, body string
		status                    int
		msg                       string
	}{
		{"not json", "ai", "POST", `{"messages":`, 400, "not a chat request"},
		{"no messages", "ai", "POST", `{"id":"c"}`, 400, `no "messages"`},
		{"empty text", "ai", "POST", `{"messages":[{"role":"user","parts":[]}]}`, 400, "no text"},
		{"system last", "ai", "POST", `{"messages":[{"role":"system","parts":[{"type":"text","text":"x"}]}]}`, 400, "role \"system\""},
		{"assistant without approval", "ai", "POST", `{"messages":[{"role":"assistant","parts":[{"type":"text","text":"x"}]}]}`, 400, "answers no approval"},
		{"approval without answer", "ai", "POST", `{"messages":[{"role":"assistant","parts":[{"type":"tool-rm","state":"approval-responded","approval":{"id":"a"}}]}]}`, 400, "approval.approved"},
		{"unknown approval", "ai", "POST", `{"messages":[{"role":"assistant","parts":[{"type":"tool-rm","state":"approval-responded","approval":{"id":"approval-x","approved":true}}]}]}`, 404, "no open approval"},
		{"too large", "ai", "POST", big, 413, "over 1000 bytes"},
		{"method", "ai", "PUT", chat, 405, "not allowed"},
		{"reconnect without id", "ai", "GET", "", 400, "Last-Event-ID"},
		{"agui missing ids", "agui", "POST", `{"messages":[]}`, 400, "threadId, runId and messages"},
		{"agui last not user", "agui", "POST", `{"threadId":"t","runId":"r","messages":[{"role":"assistant","content":"x"}]}`, 400, "the user's"},
		{"agui bad resume", "agui", "POST", `{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"a","status":"maybe"}]}`, 400, "resolved or cancelled"},
		{"agui bad payload", "agui", "POST", `{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"a","status":"resolved","payload":{"ok":1}}]}`, 400, "approved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			r, err := turnrunner.New(countingModel(&calls), nil)
			if err != nil {
				t.Fatal(err)
			}
			opts := &uistream.Options{MaxBodyBytes: 1000}
			h := uistream.NewAISDK(r, opts)
			if tt.proto == "agui" {
				h = uistream.NewAGUI(r, opts)
			}
			defer h.Close()
			req := httptest.NewRequest(tt.method, "/chat", strings.NewReader(tt.body))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.msg) {
				t.Errorf("got %d %q, want %d containing %q", rec.Code, rec.Body.String(), tt.status, tt.msg)
			}
			if calls.Load() != 0 {
				t.Errorf("a turn started: %d model calls", calls.Load())
			}
		})
	}
}

// Authorize runs on every request; a caller cannot answer another caller's
// approval (it looks exactly like an unknown one), while the owner can.
func TestApprovalsBelongToTheirOwner(t *testing.T) {
	h := uistream.NewAISDK(scenario(t), &uistream.Options{Authorize: func(r *http.Request) (string, error) {
		u := r.Header.Get("X-User")
		if u == "" {
			return "", errors.New("who are you?")
		}
		return u, nil
	}})
	url := serve(t, h)
	if res, body := post(t, url, chat); res.StatusCode != 401 || !strings.Contains(body, "who are you?") {
		t.Fatalf("anonymous: %d %q", res.StatusCode, body)
	}
	_, first := post(t, url, chat, "X-User", "alice")
	id := between(first, `"approvalId":"`, `"`)
	if id == "" {
		t.Fatalf("no approval in\n%s", first)
	}
	answer := `{"messages":[{"role":"assistant","parts":[{"type":"tool-rm","toolCallId":"c5","state":"approval-responded","approval":{"id":"` + id + `","approved":true}}]}]}`
	if res, body := post(t, url, answer, "X-User", "mallory"); res.StatusCode != 404 {
		t.Fatalf("another caller's answer: %d %q", res.StatusCode, body)
	}
	res, second := post(t, url, answer, "X-User", "alice")
	if res.StatusCode != 200 || !strings.Contains(second, "removed /tmp/x") {
		t.Fatalf("owner's answer: %d\n%s", res.StatusCode, second)
	}
	if res, _ := post(t, url, answer, "X-User", "alice"); res.StatusCode != 404 {
		t.Errorf("an answered approval answered again: %d", res.StatusCode)
	}
}

// A denied approval ends the call as denied and the turn goes on.
func TestDeniedApproval(t *testing.T) {
	url := serve(t, uistream.NewAISDK(scenario(t), nil))
	_, first := post(t, url, chat)
	id := between(first, `"approvalId":"`, `"`)
	answer := `{"messages":[{"role":"assistant","parts":[{"type":"tool-rm","toolCallId":"c5","state":"approval-responded","approval":{"id":"` + id + `","approved":false}}]}]}`
	_, second := post(t, url, answer)
	if !strings.Contains(second, `{"type":"tool-output-denied","toolCallId":"c5"}`) || !strings.Contains(second, `"finishReason":"stop"`) {
		t.Errorf("second response:\n%s", second)
	}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

// No CORS headers unless configured; a configured origin gets them and its
// preflight succeeds.
func TestCORS(t *testing.T) {
	r := scenario(t)
	for _, tt := range []struct {
		name    string
		allowed []string
		want    string
		code    int
	}{
		{"off", nil, "", 403},
		{"allowed", []string{"https://app.example"}, "https://app.example", 204},
		{"other origin", []string{"https://other.example"}, "", 403},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := uistream.NewAISDK(r, &uistream.Options{AllowedOrigins: tt.allowed})
			defer h.Close()
			req := httptest.NewRequest("OPTIONS", "/chat", nil)
			req.Header.Set("Origin", "https://app.example")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if got := rec.Header().Get("Access-Control-Allow-Origin"); got != tt.want || rec.Code != tt.code {
				t.Errorf("preflight: %d, Allow-Origin %q; want %d, %q", rec.Code, got, tt.code, tt.want)
			}
		})
	}
}

// blocking is a runner whose one tool blocks until its context ends,
// reporting that it started and that it saw the cancellation.
func blocking(t *testing.T) (r *turnrunner.Runner, started, cancelled chan struct{}) {
	started, cancelled = make(chan struct{}), make(chan struct{})
	wait := tool(t, "wait", func(ctx context.Context, _ noArgs) (string, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return "", ctx.Err()
	})
	r, err := turnrunner.New(scripted.New(scripted.Use(scripted.Call{ID: "w", Name: "wait", Args: `{}`}), scripted.Say("never")),
		&turnrunner.Options{Tools: []*forge.Tool{wait}})
	if err != nil {
		t.Fatal(err)
	}
	return r, started, cancelled
}

// A client that goes away cancels its turn: the tool sees the
// cancellation, and no goroutine of the turn outlives the request.
func TestDisconnectCancelsTheTurn(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, proto := range []string{"ai", "agui"} {
		t.Run(proto, func(t *testing.T) {
			r, started, cancelled := blocking(t)
			h, body := uistream.NewAISDK(r, nil), chat
			if proto == "agui" {
				h, body = uistream.NewAGUI(r, nil), run
			}
			defer h.Close()
			ctx, cancel := context.WithCancel(context.Background())
			req := httptest.NewRequest("POST", "/chat", strings.NewReader(body)).WithContext(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				h.ServeHTTP(httptest.NewRecorder(), req)
			}()
			<-started
			cancel()
			<-done
			select {
			case <-cancelled:
			case <-time.After(10 * time.Second):
				t.Fatal("the tool never saw the cancellation")
			}
		})
	}
}

// With a resume window, a client reconnecting with Last-Event-ID gets the
// frames after that id, and the rest of the turn.
func TestReconnectReplays(t *testing.T) {
	r := scenario(t)
	h := uistream.NewAISDK(r, &uistream.Options{ResumeWindow: time.Minute})
	url := serve(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(chat))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// Read three frames, then drop the connection.
	sc := bufio.NewScanner(res.Body)
	var lastID string
	var seen []string
	for len(seen) < 3 && sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			lastID = id
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			seen = append(seen, d)
		}
	}
	cancel()
	res.Body.Close()

	again, _ := http.NewRequest("GET", url, nil)
	again.Header.Set("Last-Event-ID", lastID)
	res2, rest := do(t, again)
	if res2.StatusCode != 200 {
		t.Fatalf("reconnect: %d %s", res2.StatusCode, rest)
	}
	all := strings.Join(seen, "\n") + "\n" + rest
	if strings.Count(all, `"type":"start"`) != 1 || !strings.Contains(rest, `"type":"tool-approval-request"`) || !strings.HasSuffix(rest, "data: [DONE]\n\n") {
		t.Errorf("reconnected stream after %s:\n%s", lastID, rest)
	}
	if strings.Contains(rest, "id: "+lastID+"\n") {
		t.Error("the last seen frame was sent again")
	}
}

// Quiet turns get heartbeat comments at the configured interval.
func TestHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, started, _ := blocking(t)
		h := uistream.NewAISDK(r, &uistream.Options{Heartbeat: time.Second})
		defer h.Close()
		ctx, cancel := context.WithCancel(context.Background())
		rec := &lockedRecorder{ResponseRecorder: httptest.NewRecorder()}
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/chat", strings.NewReader(chat)).WithContext(ctx))
		}()
		<-started
		time.Sleep(3500 * time.Millisecond)
		synctest.Wait()
		n := strings.Count(rec.body(), ": ping\n\n")
		cancel()
		<-done
		if n != 3 {
			t.Errorf("%d heartbeats in 3.5s, want 3", n)
		}
	})
}

// lockedRecorder lets a test read a response while the handler writes it.
type lockedRecorder struct {
	*httptest.ResponseRecorder
	mu sync.Mutex
}

func (l *lockedRecorder) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ResponseRecorder.Write(b)
}

func (l *lockedRecorder) body() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ResponseRecorder.Body.String()
}

// A turn waiting for an approval nobody answers is cancelled after
// ApprovalTimeout; a late answer finds nothing.
func TestApprovalTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := uistream.NewAISDK(scenario(t), &uistream.Options{ApprovalTimeout: time.Minute, Heartbeat: -1})
		defer h.Close()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/chat", strings.NewReader(chat)))
		id := between(rec.Body.String(), `"approvalId":"`, `"`)
		if id == "" {
			t.Fatalf("no approval in\n%s", rec.Body.String())
		}
		time.Sleep(time.Minute + time.Second)
		synctest.Wait()
		answer := `{"messages":[{"role":"assistant","parts":[{"type":"tool-rm","toolCallId":"c5","state":"approval-responded","approval":{"id":"` + id + `","approved":true}}]}]}`
		late := httptest.NewRecorder()
		h.ServeHTTP(late, httptest.NewRequest("POST", "/chat", strings.NewReader(answer)))
		if late.Code != 404 {
			t.Errorf("late answer: %d %s", late.Code, late.Body.String())
		}
	})
}
