package method_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/spooledartifact/internal/method"
)

func TestIntArg(t *testing.T) {
	for _, c := range []struct {
		name string
		v    any // nil: absent
		def  int
		want int
		bad  bool
	}{
		{"absent", nil, -1, -1, false},
		{"float", 3.0, 0, 3, false},
		{"float32", float32(7), 0, 7, false},
		{"int", 4, 0, 4, false},
		{"int64", int64(5), 0, 5, false},
		{"int8", int8(6), 0, 6, false},
		{"uint", uint(9), 0, 9, false},
		{"number", json.Number("12"), 0, 12, false},
		{"number float", json.Number("12.0"), 0, 12, false},
		{"zero", 0.0, 5, 0, false},
		{"fraction", 1.5, 0, 0, true},
		{"negative", -1.0, 0, 0, true},
		{"negative int", -1, 0, 0, true},
		{"negative int64", int64(-3), 0, 0, true},
		{"negative number", json.Number("-2"), 0, 0, true},
		{"huge", 1e300, 0, 0, true},
		{"nan", math.NaN(), 0, 0, true},
		{"inf", math.Inf(1), 0, 0, true},
		{"huge uint", uint64(math.MaxUint64), 0, 0, true},
		{"string", "3", 0, 0, true},
		{"bool", true, 0, 0, true},
		{"bad number", json.Number("x"), 0, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := map[string]any{"other": 1.0}
			if c.v != nil {
				args["n"] = c.v
			}
			got, err := method.IntArg(args, "n", c.def)
			if c.bad {
				if !errors.Is(err, forge.ErrInvalidToolArgs) || !strings.Contains(err.Error(), "n must be a non-negative integer") {
					t.Fatalf("IntArg(%v) = %d, %v; want ErrInvalidToolArgs naming n", c.v, got, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("IntArg(%v) = %d, %v; want %d", c.v, got, err, c.want)
			}
		})
	}
	if got, err := method.IntArg(map[string]any{"n": nil}, "n", 8); got != 8 || err != nil {
		t.Errorf("null: %d, %v; want the default", got, err)
	}
	if got, err := method.IntArg(nil, "n", 2); got != 2 || err != nil {
		t.Errorf("nil map: %d, %v; want the default", got, err)
	}
}

func TestLimitOr(t *testing.T) {
	for _, c := range []struct {
		name       string
		limit, def int
		want       int
	}{
		{"positive", 7, 100, 7},
		{"zero means default", 0, 100, 100},
		{"negative means default", -5, 100, 100},
		{"one", 1, 100, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := method.LimitOr(c.limit, c.def); got != c.want {
				t.Errorf("LimitOr(%d, %d) = %d, want %d", c.limit, c.def, got, c.want)
			}
			if got := method.LimitOr(int64(c.limit), int64(c.def)); got != int64(c.want) {
				t.Errorf("LimitOr[int64](%d, %d) = %d, want %d", c.limit, c.def, got, c.want)
			}
		})
	}
}

func TestStringArg(t *testing.T) {
	s, ok, err := method.StringArg(map[string]any{"p": "a.b"}, "p")
	if s != "a.b" || !ok || err != nil {
		t.Errorf("string: %q %v %v", s, ok, err)
	}
	s, ok, err = method.StringArg(map[string]any{"p": ""}, "p")
	if s != "" || !ok || err != nil {
		t.Errorf("empty string: %q %v %v; want present", s, ok, err)
	}
	for _, args := range []map[string]any{nil, {}, {"p": nil}} {
		if s, ok, err := method.StringArg(args, "p"); s != "" || ok || err != nil {
			t.Errorf("absent %v: %q %v %v", args, s, ok, err)
		}
	}
	if _, ok, err := method.StringArg(map[string]any{"p": 3.0}, "p"); ok || !errors.Is(err, forge.ErrInvalidToolArgs) {
		t.Errorf("number: %v %v; want ErrInvalidToolArgs", ok, err)
	}
}

func TestCapAnswer(t *testing.T) {
	for _, c := range []struct {
		name, s string
		limit   int
		hint    string
		want    string
	}{
		{"fits", "abc", 3, "h", "abc"},
		{"line boundary", strings.Repeat("line\n", 40), 80, "narrow it",
			"line\nline\nline\nline\n(truncated: answer capped at 80 of 200 bytes; narrow it)"},
		{"no hint", strings.Repeat("x", 100), 60, "", strings.Repeat("x", 14) + "\n(truncated: answer capped at 60 of 100 bytes)"},
		{"tiny limit", "abcdef", 2, "", "\n(truncated: answer capped at 2 of 6 bytes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := method.CapAnswer(c.s, c.limit, c.hint)
			if got != c.want {
				t.Errorf("CapAnswer = %q\nwant %q", got, c.want)
			}
			if len(c.s) > c.limit && c.limit >= 60 && len(got) > c.limit {
				t.Errorf("answer %d bytes > limit %d", len(got), c.limit)
			}
		})
	}
	// A cut inside one long line never splits a rune.
	s := strings.Repeat("é", 100) // 200 bytes
	for limit := 60; limit < 70; limit++ {
		got := method.CapAnswer(s, limit, "")
		if !utf8.ValidString(got) || len(got) > limit {
			t.Errorf("limit %d: %d bytes, valid UTF-8 %v", limit, len(got), utf8.ValidString(got))
		}
	}
}

func ExampleCapAnswer() {
	fmt.Println(method.CapAnswer(strings.Repeat("row\n", 30), 72, "narrow the range"))
	// Output:
	// row
	// row
	// (truncated: answer capped at 72 of 120 bytes; narrow the range)
}
