package forge

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeArgs must handle ordinary arguments itself (the fast path) and
// agree with encoding/json on them; it hands the rest back.
func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		raw  string
		fast bool // decodeArgs decodes it itself
	}{
		{`{}`, true},
		{` { } `, true},
		{`{"city":"Oslo","days":3}`, true},
		{`{"a":[1,-0.5e3,2E+2,true,false,null,{"b":{}},[]],"c":""}`, true},
		{`{"a":1,"a":2}`, true},
		{`{"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 x"}`, true},
		{`{"é":"ü€😀"}`, true},
		{`{"n":1e-400}`, true},
		{`{"n":9007199254740993}`, true},
		// Left to encoding/json: lone surrogates, invalid UTF-8, overflow.
		{`{"s":"\ud800"}`, false},
		{`{"s":"\udc00\ud800"}`, false},
		{"{\"s\":\"\xff\"}", false},
		{`{"n":1e400}`, false},
		// Invalid JSON.
		{`{"a":1}{"a":2}`, false},
		{`{"a":1,}`, false},
		{`{"a":[1,]}`, false},
		{`{"n":01}`, false},
		{`{"n":1.}`, false},
		{`{"n":.5}`, false},
		{`{"n":-}`, false},
		{`{"a":tru}`, false},
		{`{"a"}`, false},
		{`{"a":"b`, false},
		{"{\"a\":\"\x01\"}", false},
		{`{"s":"\x"}`, false},
		{`{"s":"\u00g0"}`, false},
		{`[]`, false},
		{``, false},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, ok := decodeArgs([]byte(tt.raw))
			if ok != tt.fast {
				t.Fatalf("decodeArgs ok = %v, want %v", ok, tt.fast)
			}
			if !ok {
				return
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.raw), &want); err != nil {
				t.Fatalf("encoding/json rejects it: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-encoding/json +decodeArgs):\n%s", diff)
			}
		})
	}
}

// Deep nesting beyond maxArgDepth goes to encoding/json.
func TestDecodeArgsDepth(t *testing.T) {
	deep := func(n int) []byte {
		b := []byte(`{"a":`)
		for range n {
			b = append(b, '[')
		}
		for range n {
			b = append(b, ']')
		}
		return append(b, '}')
	}
	if _, ok := decodeArgs(deep(maxArgDepth - 1)); !ok {
		t.Errorf("depth %d not decoded", maxArgDepth-1)
	}
	if _, ok := decodeArgs(deep(maxArgDepth + 1)); ok {
		t.Errorf("depth %d decoded, want it left to encoding/json", maxArgDepth+1)
	}
}
