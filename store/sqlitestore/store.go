package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the default driver, registered as "sqlite"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
	"github.com/ebbforge/adk/spooledartifact"
)

// DefaultDriver is the database/sql driver name Open uses by default:
// modernc.org/sqlite.
const DefaultDriver = "sqlite"

// DefaultBusyTimeout is how long a statement waits for another
// connection's lock by default.
const DefaultBusyTimeout = 5 * time.Second

// SchemaVersion is the version of the schema Open creates or migrates to.
const SchemaVersion = 2

// maxMediaBytes caps the bytes of a media result read into the database
// when its reader cannot describe itself (64 MiB).
const maxMediaBytes = 64 << 20

// Options configure [Open]; nil means all defaults.
type Options struct {
	// Driver is the database/sql driver; "" means DefaultDriver. Another
	// SQLite driver must be imported by the caller.
	Driver string
	// DSN is the data source name given to the driver; "" means one built
	// from the path for the default driver (with WAL and the busy timeout),
	// or the path itself for any other driver.
	DSN string
	// BusyTimeout; 0 means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// SpoolDir is the directory of the artifact spool; "" means the
	// database path with "-spool" appended.
	SpoolDir string
	// Kinds are the artifact kinds stored tool calls may hold besides
	// spooledartifact.PlainKind (jsonartifact.Kind{}, mdartifact.Kind{}...).
	Kinds []spooledartifact.Kind
	// MaxAge drops a conversation with no activity (no turn started or
	// changing state) for longer than this: its turns, their entries,
	// gates and spooled artifacts. A conversation with a running or
	// suspended turn is kept. Applied by Open, StartTurn and Prune; 0
	// keeps conversations until they are deleted.
	MaxAge time.Duration
	// MaxTurns keeps only the newest turns of each conversation: older
	// ones are dropped with their entries, gates and spooled artifacts
	// (running and suspended turns are kept). Applied by Open, StartTurn
	// and Prune; 0 keeps every turn.
	MaxTurns int
	// Sync trades speed for durability across power loss: SQLite's
	// synchronous=FULL and fsync of every spooled artifact. Without it a
	// crash of the process loses nothing; a power cut may lose the last
	// writes.
	Sync bool
}

// Store is a dispatch.ConversationStore in a SQLite database. Safe for
// concurrent use; Close it when done.
type Store struct {
	db       *sql.DB
	spool    *spooledartifact.DiskStore
	res      resolver
	maxAge   time.Duration
	maxTurns int
	// The statements of the hot paths, prepared once.
	saveStmt, loadStmt *sql.Stmt
}

const (
	saveSQL = `INSERT INTO entries (turn_id, seq, kind, entry_id, body)
		VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM entries WHERE turn_id = ?1), ?2, ?3, ?4)
		ON CONFLICT (turn_id, kind, entry_id) DO UPDATE SET body = excluded.body`
	loadSQL = `SELECT body FROM entries WHERE turn_id = ? ORDER BY seq`
)

var _ dispatch.ConversationStore = (*Store)(nil)

// Open opens (creating or migrating) the database at path and its artifact
// spool. A failure is ErrOpen (wrapping the cause); a database written by a
// newer version of this package is ErrSchemaVersion.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if path == "" && o.DSN == "" {
		return nil, ErrOpen.With(nil, "sqlitestore: open: a path is required")
	}
	if o.MaxAge < 0 || o.MaxTurns < 0 {
		return nil, ErrOpen.With(nil, "sqlitestore: open: MaxAge and MaxTurns must be >= 0")
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = DefaultBusyTimeout
	}
	if o.SpoolDir == "" {
		o.SpoolDir = path + "-spool"
	}
	driver, dsn := o.Driver, o.DSN
	if driver == "" {
		driver = DefaultDriver
	}
	if dsn == "" {
		dsn = path
		if driver == DefaultDriver {
			q := url.Values{}
			q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeout.Milliseconds()))
			q.Add("_pragma", "journal_mode(WAL)")
			q.Add("_txlock", "immediate")
			dsn = "file:" + path + "?" + q.Encode()
		}
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, ErrOpen.With(err, "sqlitestore: open %s", path)
	}
	// One connection: SQLite has one writer anyway, and per-connection
	// settings (the pragmas below) then hold for every statement.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	s := &Store{db: db}
	if err := s.init(ctx, o); err != nil {
		db.Close()
		return nil, err
	}
	spool, err := spooledartifact.NewDiskStore(o.SpoolDir, &spooledartifact.DiskOptions{SpillThreshold: -1, Sync: o.Sync})
	if err != nil {
		db.Close()
		return nil, ErrOpen.With(err, "sqlitestore: open spool %s", o.SpoolDir)
	}
	s.spool = spool
	if s.saveStmt, err = db.PrepareContext(ctx, saveSQL); err == nil {
		s.loadStmt, err = db.PrepareContext(ctx, loadSQL)
	}
	if err != nil {
		db.Close()
		return nil, ErrOpen.With(err, "sqlitestore: prepare statements")
	}
	s.res = resolver{Resolver: spooledartifact.Resolver{Store: spool, Kinds: o.Kinds, Media: s.media}}
	s.maxAge, s.maxTurns = o.MaxAge, o.MaxTurns
	if _, err := s.Prune(ctx); err != nil {
		s.Close()
		return nil, ErrOpen.With(err, "sqlitestore: open: retention")
	}
	if err := s.sweepOrphans(ctx); err != nil {
		s.Close()
		return nil, ErrOpen.With(err, "sqlitestore: open: sweep the spool")
	}
	return s, nil
}

func (s *Store) init(ctx context.Context, o Options) error {
	synchronous := "NORMAL"
	if o.Sync {
		synchronous = "FULL"
	}
	pragmas := []string{
		fmt.Sprintf("PRAGMA busy_timeout = %d", o.BusyTimeout.Milliseconds()),
		"PRAGMA journal_mode = WAL",
		"PRAGMA synchronous = " + synchronous,
		"PRAGMA foreign_keys = ON",
	}
	for _, p := range pragmas {
		if _, err := s.db.ExecContext(ctx, p); err != nil {
			return ErrOpen.With(err, "sqlitestore: %s", p)
		}
	}
	return migrate(ctx, s.db)
}

// Close closes the database.
func (s *Store) Close() error {
	s.saveStmt.Close()
	s.loadStmt.Close()
	return s.db.Close()
}

// DB is the underlying database handle, for inspection and backups.
func (s *Store) DB() *sql.DB { return s.db }

// SpoolStore is the durable spool next to the database: pass it as the
// runner's SpoolStore so tool output survives a restart with the timeline
// that references it.
func (s *Store) SpoolStore() *spooledartifact.DiskStore { return s.spool }

// Save implements dispatch.Store: one statement appends the entry with the
// turn's next sequence, or replaces the body of the entry of the same kind
// and id in place. Media results of tool calls are stored alongside.
func (s *Store) Save(ctx context.Context, turnID string, e dispatch.Entry) error {
	body, err := json.Marshal(e)
	if err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: save %s %q", e.Kind(), e.ID())
	}
	var media []*media.Media
	if e.ToolCall != nil {
		media = e.ToolCall.Results().Media()
	}
	if len(media) == 0 {
		// One statement is its own transaction.
		if _, err := s.saveStmt.ExecContext(ctx, turnID, string(e.Kind()), e.ID(), body); err != nil {
			return dispatch.ErrStore.With(err, "sqlitestore: save %s %q", e.Kind(), e.ID())
		}
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: save")
	}
	defer tx.Rollback()
	for _, m := range media {
		if err := saveMedia(ctx, tx, m); err != nil {
			return err
		}
	}
	if _, err := tx.StmtContext(ctx, s.saveStmt).ExecContext(ctx, turnID, string(e.Kind()), e.ID(), body); err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: save %s %q", e.Kind(), e.ID())
	}
	if err := tx.Commit(); err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: save %s %q", e.Kind(), e.ID())
	}
	return nil
}

// Delete implements dispatch.Store.
func (s *Store) Delete(ctx context.Context, turnID string, kind dispatch.EntryKind, id string) (bool, error) {
	r, err := s.db.ExecContext(ctx, `DELETE FROM entries WHERE turn_id = ? AND kind = ? AND entry_id = ?`, turnID, string(kind), id)
	if err != nil {
		return false, dispatch.ErrStore.With(err, "sqlitestore: delete %s %q", kind, id)
	}
	n, err := r.RowsAffected()
	return n > 0, err
}

// Load implements dispatch.Store. Artifacts are read from the spool; one
// whose bytes are gone (deleted, swept) comes back as an artifact whose
// reads fail with spooledartifact.ErrNotFound, which the turn runner
// renders as expired rather than failing the load.
func (s *Store) Load(ctx context.Context, turnID string) ([]dispatch.Entry, error) {
	rows, err := s.loadStmt.QueryContext(ctx, turnID)
	if err != nil {
		return nil, dispatch.ErrStore.With(err, "sqlitestore: load %q", turnID)
	}
	var bodies [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return nil, dispatch.ErrStore.With(err, "sqlitestore: load %q", turnID)
		}
		bodies = append(bodies, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, dispatch.ErrStore.With(err, "sqlitestore: load %q", turnID)
	}
	// Decoded after the rows are closed: resolving media queries the
	// database, which has one connection.
	return s.decode(ctx, turnID, bodies)
}

func (s *Store) decode(ctx context.Context, turnID string, bodies [][]byte) ([]dispatch.Entry, error) {
	var out []dispatch.Entry
	for _, b := range bodies {
		e, err := dispatch.UnmarshalEntry(ctx, b, s.res)
		if err != nil {
			return nil, dispatch.ErrStore.With(err, "sqlitestore: load %q", turnID)
		}
		out = append(out, e)
	}
	return out, nil
}

// LoadTurns returns the timelines of many turns in a few queries (500
// turns each), in the order given; dispatch.LoadHistory uses it.
func (s *Store) LoadTurns(ctx context.Context, turnIDs []string) ([][]dispatch.Entry, error) {
	const chunk = 500
	bodies := make(map[string][][]byte, len(turnIDs))
	for start := 0; start < len(turnIDs); start += chunk {
		ids := turnIDs[start:min(start+chunk, len(turnIDs))]
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
		q := `SELECT turn_id, body FROM entries WHERE turn_id IN (?` + strings.Repeat(",?", len(ids)-1) + `) ORDER BY turn_id, seq`
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, dispatch.ErrStore.With(err, "sqlitestore: load turns")
		}
		for rows.Next() {
			var id string
			var b []byte
			if err := rows.Scan(&id, &b); err != nil {
				rows.Close()
				return nil, dispatch.ErrStore.With(err, "sqlitestore: load turns")
			}
			bodies[id] = append(bodies[id], b)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, dispatch.ErrStore.With(err, "sqlitestore: load turns")
		}
	}
	out := make([][]dispatch.Entry, len(turnIDs))
	for i, id := range turnIDs {
		es, err := s.decode(ctx, id, bodies[id])
		if err != nil {
			return nil, err
		}
		out[i] = es
	}
	return out, nil
}

// StartTurn implements dispatch.ConversationStore.
func (s *Store) StartTurn(ctx context.Context, convID, turnID string) error {
	if convID == "" || turnID == "" {
		return dispatch.ErrStore.With(nil, "sqlitestore: start turn: conversation and turn ids are required")
	}
	now := time.Now().UnixNano()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: start turn")
	}
	defer tx.Rollback()
	var conv string
	err = tx.QueryRowContext(ctx, `SELECT conversation_id FROM turns WHERE id = ?`, turnID).Scan(&conv)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (id, created_at, updated_at) VALUES (?1, ?2, ?2)
			ON CONFLICT (id) DO UPDATE SET updated_at = ?2`, convID, now); err != nil {
			return dispatch.ErrStore.With(err, "sqlitestore: start turn %q", turnID)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM gates WHERE turn_id IN
			(SELECT id FROM turns WHERE conversation_id = ?1 AND state IN ('running', 'suspended'))`, convID); err != nil {
			return dispatch.ErrStore.With(err, "sqlitestore: start turn %q", turnID)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE turns SET state = 'interrupted', updated_at = ?2
			WHERE conversation_id = ?1 AND state IN ('running', 'suspended')`, convID, now); err != nil {
			return dispatch.ErrStore.With(err, "sqlitestore: start turn %q", turnID)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO turns (id, conversation_id, position, state, started_at, updated_at)
			VALUES (?1, ?2, (SELECT COALESCE(MAX(position), 0) + 1 FROM turns WHERE conversation_id = ?2), 'running', ?3, ?3)`,
			turnID, convID, now); err != nil {
			return dispatch.ErrStore.With(err, "sqlitestore: start turn %q", turnID)
		}
	case err != nil:
		return dispatch.ErrStore.With(err, "sqlitestore: start turn %q", turnID)
	case conv != convID:
		return dispatch.ErrStore.With(nil, "sqlitestore: start turn %q: it belongs to conversation %q", turnID, conv)
	default:
		if err := setState(ctx, tx, turnID, dispatch.TurnRunning, nil, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET updated_at = ? WHERE id = ?`, now, convID); err != nil {
			return dispatch.ErrStore.With(err, "sqlitestore: start turn %q", turnID)
		}
	}
	if err := tx.Commit(); err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: start turn %q", turnID)
	}
	if _, err := s.prune(ctx, convID); err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: start turn %q: retention", turnID)
	}
	return nil
}

// SetTurnState implements dispatch.ConversationStore.
func (s *Store) SetTurnState(ctx context.Context, turnID string, state dispatch.TurnState, gates []dispatch.OpenGate) error {
	if !state.Valid() {
		return dispatch.ErrStore.With(nil, "sqlitestore: set turn state: unknown state %q", state)
	}
	now := time.Now().UnixNano()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: set turn state")
	}
	defer tx.Rollback()
	if err := setState(ctx, tx, turnID, state, gates, now); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE conversations SET updated_at = ?
		WHERE id = (SELECT conversation_id FROM turns WHERE id = ?)`, now, turnID); err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: set turn state %q", turnID)
	}
	if err := tx.Commit(); err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: set turn state %q", turnID)
	}
	return nil
}

// setState records a turn's state and replaces its gates.
func setState(ctx context.Context, tx *sql.Tx, turnID string, state dispatch.TurnState, gates []dispatch.OpenGate, now int64) error {
	r, err := tx.ExecContext(ctx, `UPDATE turns SET state = ?, updated_at = ? WHERE id = ?`, string(state), now, turnID)
	if err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: set turn state %q", turnID)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return dispatch.ErrTurnNotFound.With(nil, "sqlitestore: no turn %q", turnID)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM gates WHERE turn_id = ?`, turnID); err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: set turn state %q", turnID)
	}
	for i, g := range gates {
		if _, err := tx.ExecContext(ctx, `INSERT INTO gates (turn_id, id, position, reason, tool_call_id, payload, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, turnID, g.ID, i, g.Reason, g.ToolCallID, []byte(g.Payload), g.CreatedAt.UnixNano()); err != nil {
			return dispatch.ErrStore.With(err, "sqlitestore: save gate %q", g.ID)
		}
	}
	return nil
}

// Turn implements dispatch.ConversationStore.
func (s *Store) Turn(ctx context.Context, turnID string) (dispatch.TurnInfo, bool, error) {
	ts, err := s.turns(ctx, `WHERE id = ?`, turnID)
	if err != nil || len(ts) == 0 {
		return dispatch.TurnInfo{}, false, err
	}
	return ts[0], true, nil
}

// Turns implements dispatch.ConversationStore.
func (s *Store) Turns(ctx context.Context, convID string) ([]dispatch.TurnInfo, error) {
	return s.turns(ctx, `WHERE conversation_id = ? ORDER BY position`, convID)
}

func (s *Store) turns(ctx context.Context, where string, arg string) ([]dispatch.TurnInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, conversation_id, state, started_at, updated_at FROM turns `+where, arg)
	if err != nil {
		return nil, dispatch.ErrStore.With(err, "sqlitestore: turns")
	}
	var out []dispatch.TurnInfo
	for rows.Next() {
		var t dispatch.TurnInfo
		var state string
		var started, updated int64
		if err := rows.Scan(&t.ID, &t.ConversationID, &state, &started, &updated); err != nil {
			rows.Close()
			return nil, dispatch.ErrStore.With(err, "sqlitestore: turns")
		}
		t.State, t.StartedAt, t.UpdatedAt = dispatch.TurnState(state), time.Unix(0, started), time.Unix(0, updated)
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, dispatch.ErrStore.With(err, "sqlitestore: turns")
	}
	for i := range out {
		if st := out[i].State; st != dispatch.TurnSuspended && st != dispatch.TurnRunning {
			continue // only a waiting turn has gates
		}
		gates, err := s.gates(ctx, out[i].ID)
		if err != nil {
			return nil, err
		}
		out[i].Gates = gates
	}
	return out, nil
}

func (s *Store) gates(ctx context.Context, turnID string) ([]dispatch.OpenGate, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, reason, tool_call_id, payload, created_at FROM gates
		WHERE turn_id = ? ORDER BY position`, turnID)
	if err != nil {
		return nil, dispatch.ErrStore.With(err, "sqlitestore: gates of %q", turnID)
	}
	defer rows.Close()
	var out []dispatch.OpenGate
	for rows.Next() {
		var g dispatch.OpenGate
		var payload []byte
		var created int64
		if err := rows.Scan(&g.ID, &g.Reason, &g.ToolCallID, &payload, &created); err != nil {
			return nil, dispatch.ErrStore.With(err, "sqlitestore: gates of %q", turnID)
		}
		g.Payload, g.CreatedAt = json.RawMessage(payload), time.Unix(0, created).UTC()
		out = append(out, g)
	}
	return out, rows.Err()
}

// Conversations implements dispatch.ConversationStore.
func (s *Store) Conversations(ctx context.Context) ([]dispatch.ConversationInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.created_at, c.updated_at,
		(SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id) FROM conversations c
		ORDER BY c.updated_at DESC, c.id`)
	if err != nil {
		return nil, dispatch.ErrStore.With(err, "sqlitestore: conversations")
	}
	defer rows.Close()
	var out []dispatch.ConversationInfo
	for rows.Next() {
		var c dispatch.ConversationInfo
		var created, updated int64
		if err := rows.Scan(&c.ID, &created, &updated, &c.Turns); err != nil {
			return nil, dispatch.ErrStore.With(err, "sqlitestore: conversations")
		}
		c.CreatedAt, c.UpdatedAt = time.Unix(0, created), time.Unix(0, updated)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, dispatch.ErrStore.With(err, "sqlitestore: conversations")
	}
	return out, nil
}

// DeleteConversation implements dispatch.ConversationStore: the
// conversation's turns, entries, gates and spooled artifacts go with it.
func (s *Store) DeleteConversation(ctx context.Context, convID string) (bool, error) {
	ids, err := s.turnIDs(ctx, `SELECT id FROM turns WHERE conversation_id = ?`, convID)
	if err != nil {
		return false, err
	}
	var n int64
	err = s.dropTurns(ctx, ids, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, convID)
		if err == nil {
			n, _ = r.RowsAffected()
		}
		return err
	})
	if err != nil {
		return false, dispatch.ErrStore.With(err, "sqlitestore: delete conversation %q", convID)
	}
	return n > 0, nil
}

// Prune applies the retention (Options.MaxAge, Options.MaxTurns) now and
// returns how many turns it dropped; Open and StartTurn call it. Call it
// on a schedule when conversations may stop without a new turn starting.
func (s *Store) Prune(ctx context.Context) (int, error) { return s.prune(ctx, "") }

// prune is Prune, with MaxTurns applied to conversation convID only when
// convID is set (a turn of it just started).
func (s *Store) prune(ctx context.Context, convID string) (int, error) {
	dropped := 0
	if s.maxAge > 0 {
		cutoff := time.Now().Add(-s.maxAge).UnixNano()
		convs, err := s.turnIDs(ctx, `SELECT id FROM conversations c WHERE updated_at < ?
			AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.conversation_id = c.id AND t.state IN ('running', 'suspended'))`, cutoff)
		if err != nil {
			return 0, err
		}
		for _, c := range convs {
			n, err := s.countTurns(ctx, c)
			if err != nil {
				return dropped, err
			}
			if _, err := s.DeleteConversation(ctx, c); err != nil {
				return dropped, err
			}
			dropped += n
		}
	}
	if s.maxTurns > 0 {
		// Every turn with at least maxTurns newer turns in its conversation.
		ids, err := s.turnIDs(ctx, `SELECT id FROM turns t WHERE (?1 = '' OR conversation_id = ?1)
			AND state NOT IN ('running', 'suspended')
			AND (SELECT COUNT(*) FROM turns n WHERE n.conversation_id = t.conversation_id AND n.position > t.position) >= ?2`,
			convID, s.maxTurns)
		if err != nil {
			return dropped, err
		}
		if err := s.dropTurns(ctx, ids, nil); err != nil {
			return dropped, dispatch.ErrStore.With(err, "sqlitestore: prune")
		}
		dropped += len(ids)
	}
	return dropped, nil
}

func (s *Store) countTurns(ctx context.Context, convID string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM turns WHERE conversation_id = ?`, convID).Scan(&n); err != nil {
		return 0, dispatch.ErrStore.With(err, "sqlitestore: prune")
	}
	return n, nil
}

// turnIDs runs a query selecting one text column.
func (s *Store) turnIDs(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dispatch.ErrStore.With(err, "sqlitestore: select ids")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, dispatch.ErrStore.With(err, "sqlitestore: select ids")
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// dropTurns deletes the turns, their entries and gates in one transaction
// (with also, when set, run in it), then their spooled artifacts. A crash
// between the two leaves files no turn references; Open sweeps them.
func (s *Store) dropTurns(ctx context.Context, ids []string, also func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, id := range ids {
		for _, q := range []string{`DELETE FROM entries WHERE turn_id = ?`, `DELETE FROM gates WHERE turn_id = ?`, `DELETE FROM turns WHERE id = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
	}
	if also != nil {
		if err := also(tx); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for _, id := range ids {
		// The runner spools a turn's output under the turn's scope.
		if _, err := spooledartifact.NewScope(s.spool, id, nil).Cleanup(ctx); err != nil {
			return fmt.Errorf("delete the artifacts of %q: %w", id, err)
		}
	}
	return nil
}

// orphanAge is how old a temporary spool file must be for Open to remove
// it: a younger one may be another process's write in progress.
const orphanAge = time.Hour

// sweepOrphans deletes the spooled artifacts of turns the database does
// not hold (left by a crash between dropping turns and deleting their
// files), and temporary files of writes a crash cut off. An artifact whose
// id has no turn scope is not the store's, and stays.
func (s *Store) sweepOrphans(ctx context.Context) error {
	ids, err := s.spool.List(ctx, "")
	if err != nil {
		return err
	}
	var turns []string
	if len(ids) > 0 {
		if turns, err = s.turnIDs(ctx, `SELECT id FROM turns UNION SELECT DISTINCT turn_id FROM entries`); err != nil {
			return err
		}
	}
	scopes := make(map[string]bool, len(turns))
	for _, t := range turns {
		scopes[spooledartifact.NewScope(s.spool, t, nil).Prefix()] = true
	}
	for _, id := range ids {
		i := strings.IndexByte(id, '/')
		if i < 0 || scopes[id[:i+1]] {
			continue
		}
		if _, err := s.spool.Delete(ctx, id); err != nil {
			return err
		}
	}
	_, err = s.spool.Sweep(ctx, time.Now().Add(-orphanAge), func(string) bool { return true })
	return err
}

// saveMedia keeps a media result's record, with its bytes when its reader
// cannot describe itself, so that Load can rebuild it.
func saveMedia(ctx context.Context, tx *sql.Tx, m *media.Media) error {
	rec, err := m.Record()
	if err != nil {
		b, berr := m.Bytes(ctx, maxMediaBytes)
		if berr != nil {
			return dispatch.ErrStore.With(berr, "sqlitestore: read media %q", m.ID())
		}
		md := m.Metadata()
		inMem, nerr := media.New(media.Raw{ID: md.ID, Kind: md.Kind, MIMEType: md.MIMEType, Filename: md.Filename,
			Reader: media.NewMemoryReader(b), TrustTier: md.TrustTier, Hazard: md.ModalityHazard, Source: md.Source, Stash: md.Stash})
		if nerr != nil {
			return dispatch.ErrStore.With(nerr, "sqlitestore: media %q", m.ID())
		}
		if rec, err = inMem.Record(); err != nil {
			return dispatch.ErrStore.With(err, "sqlitestore: media %q", m.ID())
		}
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: media %q", m.ID())
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO media (id, record) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET record = excluded.record`, m.ID(), body); err != nil {
		return dispatch.ErrStore.With(err, "sqlitestore: media %q", m.ID())
	}
	return nil
}

func (s *Store) media(ctx context.Context, id string) (*media.Media, error) {
	var body []byte
	err := s.db.QueryRowContext(ctx, `SELECT record FROM media WHERE id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlitestore: media %q: %w", id, spooledartifact.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	var rec media.Metadata
	if err := json.Unmarshal(body, &rec); err != nil {
		return nil, err
	}
	return media.FromRecord(rec, nil)
}

// resolver resolves a stored call's artifacts; one whose bytes are gone
// becomes a goneArtifact instead of failing the load.
type resolver struct{ spooledartifact.Resolver }

func (r resolver) ResolveArtifact(ctx context.Context, kind, id string) (forge.Artifact, error) {
	a, err := r.Resolver.ResolveArtifact(ctx, kind, id)
	if errors.Is(err, spooledartifact.ErrNotFound) {
		return goneArtifact{kind: kind, id: id}, nil
	}
	return a, err
}

// goneArtifact stands for an artifact whose bytes are no longer stored:
// every read fails with spooledartifact.ErrNotFound.
type goneArtifact struct{ kind, id string }

func (g goneArtifact) ID() string   { return g.id }
func (g goneArtifact) Kind() string { return g.kind }
func (g goneArtifact) err() error {
	return fmt.Errorf("sqlitestore: artifact %q: %w", g.id, spooledartifact.ErrNotFound)
}
func (g goneArtifact) ByteLength(context.Context) (int64, error) { return 0, g.err() }
func (g goneArtifact) LineCount(context.Context) (int, error)    { return 0, g.err() }
func (g goneArtifact) ReadAll(context.Context) ([]byte, error)   { return nil, g.err() }
