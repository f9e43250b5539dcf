package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ebbforge/adk/llm/scripted"
)

// TestContinuesAfterRestart runs the chat twice on one database, as a user
// quitting and starting it again would: the second run continues the
// conversation the first one stored.
func TestContinuesAfterRestart(t *testing.T) {
	db := filepath.Join(t.TempDir(), "chat.db")
	ctx := context.Background()
	var first bytes.Buffer
	if err := run(ctx, scripted.NewFunc(brain), strings.NewReader("hello there\nnote buy milk\n/quit\n"), &first, db, "default"); err != nil {
		t.Fatalf("first run: %v\n%s", err, first.String())
	}
	for _, want := range []string{`0 earlier turns`, `Turn 1 of our conversation. You said "hello there".`,
		"[save_note: noted: buy milk]", "I saved that note."} {
		if !strings.Contains(first.String(), want) {
			t.Errorf("first run lacks %q:\n%s", want, first.String())
		}
	}
	var second bytes.Buffer
	if err := run(ctx, scripted.NewFunc(brain), strings.NewReader("what did I say?\n/list\n"), &second, db, "default"); err != nil {
		t.Fatalf("second run: %v\n%s", err, second.String())
	}
	for _, want := range []string{`2 earlier turns`,
		`Turn 3 of our conversation. You said "what did I say?". Before that you said "note buy milk".`,
		"default: 3 turns"} {
		if !strings.Contains(second.String(), want) {
			t.Errorf("second run lacks %q:\n%s", want, second.String())
		}
	}
}
