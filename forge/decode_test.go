package forge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeCases are documents where gjson and encoding/json could part ways;
// decodeObject must give encoding/json's answer for each.
var decodeCases = []string{
	`{}`, `{"city":"Oslo","days":3}`, `{"a":1,"a":2}`, `{"a":{"b":[1,2,{"c":null}]},"d":true,"e":false}`,
	`{"n":-0,"m":1e-7,"big":9007199254740993,"f":0.1}`, `{"over":1e400}`, `{"deep":[{"over":-1e999}]}`,
	`{"esc":"a\"b\\c\/d\b\f\n\r\t"}`, `{"lone":"\ud800"}`, `{"lone":"\ud800\u0041"}`, `{"pair":"\ud83d\ude00"}`,
	`{"bad":"` + "\xff\xfe" + `"}`, `{"ctl":"` + "\x01" + `"}`, `{"a":01}`, `{"a":1,}`, `{"a" 1}`, `{"a":1}x`,
	`{"a":1} `, ` {"a":1}`, `{"a":[1,2,]}`, `{"a":tru}`, `{"a":"x`, `{"é":"東京"}`, `{"a":1.}`, `{"a":.5}`,
	`{"a":+1}`, `{"a":1e}`, `{"a":NaN}`, `{"":""}`,
}

func TestDecodeObjectMatchesEncodingJSON(t *testing.T) {
	docs := append([]string(nil), decodeCases...)
	docs = append(docs, `{"d":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+`}`)
	for _, doc := range docs {
		checkDecode(t, []byte(doc))
	}
}

// FuzzDecodeObject holds decodeObject to encoding/json's result for every
// input: the same map, or an error from both.
func FuzzDecodeObject(f *testing.F) {
	for _, doc := range decodeCases {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '{' {
			return // decodeObject's precondition
		}
		checkDecode(t, b)
	})
}

func checkDecode(t *testing.T, b []byte) {
	t.Helper()
	var want map[string]any
	wantErr := json.Unmarshal(b, &want)
	got, err := decodeObject(b, nil)
	switch {
	case (err != nil) != (wantErr != nil):
		t.Fatalf("decodeObject(%q) error = %v, encoding/json's = %v", b, err, wantErr)
	case err != nil:
		if err.Error() != wantErr.Error() {
			t.Errorf("decodeObject(%q) error = %q, want encoding/json's %q", b, err, wantErr)
		}
	case !sameJSON(want, got): // cmp.Diff only then: it is slow on deep nesting
		t.Errorf("decodeObject(%q) differs from encoding/json (-want +got):\n%s", b, cmp.Diff(want, got))
	}
}
