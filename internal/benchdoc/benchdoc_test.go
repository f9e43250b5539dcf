package benchdoc_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/ebbforge/adk/internal/benchdoc"
)

// The documents must not change silently: recorded benchmark figures and
// the reference comparison refer to these exact bytes.
func TestRecordsStable(t *testing.T) {
	cases := []struct {
		size int
		sum  string
	}{
		{1 << 10, "2085a45f7a3fc5a84abd5f5dfcfa13f7a81390bdaa036f7844ca4ba651e91016"},
		{100 << 10, "4afdfbb1a7c3fa7617c789729f2850ff37b8ef426b2a71ede05d70ca8a8c296c"},
		{10 << 20, "56fc10fc7a853b6ecd3fffa36e52f121803e172359425c698f839647ce38fd2b"},
	}
	for _, c := range cases {
		doc := benchdoc.Records(c.size)
		if !json.Valid(doc) {
			t.Fatalf("Records(%d) is not valid JSON", c.size)
		}
		if len(doc) > c.size || len(doc) < c.size-512 {
			t.Errorf("Records(%d) is %d bytes", c.size, len(doc))
		}
		sum := sha256.Sum256(doc)
		if got := hex.EncodeToString(sum[:]); got != c.sum {
			t.Errorf("Records(%d) sha256 = %s, want %s", c.size, got, c.sum)
		}
	}
}
