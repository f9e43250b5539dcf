package canonical

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestDbgSplit(t *testing.T) {
	doc, _ := os.ReadFile("/tmp/doc10.json")
	for r := 0; r < 2; r++ {
		t0 := time.Now()
		for k := 0; k < 20; k++ {
			checksumJSON("search_orders", doc, splitAuto, 0)
		}
		splitT := time.Since(t0) / 20
		t0 = time.Now()
		for k := 0; k < 20; k++ {
			checksumJSON("search_orders", doc, -1, 0)
		}
		serial := time.Since(t0) / 20
		at := splitGuess(doc, len(doc)*4/10)
		t0 = time.Now()
		for k := 0; k < 20; k++ {
			st := getState()
			st.run(doc, at, MaxDepth, false, passWorker, &split{poll: pollInterval, ready: make(chan struct{}, 1)})
			putState(st)
		}
		worker := time.Since(t0) / 20
		fmt.Println("split", splitT, "serial", serial, "worker alone (60%)", worker)
	}
}
