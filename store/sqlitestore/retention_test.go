package sqlitestore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/store/sqlitestore"
)

// startTurn starts turn in conv, spools an artifact under the turn's scope
// (as the runner does), saves a message and ends the turn in state.
func startTurn(t *testing.T, st *sqlitestore.Store, conv, turn string, state dispatch.TurnState) {
	t.Helper()
	ctx := context.Background()
	if err := st.StartTurn(ctx, conv, turn); err != nil {
		t.Fatal(err)
	}
	if _, err := spooledartifact.NewScope(st.SpoolStore(), turn, nil).Write(ctx, "c1", strings.NewReader("output of "+turn)); err != nil {
		t.Fatal(err)
	}
	m, err := dispatch.NewMessage(dispatch.RawMessage{ID: turn + "-q", Role: dispatch.RoleUser, Content: forge.NewTokenizable("question " + turn)})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Save(ctx, turn, dispatch.Entry{Message: m}); err != nil {
		t.Fatal(err)
	}
	if state != dispatch.TurnRunning {
		if err := st.SetTurnState(ctx, turn, state, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// spooled lists the spool's artifact ids.
func spooled(t *testing.T, st *sqlitestore.Store) []string {
	t.Helper()
	ids, err := st.SpoolStore().List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func turnIDsOf(t *testing.T, st *sqlitestore.Store, conv string) []string {
	t.Helper()
	ts, err := st.Turns(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range ts {
		out = append(out, x.ID)
	}
	return out
}

// MaxTurns keeps each conversation's newest turns: the older ones go with
// their entries and spooled files; a suspended turn is kept.
func TestRetentionMaxTurns(t *testing.T) {
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "r.db"), &sqlitestore.Options{MaxTurns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	startTurn(t, st, "c", "t0", dispatch.TurnSuspended)
	for _, id := range []string{"t1", "t2", "t3"} {
		startTurn(t, st, "c", id, dispatch.TurnCompleted)
	}
	startTurn(t, st, "other", "o1", dispatch.TurnCompleted)
	// t0 was suspended, then interrupted when t1 started: no longer kept.
	if got, want := turnIDsOf(t, st, "c"), []string{"t2", "t3"}; !slices.Equal(got, want) {
		t.Errorf("turns %v, want %v", got, want)
	}
	if got, want := spooled(t, st), []string{"o1/c1", "t2/c1", "t3/c1"}; !slices.Equal(got, want) {
		t.Errorf("spool %v, want %v", got, want)
	}
	if es, err := st.Load(ctx, "t1"); err != nil || len(es) != 0 {
		t.Errorf("a dropped turn's entries: %d, %v", len(es), err)
	}
}

// MaxAge drops conversations idle for longer, with their files, but not
// one with a suspended turn; DeleteConversation removes the files too.
func TestRetentionMaxAgeAndDelete(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	st := open(t, path)
	startTurn(t, st, "old", "a1", dispatch.TurnCompleted)
	startTurn(t, st, "waiting", "w1", dispatch.TurnSuspended)
	startTurn(t, st, "new", "n1", dispatch.TurnCompleted)
	startTurn(t, st, "gone", "g1", dispatch.TurnCompleted)
	if ok, err := st.DeleteConversation(ctx, "gone"); !ok || err != nil {
		t.Fatalf("DeleteConversation = %v, %v", ok, err)
	}
	if got, want := spooled(t, st), []string{"a1/c1", "n1/c1", "w1/c1"}; !slices.Equal(got, want) {
		t.Errorf("spool after delete %v, want %v", got, want)
	}
	// "old" and "waiting" were last active two days ago.
	if _, err := st.DB().ExecContext(ctx, `UPDATE conversations SET updated_at = ? WHERE id IN ('old', 'waiting')`,
		time.Now().Add(-48*time.Hour).UnixNano()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err := sqlitestore.Open(ctx, path, &sqlitestore.Options{MaxAge: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs, err := st.Conversations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	if want := []string{"new", "waiting"}; !slices.Equal(ids, want) {
		t.Errorf("conversations %v, want %v", ids, want)
	}
	if got, want := spooled(t, st), []string{"n1/c1", "w1/c1"}; !slices.Equal(got, want) {
		t.Errorf("spool after retention %v, want %v", got, want)
	}
	if n, err := st.Prune(ctx); n != 0 || err != nil {
		t.Errorf("Prune again = %d, %v; want nothing to do", n, err)
	}
}

// Open sweeps the spool: artifacts of turns the database does not hold (a
// crash between dropping turns and deleting their files) and stale
// temporary files go; the stored turns' artifacts and ids outside any turn
// scope stay.
func TestOpenSweepsOrphans(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	st := open(t, path)
	startTurn(t, st, "c", "t1", dispatch.TurnCompleted)
	spool := st.SpoolStore()
	for _, id := range []string{"ghost/c1", "ghost/c2", "loose"} {
		if _, err := spool.Write(ctx, id, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	dir := path + "-spool" // the default spool directory
	st.Close()
	stale := filepath.Join(dir, ".tmp-crashed")
	if err := os.WriteFile(stale, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	st = open(t, path)
	defer st.Close()
	if got, want := spooled(t, st), []string{"loose", "t1/c1"}; !slices.Equal(got, want) {
		t.Errorf("spool after reopen %v, want %v", got, want)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file: %v, want removed", err)
	}
}

func TestRetentionOptionsChecked(t *testing.T) {
	for _, o := range []sqlitestore.Options{{MaxAge: -1}, {MaxTurns: -1}} {
		if _, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"), &o); !errors.Is(err, sqlitestore.ErrOpen) {
			t.Errorf("Open(%+v) = %v, want ErrOpen", o, err)
		}
	}
}
