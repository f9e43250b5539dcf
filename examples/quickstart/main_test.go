package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ebbforge/adk/examples/internal/modelenv"
)

func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, modelenv.Config{Provider: modelenv.Scripted}); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"fetch_logs", "artifact_grep", "artifact_tail", "callId=call_logs", "I found 4 ERROR lines", "info fetch: streaming 5000 lines of api logs", "turn completed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
