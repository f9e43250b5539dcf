package dispatch_test

import (
	"sync"
	"testing"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/dispatch/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	var mu sync.Mutex
	stores := map[string]*dispatch.MemoryStore{}
	storetest.Run(t, storetest.Harness{
		// An in-memory store cannot be reopened: the same location gives
		// the same store, as a process that never stopped would see it.
		Open: func(t *testing.T, loc string) dispatch.ConversationStore {
			mu.Lock()
			defer mu.Unlock()
			if stores[loc] == nil {
				stores[loc] = dispatch.NewMemoryStore()
			}
			return stores[loc]
		},
	})
}
