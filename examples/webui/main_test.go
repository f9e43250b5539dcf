package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/internal/testdeps"
)

// card is what the page shows for one tool call.
type card struct {
	Tool   string `json:"tool"`
	Status string `json:"status"`
	Result string `json:"result"`
}

// The page in a real headless Chromium: send a prompt, approve the gated
// call, and check what is rendered: thoughts, tool cards with results and a
// handle, the loop-guard warning, the final text, and markup from a tool
// shown as text without running.
func TestBrowser(t *testing.T) {
	chromium := testdeps.Chromium(t)
	h, closeChat, err := newServer(scriptedModel())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer closeChat()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	// The first action starts the browser and must not carry a timeout
	// (it would end the browser with it); the rest are bounded.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("browser: %v", err)
	}
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	defer func() {
		if !t.Failed() {
			return
		}
		sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
		defer scancel()
		png, err := chromedp.Run(sctx, chromedp.FullScreenshot(90))
		if err != nil {
			t.Logf("screenshot: %v", err)
			return
		}
		p := filepath.Join(t.TempDir(), "webui-failure.jpg")
		if os.WriteFile(p, png, 0o644) == nil {
			t.Logf("screenshot: %s", p)
		}
	}()

	approve := `.tool-card[data-tool="delete_file"] button.approve`
	err = chromedp.Do(tctx,
		chromedp.WaitVisible(`#prompt`),
		chromedp.SendKeys(`#prompt`, "clean up the old logs"),
		chromedp.Click(`#send`),
		chromedp.WaitVisible(approve),
		chromedp.Click(approve),
		chromedp.WaitVisible(`body[data-state="idle"]`),
	)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(tctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		return v
	}
	cardsJSON := eval(`JSON.stringify([...document.querySelectorAll('.tool-card')].map(c => ({
		tool: c.dataset.tool, status: c.dataset.status, result: c.querySelector('.result').textContent.split('\n')[0]})))`)
	texts := eval(`JSON.stringify([...document.querySelectorAll('.assistant .text')].map(e => e.textContent))`)
	warning := eval(`document.querySelector('.warning.loop-guard')?.textContent ?? ''`)
	thought := eval(`document.querySelector('details.thought .body')?.textContent ?? ''`)
	markup := eval(`[window.pwned ? 'ran' : 'inert', document.querySelectorAll('#messages script, #messages b').length, document.title].join(' ')`)

	var cards []card
	if err := json.Unmarshal([]byte(cardsJSON), &cards); err != nil {
		t.Fatal(err)
	}
	evil := `<script>window.pwned = true; document.title = "pwned"</script><b>retention: 30 days</b>`
	want := []card{
		{"search_logs", "done", "3 matches for older than 30 days in /var/log/app (oldest 41 days)"},
		{"fetch_page", "done", evil},
		{"export_logs", "done", "This result was too large to place here, so it was stored as an artifact."},
		{"search_logs", "error", "E_LOOP_GUARD_REPEATED_TOOL_CALL: Repeated tool call blocked: you already called search_logs with these exact arguments 1 time(s) in this turn (limit 1), so it was not executed again. Its earlier result was: \"3 matches for older than 30 days in /var/log/app (oldest 41 days)\". Use that result or try something different; repeating this exact call again ends tool use for this turn."},
		{"delete_file", "done", "deleted /var/log/app/2025-12.log"},
	}
	if diff := cmp.Diff(want, cards); diff != "" {
		t.Errorf("tool cards (-want +got):\n%s", diff)
	}
	if !strings.HasSuffix(texts, `"All done: the old log file is handled and retention is 30 days."]`) {
		t.Errorf("texts %s", texts)
	}
	if !strings.HasPrefix(warning, "Loop guard: ") || !strings.Contains(warning, "search_logs") {
		t.Errorf("loop-guard warning %q", warning)
	}
	if !strings.Contains(thought, "I should look before deleting anything.") {
		t.Errorf("thought %q", thought)
	}
	if markup != "inert 0 adk web UI" {
		t.Errorf("tool output ran as markup: %s", markup)
	}
}
