package sqlitestore_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/ebbforge/adk/canonical"
	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/dispatch/storetest"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/store/sqlitestore"
)

func open(t testing.TB, path string) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreAnyFunction("database/sql.(*DB).connectionOpener"))
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, loc string) dispatch.ConversationStore {
			return open(t, filepath.Join(loc, "test.db"))
		},
		Close: func(t *testing.T, s dispatch.ConversationStore) {
			if err := s.(*sqlitestore.Store).Close(); err != nil {
				t.Error(err)
			}
		},
		Durable: true,
	})
}

func TestOpenSettings(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "x.db"))
	defer s.Close()
	ctx := context.Background()
	for _, tt := range []struct{ pragma, want string }{
		{"journal_mode", "wal"}, {"busy_timeout", "5000"}, {"foreign_keys", "1"},
	} {
		var got string
		if err := s.DB().QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("PRAGMA %s = %s, want %s", tt.pragma, got, tt.want)
		}
	}
	var v int
	if err := s.DB().QueryRowContext(ctx, "SELECT version FROM schema_version").Scan(&v); err != nil || v != sqlitestore.SchemaVersion {
		t.Errorf("schema version = %d, %v; want %d", v, err, sqlitestore.SchemaVersion)
	}
}

func TestSchemaFromTheFuture(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s := open(t, path)
	if _, err := s.DB().Exec("UPDATE schema_version SET version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := sqlitestore.Open(context.Background(), path, nil)
	if !errors.Is(err, sqlitestore.ErrSchemaVersion) {
		t.Fatalf("Open = %v, want ErrSchemaVersion", err)
	}
	if _, err := sqlitestore.Open(context.Background(), "", nil); !errors.Is(err, sqlitestore.ErrOpen) {
		t.Errorf("Open(\"\") = %v, want ErrOpen", err)
	}
	if _, err := sqlitestore.Open(context.Background(), path, &sqlitestore.Options{Driver: "no-such-driver"}); !errors.Is(err, sqlitestore.ErrOpen) {
		t.Errorf("Open with an unknown driver = %v, want ErrOpen", err)
	}
}

// TestArtifactsAndMediaSurviveReopen: a call's spooled artifact is read back
// from the spool next to the database, a media result from the database, and
// an artifact whose bytes are gone loads as expired instead of failing.
func TestArtifactsAndMediaSurviveReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	s := open(t, path)
	rd, err := s.SpoolStore().Write(ctx, "turn/c1", strings.NewReader("line one\nline two\n"))
	if err != nil {
		t.Fatal(err)
	}
	art, err := spooledartifact.PlainKind{}.Wrap(ctx, "turn/c1", rd)
	if err != nil {
		t.Fatal(err)
	}
	img, err := media.New(media.Raw{ID: "img", Kind: media.KindImage, MIMEType: "image/png", Filename: "a.png", Reader: media.NewMemoryReader([]byte("png")),
		TrustTier: media.FirstParty, Hazard: media.OpaquePerceptual})
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := canonical.ChecksumJSON("t", []byte(`{}`))
	mk := func(id string, res any) dispatch.Entry {
		c, err := forge.NewToolCall(forge.RawToolCall{ID: id, Tool: "t", Args: `{}`, Checksum: sum, Results: res,
			IsComplete: true, CreatedAt: storetestTime, CompletedAt: storetestTime})
		if err != nil {
			t.Fatal(err)
		}
		return dispatch.Entry{ToolCall: c}
	}
	for _, e := range []dispatch.Entry{mk("c1", art), mk("c2", img), mk("c3", art)} {
		if err := s.Save(ctx, "turn", e); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = open(t, path)
	defer s.Close()
	es, err := s.Load(ctx, "turn")
	if err != nil {
		t.Fatal(err)
	}
	a := es[0].ToolCall.Results().Artifacts()[0].(*spooledartifact.Artifact)
	if b, err := a.ReadAll(ctx); err != nil || string(b) != "line one\nline two\n" {
		t.Errorf("artifact after reopen = %q, %v", b, err)
	}
	if b, err := es[1].ToolCall.Results().Media()[0].Bytes(ctx, 0); err != nil || string(b) != "png" {
		t.Errorf("media after reopen = %q, %v", b, err)
	}
	if _, err := s.SpoolStore().Delete(ctx, "turn/c1"); err != nil {
		t.Fatal(err)
	}
	es, err = s.Load(ctx, "turn")
	if err != nil {
		t.Fatalf("Load with a deleted artifact: %v", err)
	}
	if _, err := es[2].ToolCall.Results().Artifacts()[0].ByteLength(ctx); !errors.Is(err, spooledartifact.ErrNotFound) {
		t.Errorf("gone artifact ByteLength = %v, want ErrNotFound", err)
	}
}
