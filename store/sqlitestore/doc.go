// Package sqlitestore keeps conversations in one SQLite database file: it
// is a dispatch.ConversationStore (turn timelines, conversations, turn
// states and the open approval gates of waiting or suspended turns) plus a durable
// spool store for the tools' artifacts, in a directory next to the file.
//
//	st, err := sqlitestore.Open(ctx, "chat.db", nil)
//	...
//	defer st.Close()
//	runner, err := turnrunner.New(model, &turnrunner.Options{
//		Store: st, SpoolStore: st.SpoolStore(),
//	})
//
// It uses database/sql with no ORM. The default driver is the pure-Go
// modernc.org/sqlite (no cgo), registered as "sqlite" by importing this
// package; [Options.Driver] and [Options.DSN] swap in another SQLite driver.
// The database runs in WAL mode with a busy timeout, so readers never block
// the writer and a second process waits for the lock instead of failing.
// The schema carries a version and is migrated by Open.
//
// Entries are stored as their JSON form (dispatch.Entry.MarshalJSON), keyed
// by (turn, sequence): a new entry is appended with the next sequence, a
// replaced one keeps its place. Every write is its own transaction, so a
// process killed mid-turn leaves exactly what it had saved; see
// dispatch.ConversationStore for how the cut-off turn is then marked.
//
// Retention is off by default: [Options.MaxTurns] and [Options.MaxAge] drop
// old turns and idle conversations with their spooled files (see
// [Store.Prune]), and Open sweeps spooled files no stored turn references.
package sqlitestore
