package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
)

// migrations[i] brings the schema from version i to i+1. Append only: a
// released migration never changes.
var migrations = []string{
	`CREATE TABLE conversations (
		id         TEXT PRIMARY KEY,
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
	CREATE TABLE turns (
		id              TEXT PRIMARY KEY,
		conversation_id TEXT NOT NULL REFERENCES conversations (id),
		position        INTEGER NOT NULL,
		state           TEXT NOT NULL,
		started_at      INTEGER NOT NULL,
		updated_at      INTEGER NOT NULL
	);
	CREATE INDEX turns_by_conversation ON turns (conversation_id, position);
	CREATE TABLE entries (
		turn_id  TEXT NOT NULL,
		seq      INTEGER NOT NULL,
		kind     TEXT NOT NULL,
		entry_id TEXT NOT NULL,
		body     BLOB NOT NULL,
		PRIMARY KEY (turn_id, seq),
		UNIQUE (turn_id, kind, entry_id)
	);
	CREATE TABLE gates (
		turn_id      TEXT NOT NULL,
		id           TEXT NOT NULL,
		position     INTEGER NOT NULL,
		reason       TEXT NOT NULL,
		tool_call_id TEXT NOT NULL,
		payload      BLOB,
		created_at   INTEGER NOT NULL,
		PRIMARY KEY (turn_id, id)
	);
	CREATE TABLE media (
		id     TEXT PRIMARY KEY,
		record BLOB NOT NULL
	);`,
	// Version 2: tool approval payloads under their JSON names
	// (toolCallId, tool, args, checksum) instead of the Go field names.
	`UPDATE gates SET payload = CAST(json_object(
		'toolCallId', CAST(payload AS TEXT) ->> '$.ToolCallID',
		'tool', CAST(payload AS TEXT) ->> '$.Tool',
		'args', CAST(payload AS TEXT) -> '$.Args',
		'checksum', CAST(payload AS TEXT) ->> '$.Checksum') AS BLOB)
	WHERE json_valid(CAST(payload AS TEXT)) AND json_type(CAST(payload AS TEXT), '$.ToolCallID') = 'text'`,
}

// migrate creates the version table and applies the missing migrations,
// each in its own transaction with the version it reaches.
func migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return ErrOpen.With(err, "sqlitestore: create schema_version")
	}
	for {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return ErrOpen.With(err, "sqlitestore: migrate")
		}
		v, err := version(ctx, tx)
		if err != nil {
			tx.Rollback()
			return err
		}
		if v > len(migrations) {
			tx.Rollback()
			return ErrSchemaVersion.With(nil, "sqlitestore: the database has schema version %d; this package knows up to %d", v, len(migrations))
		}
		if v == len(migrations) {
			return tx.Commit()
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return ErrOpen.With(err, "sqlitestore: migrate to version %d", v+1)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
			tx.Rollback()
			return ErrOpen.With(err, "sqlitestore: migrate")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, v+1); err != nil {
			tx.Rollback()
			return ErrOpen.With(err, "sqlitestore: migrate")
		}
		if err := tx.Commit(); err != nil {
			return ErrOpen.With(err, "sqlitestore: migrate to version %d", v+1)
		}
	}
}

func version(ctx context.Context, tx *sql.Tx) (int, error) {
	var v int
	err := tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, ErrOpen.With(err, "sqlitestore: read schema version")
	}
	return v, nil
}
