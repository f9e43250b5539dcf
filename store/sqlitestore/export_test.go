package sqlitestore_test

import (
	"context"
	"time"

	"github.com/ebbforge/adk/store/sqlitestore"
)

var storetestTime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func openErr(path string) (*sqlitestore.Store, error) {
	return sqlitestore.Open(context.Background(), path, nil)
}
