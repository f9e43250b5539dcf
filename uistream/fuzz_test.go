package uistream_test

import (
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ebbforge/adk/turnrunner"
	"github.com/ebbforge/adk/uistream"
)

// Whatever a client posts, the handlers answer a stream or a clear 4xx,
// and never start a turn for a request they refuse.
func FuzzRequests(f *testing.F) {
	for _, s := range []string{chat, run, `{"messages":[]}`, `{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"x","status":"resolved","payload":true}]}`,
		`{"messages":[{"role":"assistant","parts":[{"state":"approval-responded","approval":{"id":"a","approved":false}}]}]}`, `[`, `null`} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, body string, agui bool) {
		var calls atomic.Int32
		r, err := turnrunner.New(countingModel(&calls), nil)
		if err != nil {
			t.Fatal(err)
		}
		h := uistream.NewAISDK(r, &uistream.Options{MaxBodyBytes: 4096})
		if agui {
			h = uistream.NewAGUI(r, &uistream.Options{MaxBodyBytes: 4096})
		}
		defer h.Close()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/", strings.NewReader(body)))
		switch rec.Code {
		case 200:
		case 400, 404, 413:
			if calls.Load() != 0 {
				t.Fatalf("%d with a started turn", rec.Code)
			}
			if !strings.HasPrefix(rec.Body.String(), "uistream: ") {
				t.Fatalf("unclear message %q", rec.Body.String())
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
	})
}
