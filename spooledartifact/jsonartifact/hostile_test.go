package jsonartifact_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/internal/ctxtest"
	"github.com/ebbforge/adk/spooledartifact/jsonartifact"
)

// The hostile-input suite of the JSON kind: deep nesting, oversized
// records, invalid records and queries whose context ends, each with its
// exact outcome.

func hostileJSON(t *testing.T, src string, k jsonartifact.Kind) *jsonartifact.Artifact {
	t.Helper()
	r, err := spooledartifact.WriteString(context.Background(), spooledartifact.NewMemoryStore(), "j", src)
	if err != nil {
		t.Fatal(err)
	}
	return jsonartifact.New("j", r, k)
}

// Nesting past MaxDepth is ErrTooDeep before any parser recurses into it,
// as a document and as a JSON Lines record.
func TestHostileDeepJSON(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, tc := range []struct {
		name string
		src  string
		k    jsonartifact.Kind
	}{
		{"document", deep, jsonartifact.Kind{}},
		{"json5 document", deep, jsonartifact.Kind{Format: jsonartifact.FormatJSON5}},
		{"JSON Lines record", "{\"a\":1}\n" + deep + "\n", jsonartifact.Kind{Format: jsonartifact.FormatJSONL}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := hostileJSON(t, tc.src, tc.k)
			_, err := a.Length(context.Background())
			if !errors.Is(err, jsonartifact.ErrTooDeep) {
				t.Errorf("Length = %v, want ErrTooDeep", err)
			}
		})
	}
}

// A record over MaxRecordBytes and a record that is not JSON are typed
// errors, not silently skipped.
func TestHostileJSONLinesRecords(t *testing.T) {
	long := hostileJSON(t, "{\"a\":1}\n\""+strings.Repeat("x", 2<<10)+"\"\n", jsonartifact.Kind{Format: jsonartifact.FormatJSONL, MaxRecordBytes: 1 << 10})
	if _, err := long.Length(context.Background()); !errors.Is(err, jsonartifact.ErrTooLarge) {
		t.Errorf("over-long record: %v, want ErrTooLarge", err)
	}
	bad := hostileJSON(t, "{\"a\":1}\n{\"a\":\n", jsonartifact.Kind{Format: jsonartifact.FormatJSONL})
	if _, err := bad.Length(context.Background()); !errors.Is(err, jsonartifact.ErrInvalidRecord) {
		t.Errorf("invalid record: %v, want ErrInvalidRecord", err)
	}
}

// A query over large records stops at its first context check after the
// context ended: at most a MiB of records is read past it.
func TestHostileJSONQueryStopsWhenCtxEnds(t *testing.T) {
	record := `{"k":"` + strings.Repeat("v", 64<<10) + `"}` + "\n"
	a := hostileJSON(t, strings.Repeat(record, 256), jsonartifact.Kind{Format: jsonartifact.FormatJSONL}) // 16 MiB
	ctx := ctxtest.NewCountdown(3)
	n := 0
	var err error
	for _, e := range a.Filter(ctx, "k") {
		if e != nil {
			err = e
			break
		}
		n++
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Filter ended with %v after %d records, want context.Canceled", err, n)
	}
	if n > 3*(1<<20)/len(record)+3 {
		t.Errorf("%d records after the context's checks ran out, want at most a MiB's worth past each", n)
	}
	if got := ctx.ErrsAfterEnd(); got != 1 {
		t.Errorf("the ended context was checked %d times, want once", got)
	}
}

// A real deadline: every query returns ctx's error instead of its answer.
func TestHostileJSONQueriesHonourADeadline(t *testing.T) {
	a := hostileJSON(t, strings.Repeat(`{"k":1}`+"\n", 1000), jsonartifact.Kind{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	cancel() // ended before the query starts: no clock needed
	if _, err := a.Length(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Length = %v, want context.Canceled", err)
	}
	for _, err := range a.Get(ctx, "k") {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Get = %v, want context.Canceled", err)
		}
		break
	}
}
