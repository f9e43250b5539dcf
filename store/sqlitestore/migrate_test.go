package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/turnrunner"
)

// A database of schema version 1 holds approval payloads under the Go
// field names; Open migrates it, and the gate then holds the JSON names
// and decodes as before. Other payloads are left as they are.
func TestMigrateGatePayloads(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open(DefaultDriver, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		migrations[0],
		`INSERT INTO schema_version (version) VALUES (1)`,
		`INSERT INTO conversations (id, created_at, updated_at) VALUES ('c', 1, 1)`,
		`INSERT INTO turns (id, conversation_id, position, state, started_at, updated_at) VALUES ('t', 'c', 1, 'suspended', 1, 1)`,
		`INSERT INTO gates (turn_id, id, position, reason, tool_call_id, payload, created_at) VALUES
			('t', 'g1', 0, 'tool pay requires approval', 'p1', CAST('{"ToolCallID":"p1","Tool":"pay","Args":{"amount":500},"Checksum":"ab"}' AS BLOB), 1),
			('t', 'g2', 1, 'asked by a tool', '', CAST('{"question":"which?"}' AS BLOB), 2)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	st, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v int
	if err := st.DB().QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d, %v; want %d", v, err, SchemaVersion)
	}
	info, _, err := st.Turn(ctx, "t")
	if err != nil || len(info.Gates) != 2 {
		t.Fatalf("gates %+v, %v", info.Gates, err)
	}
	if got, want := string(info.Gates[0].Payload), `{"toolCallId":"p1","tool":"pay","args":{"amount":500},"checksum":"ab"}`; got != want {
		t.Errorf("migrated payload %s, want %s", got, want)
	}
	var a turnrunner.ToolApproval
	if err := json.Unmarshal(info.Gates[0].Payload, &a); err != nil {
		t.Fatal(err)
	}
	want := turnrunner.ToolApproval{ToolCallID: "p1", Tool: "pay", Args: json.RawMessage(`{"amount":500}`), Checksum: "ab"}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if got := string(info.Gates[1].Payload); got != `{"question":"which?"}` {
		t.Errorf("another gate's payload became %s", got)
	}
}
