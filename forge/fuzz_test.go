package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/canonical"
)

// FuzzExecute feeds arbitrary argument bytes to typed and untyped tools:
// Execute must never panic and must return either an Output or a coded error.
func FuzzExecute(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"city":"Oslo","days":3}`, `{"a":1,"b":"x"}`, `[]`, `null`, `"x"`, `{"a":`,
		`{"days":1e400}`, `{"city":"\ud800"}`, `{"units":"metric","tags":[null]}`, ` {"a" : 1e-7 } `, `{"a":1}{"a":2}`} {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"max":9007199254740993}`, `{"name":"abc","NAME":"x","list":[{"Units":1}]}`, `{"num":1e400,"raw":[1]}`} {
		f.Add([]byte(s))
	}
	typed := weatherTool(f, nil)
	untyped := mustTool(f, objSchema, echoHandler, nil)
	open := mustTool(f, json.RawMessage(`{"type":"object","additionalProperties":true}`), echoHandler, nil)
	// Typed tools with exact big numbers, case-folded key checks, and
	// json.Number / json.RawMessage fields.
	var big bigArgs
	var openTyped openArgs
	var nums numArgs
	typedMore := []*Tool{typedTool(f, &big), typedTool(f, &openTyped), typedTool(f, &nums)}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, tool := range append([]*Tool{typed, untyped, open}, typedMore...) {
			out, err := tool.Execute(context.Background(), raw, Invocation{}, nil)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, ErrInvalidToolArgs) {
					t.Fatalf("%s(%q): uncoded or unexpected error %v", tool.Name(), raw, err)
				}
				continue
			}
			if out.Kind() != OutputText {
				t.Fatalf("%s(%q): output kind %v", tool.Name(), raw, out.Kind())
			}
		}
	})
}

// FuzzPlainInteger checks plainInteger against exact rational arithmetic:
// whatever it respells has the same value, in plain digits, and it respells
// every integer of up to 20 digits written with a fraction or exponent.
func FuzzPlainInteger(f *testing.F) {
	for _, s := range []string{"1e2", "-1.50e1", "0.0", "1e-1", "9007199254740.993e3", "1e20", "100", "-0e5", "1.000e+003"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		var n json.Number
		if json.Unmarshal([]byte(lit), &n) != nil || string(n) != lit || len(lit) > 64 {
			return // only JSON number literals, kept small for big.Rat
		}
		if i := strings.IndexAny(lit, "eE"); i >= 0 {
			if e, err := strconv.Atoi(lit[i+1:]); err != nil || e < -1000 || e > 1000 {
				if _, done := plainInteger(lit); done && strings.Trim(lit[:i], "-0.") != "" {
					t.Fatalf("plainInteger(%q) respelled a number past its exponent range", lit)
				}
				return
			}
		}
		want, ok := new(big.Rat).SetString(lit)
		if !ok {
			t.Fatalf("big.Rat cannot parse %q", lit)
		}
		got, done := plainInteger(lit)
		if !done {
			plain := !strings.ContainsAny(lit, ".eE")
			if want.IsInt() && !plain && len(strings.TrimPrefix(want.Num().String(), "-")) <= 20 {
				t.Fatalf("plainInteger(%q) declined an integer %s", lit, want.Num())
			}
			return
		}
		if strings.ContainsAny(got, ".eE+") {
			t.Fatalf("plainInteger(%q) = %q, not plain digits", lit, got)
		}
		if r, ok := new(big.Rat).SetString(got); !ok || r.Cmp(want) != 0 {
			t.Fatalf("plainInteger(%q) = %q, value differs", lit, got)
		}
	})
}

// FuzzClosedRoot: for a valid JSON document closedRoot returns it
// unchanged, or that object with exactly one more root key
// (additionalProperties or unevaluatedProperties, false) that it lacked,
// added exactly when the root had none of the three keywords, and never
// unevaluatedProperties for a draft before 2019-09; or, for such a draft
// whose root composes subschemas, an error. Invalid input must not panic.
func FuzzClosedRoot(f *testing.F) {
	for _, s := range []string{`{}`, ` { "type" : "object" } `, `{"type":"object","additionalProperties":true}`,
		`{"allOf":[{}]}`, `[1]`, `{"a":`, `{"properties":{"additionalProperties":{}}}`, `{"a":1}{}`,
		`{"additional\u0050roperties":true}`, `{"d":"\"additionalProperties\"","x":[{"a":"}"}]}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","allOf":[{}]}`, `{"$schema":"http://json-schema.org/draft-04/schema"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		in := string(doc)
		got, err := closedRoot(doc)
		if string(doc) != in {
			t.Fatalf("closedRoot changed its input")
		}
		if !json.Valid(doc) {
			return
		}
		var before map[string]json.RawMessage
		isObject := json.Unmarshal(doc, &before) == nil && before != nil
		speaks := false
		for _, k := range []string{"additionalProperties", "patternProperties", "unevaluatedProperties"} {
			if _, ok := before[k]; ok {
				speaks = true
			}
		}
		var schema string
		_ = json.Unmarshal(before["$schema"], &schema)
		old := preDraft2019(schema) != ""
		if err != nil {
			if !isObject || speaks || !old {
				t.Fatalf("closedRoot(%q): unexpected error %v", in, err)
			}
			return
		}
		if !isObject || speaks {
			if string(got) != in {
				t.Fatalf("closedRoot(%q) = %q, want it unchanged", in, got)
			}
			return
		}
		var after map[string]json.RawMessage
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("closedRoot(%q) = %q: %v", in, got, err)
		}
		if len(after) != len(before)+1 || string(after["additionalProperties"])+string(after["unevaluatedProperties"]) != "false" {
			t.Fatalf("closedRoot(%q) = %q: want exactly one closing key more", in, got)
		}
		if _, ok := after["unevaluatedProperties"]; ok && old {
			t.Fatalf("closedRoot(%q) = %q: unevaluatedProperties under %s, which ignores it", in, got, schema)
		}
	})
}

// FuzzToolCallJSON: whatever NewToolCall accepts, json.Marshal writes and
// UnmarshalToolCall reads back as the same call: the same id and tool, the
// same instants, args and payload with the same JSON value, a checksum that
// verifies as before, and a re-encoding identical to the first.
func FuzzToolCallJSON(f *testing.F) {
	f.Add("call_1", "weather", []byte(`{"city":"Oslo"}`), []byte(`{"sig":"abc"}`), int64(1767323045), int64(6), 0)
	f.Add("appel_é", "météo", []byte(`{"q":"a<b && c>d \u2028"}`), []byte(`{"html":"<b>"}`), int64(-2208988800), int64(0), 19*60+32)
	f.Add("\xff", "get\xe2\x82", []byte(`{"q":"\u003c\ud800"}`), []byte(`null`), int64(253402300799), int64(999999999), -(4*3600 + 56*60 + 2))
	f.Add("c", "t", []byte("{\"q\":\"\xff\"}"), []byte(``), int64(-62167219200), int64(0), 3600)
	f.Fuzz(func(t *testing.T, id, tool string, args, payload []byte, sec, nsec int64, offset int) {
		at := time.Unix(sec, nsec).In(time.FixedZone("", offset))
		sum, err := canonical.ChecksumJSON(tool, args)
		if err != nil {
			sum = sum64
		}
		c, err := NewToolCall(RawToolCall{ID: id, Tool: tool, Args: args, Checksum: sum,
			Results: NewTokenizable("sunny"), IsComplete: true, CreatedAt: at, CompletedAt: at.Add(time.Nanosecond),
			Payload: payload, ReplayCompatibility: "x"})
		if err != nil {
			if !errors.Is(err, ErrInvalidInitialToolCallValue) {
				t.Fatalf("NewToolCall: uncoded error %v", err)
			}
			return
		}
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("accepted by NewToolCall, but json.Marshal: %v", err)
		}
		back, err := UnmarshalToolCall(context.Background(), data, nil)
		if err != nil {
			t.Fatalf("UnmarshalToolCall: %v\n%s", err, data)
		}
		if back.ID() != c.ID() || back.Tool() != c.Tool() {
			t.Fatalf("id, tool %q %q came back as %q %q", c.ID(), c.Tool(), back.ID(), back.Tool())
		}
		for _, p := range [][2]time.Time{{c.CreatedAt(), back.CreatedAt()}, {c.UpdatedAt(), back.UpdatedAt()}, {c.CompletedAt(), back.CompletedAt()}} {
			if !p[0].Equal(p[1]) {
				t.Fatalf("time %v came back as %v", p[0], p[1])
			}
		}
		if !sameJSONValue(c.Args(), back.Args()) || !sameJSONValue(c.Payload(), back.Payload()) {
			t.Fatalf("args or payload changed value: %s %s -> %s %s", c.Args(), c.Payload(), back.Args(), back.Payload())
		}
		if (c.VerifyChecksum() == nil) != (back.VerifyChecksum() == nil) {
			t.Fatalf("checksum verified %v before the round trip, %v after", c.VerifyChecksum(), back.VerifyChecksum())
		}
		again, err := json.Marshal(back)
		if err != nil || string(again) != string(data) {
			t.Fatalf("re-encoding differs (%v):\n%s\n%s", err, data, again)
		}
	})
}

// sameJSONValue reports whether a and b decode to equal values (numbers
// compared as written); two empty inputs are equal.
func sameJSONValue(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	decode := func(data []byte) any {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return nil
		}
		return v
	}
	va, vb := decode(a), decode(b)
	return va != nil && cmp.Equal(va, vb)
}

// FuzzMayRoundNumber holds the cheap scan typed tools use to decide whether
// float64 validation is exact: when it says no, every number literal in the
// arguments has the value of its float64's shortest spelling, which is what
// the validator compares. It never panics.
func FuzzMayRoundNumber(f *testing.F) {
	for _, s := range []string{`{"n":123456789012345}`, `{"n":1.5e300}`, `{"n":-1e-400}`, `{"n":2.5e-310}`,
		`{"a":[0.1,1e99,-0.0]}`, `{"s":"e123"}`, `{"n":1E+400}`, `{"n":0.00000000000001e-99}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if mayRoundNumber(b) {
			return
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return
		}
		var check func(v any)
		check = func(v any) {
			switch v := v.(type) {
			case json.Number:
				f, err := strconv.ParseFloat(v.String(), 64)
				lit, ok1 := new(big.Rat).SetString(v.String())
				short, ok2 := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
				if err != nil || !ok1 || !ok2 || lit.Cmp(short) != 0 {
					t.Errorf("mayRoundNumber(%s) = false, but %s is %v as a float64", b, v, f)
				}
			case []any:
				for _, e := range v {
					check(e)
				}
			case map[string]any:
				for _, e := range v {
					check(e)
				}
			}
		}
		check(v)
	})
}
