package sqlitestore

import "github.com/ebbforge/adk/forge"

// Error codes owned by sqlitestore; failures of the store's operations are
// dispatch.ErrStore (or dispatch.ErrTurnNotFound), as for any store.
const (
	CodeOpen          forge.Code = "E_SQLITESTORE_OPEN"
	CodeSchemaVersion forge.Code = "E_SQLITESTORE_SCHEMA_VERSION"
)

var (
	// ErrOpen reports a database or spool that could not be opened or migrated.
	ErrOpen = &forge.Error{Code: CodeOpen, Status: 500, Fatal: true}
	// ErrSchemaVersion reports a database written by a newer version of
	// this package.
	ErrSchemaVersion = &forge.Error{Code: CodeSchemaVersion, Status: 500, Fatal: true}
)
