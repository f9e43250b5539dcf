// Package benchdoc builds the argument documents the checksum benchmarks
// measure, so the go test benchmarks and the reference comparison under
// bench/ hash the same bytes.
package benchdoc

import (
	"fmt"
	"strconv"
)

// Records deterministically builds a JSON argument document of about size
// bytes: an object holding an array of records with strings (some needing
// escapes, some non-ASCII), integers, decimals (some with trailing zeros
// JavaScript drops, 17-digit ones), booleans, nulls and nested objects,
// every object's keys deliberately out of order.
func Records(size int) []byte {
	b := []byte(`{"query":"find \"recent\" orders","records":[`)
	seed := uint32(1)
	rnd := func() uint32 { // xorshift32
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return seed
	}
	words := []string{"alpha", "beta", "gamma", "delta", "émigré", "naïve", "東京", "path/to/file", "line\\nbreak", "tab\\tstop"}
	for i := 0; len(b) < size-200; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"id":%d,"name":"%s %s","score":%d.%02d,"ratio":%s,"active":%t,"tags":["%s","%s"],`,
			rnd()%1000000, words[rnd()%10], words[rnd()%10], rnd()%1000, rnd()%100,
			strconv.FormatFloat(float64(rnd())/float64(1<<32), 'g', -1, 64), rnd()%2 == 0, words[rnd()%10], words[rnd()%10])
		b = fmt.Appendf(b, `"address":{"street":"%d %s Street","city":"%s","zip":"%05d","geo":{"lon":%d.%06d,"lat":-%d.%06d}},"note":null,"count":%d}`,
			rnd()%9999, words[rnd()%10], words[rnd()%10], rnd()%100000, rnd()%180, rnd()%1000000, rnd()%90, rnd()%1000000, rnd()%100)
	}
	return append(b, `],"limit":100}`...)
}
