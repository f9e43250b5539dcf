package forge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// typedTool builds a typed tool for A whose handler stores its arguments
// in *got.
func typedTool[A any](t testing.TB, got *A) *Tool {
	t.Helper()
	tool, err := NewTypedTool("t", "d", func(_ context.Context, a A, _ Invocation) (Output, error) {
		*got = a
		return TextOutput(""), nil
	}, nil)
	if err != nil {
		t.Fatalf("NewTypedTool: %v", err)
	}
	return tool
}

type numArgs struct {
	Num  json.Number      `json:"num,omitempty"`
	PNum *json.Number     `json:"pnum,omitempty"`
	Raw  json.RawMessage  `json:"raw,omitempty"`
	PRaw *json.RawMessage `json:"praw,omitempty"`
}

// json.Number holds a JSON number and json.RawMessage any JSON value, as
// encoding/json decodes them; the derived schema says so.
func TestTypedToolNumberAndRawMessage(t *testing.T) {
	var got numArgs
	tool := typedTool(t, &got)
	raw := func(s string) *json.RawMessage { r := json.RawMessage(s); return &r }
	num := func(s string) *json.Number { n := json.Number(s); return &n }
	tests := []struct {
		args string
		want numArgs
		bad  string // field the error names; "" for success
	}{
		{`{"num":5}`, numArgs{Num: "5"}, ""},
		{`{"num":-1.5e300}`, numArgs{Num: "-1.5e300"}, ""},
		{`{"num":123456789012345678901234567890}`, numArgs{Num: "123456789012345678901234567890"}, ""},
		{`{"num":"5"}`, numArgs{}, "num"},
		{`{"pnum":null}`, numArgs{}, ""},
		{`{"pnum":7}`, numArgs{PNum: num("7")}, ""},
		{`{"raw":{"a":[1,"x"]}}`, numArgs{Raw: json.RawMessage(`{"a":[1,"x"]}`)}, ""},
		{`{"raw":"s"}`, numArgs{Raw: json.RawMessage(`"s"`)}, ""},
		{`{"raw":3}`, numArgs{Raw: json.RawMessage(`3`)}, ""},
		{`{"raw":[true]}`, numArgs{Raw: json.RawMessage(`[true]`)}, ""},
		{`{"raw":null}`, numArgs{Raw: json.RawMessage(`null`)}, ""},
		{`{"praw":{"b":2}}`, numArgs{PRaw: raw(`{"b":2}`)}, ""},
		{`{"praw":false}`, numArgs{PRaw: raw(`false`)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) { typedCall(t, tool, tt.args, &got, tt.want, tt.bad) })
	}
}

type pageArgs struct {
	Limit int `json:"limit"`
}

type taggedEmbed struct {
	pageArgs `json:"page"`
	Q        string `json:"q"`
}

type quotedArgs struct {
	N int `json:"n,string"`
}

type Inner struct {
	Name string `json:"name"`
	Nick string `json:"nick,omitempty"`
}

// The outer Title comes first: jsonschema.For keeps the embedded Name
// (the last of the name), encoding/json the outer (the shallowest).
type outerFirst struct {
	Title string `json:"name"`
	Inner
}

type innerA struct {
	X string `json:"x"`
}

type innerB struct {
	Z int `json:"x"`
}

// Two embedded fields named "x" at the same depth: encoding/json drops both.
// (innerB is embedded by pointer, which go vet does not look through.)
type sameDepth struct {
	innerA
	*innerB
	Y string `json:"y"`
}

// The outer Nick hides the embedded one's Go name, not its json name.
type goNameShadow struct {
	Inner
	Nick string `json:"alias,omitempty"`
}

type badTagName struct {
	A string `json:"a'b"`
}

type nestedBad struct {
	Items []quotedArgs `json:"items"`
}

// Embedded types other than structs are named fields to encoding/json;
// jsonschema.For leaves them out.
type Label string

type embeddedString struct {
	Label
	Q string `json:"q"`
}

// Struct shapes on which the derived schema and encoding/json would part
// ways are refused at construction, naming the field.
func TestTypedToolDisagreeingShapesRefused(t *testing.T) {
	tests := []struct {
		name string
		make func() (*Tool, error)
		want string
	}{
		{"tagged embedded struct", newNoop[taggedEmbed], `field taggedEmbed.pageArgs: an embedded struct with a json tag ("page")`},
		{",string option", newNoop[quotedArgs], `field quotedArgs.N: the ",string" option is not supported`},
		{",string below the root", newNoop[nestedBad], `field quotedArgs.N: the ",string" option`},
		{"outer and embedded share a name", newNoop[outerFirst], `fields outerFirst.Title and outerFirst.Inner.Name share the json name "name", ` +
			`which the derived schema cannot tell apart (encoding/json decodes outerFirst.Title)`},
		{"outer declared last", newNoop[outerLast], `fields outerLast.Inner.Name and outerLast.Title share the json name "name"`},
		{"same depth", newNoop[sameDepth], `fields sameDepth.innerA.X and sameDepth.innerB.Z share the json name "x", ` +
			`which the derived schema cannot tell apart (encoding/json decodes none of them)`},
		{"Go name shadows a json name", newNoop[goNameShadow], `field goNameShadow.Inner.Nick: encoding/json decodes it as "nick"`},
		{"tag encoding/json does not accept", newNoop[badTagName], `field badTagName.A: encoding/json decodes it as "A"`},
		{"tag encoding/json does not accept, schema side", newNoop[badTagName], `field badTagName.A: the derived schema describes it as "a'b", a json tag encoding/json does not accept`},
		{"embedded non-struct", newNoop[embeddedString], `field embeddedString.Label: encoding/json decodes it as "Label"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.make()
			if !errors.Is(err, ErrInvalidInitialToolValue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want ErrInvalidInitialToolValue containing %q", err, tt.want)
			}
		})
	}
}

type plainShadow struct {
	plainInner
	Title string `json:"title"`
}

type plainInner struct {
	Name  string `json:"name"`
	Title string `json:"other"` // hidden by the outer Title's Go name, not its json name
}

type namedPtr struct {
	*plainInner `json:"inner"`
	Name        int `json:"-,"`
	Skip        int `json:"-"`
}

// jsonFields is encoding/json's view of a struct: the names json.Marshal
// writes for a value with every field present.
func TestJSONFieldsAsEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"plain", pageArgs{}},
		{"tagged embedded", taggedEmbed{}},
		{"untagged embedded", untaggedEmbed{}},
		{"outer and embedded share a json name", outerFirst{Inner: Inner{Nick: "k"}}},
		{"Go name shadowing", plainShadow{}},
		{"invalid tag", badTagName{}},
		{"embedded string", embeddedString{}},
		{"tagged embedded pointer, dash names", namedPtr{plainInner: &plainInner{}}},
		{"same depth", sameDepth{innerB: &innerB{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			want := slices.Sorted(maps.Keys(m))
			got := slices.Sorted(maps.Keys(jsonFields(reflect.TypeOf(tt.v))))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("jsonFields names (-json.Marshal +got):\n%s", diff)
			}
		})
	}
}

func newNoop[A any]() (*Tool, error) {
	return NewTypedTool("t", "d", func(context.Context, A, Invocation) (Output, error) { return TextOutput(""), nil }, nil)
}

type untaggedEmbed struct {
	pageArgs
	Q string `json:"q"`
}

// The embedded one comes first, so jsonschema.For keeps the outer Title,
// as encoding/json does, but lists "name" as required twice.
type outerLast struct {
	Inner
	Title string `json:"name"`
}

// The outer Name hides Inner.Name from both.
type goNameHidden struct {
	Inner
	Name string `json:"name"`
}

type stringOnStruct struct {
	P pageArgs `json:"p,string"` // encoding/json ignores ,string here
}

// Shapes both read alike are accepted and decode as validated.
func TestTypedToolAgreeingShapes(t *testing.T) {
	t.Run("untagged embedded struct", func(t *testing.T) {
		var got untaggedEmbed
		tool := typedTool(t, &got)
		if _, err := tool.Execute(context.Background(), json.RawMessage(`{"limit":5,"q":"x"}`), Invocation{CallID: "c"}, nil); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(untaggedEmbed{pageArgs{5}, "x"}, got, cmp.AllowUnexported(untaggedEmbed{})); diff != "" {
			t.Errorf("args (-want +got):\n%s", diff)
		}
	})
	t.Run("outer field hides the embedded one's Go name", func(t *testing.T) {
		var got goNameHidden
		tool := typedTool(t, &got)
		if _, err := tool.Execute(context.Background(), json.RawMessage(`{"name":"n","nick":"k"}`), Invocation{CallID: "c"}, nil); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(goNameHidden{Inner: Inner{Nick: "k"}, Name: "n"}, got); diff != "" {
			t.Errorf("args (-want +got):\n%s", diff)
		}
	})
	t.Run(",string on a struct", func(t *testing.T) {
		var got stringOnStruct
		tool := typedTool(t, &got)
		if _, err := tool.Execute(context.Background(), json.RawMessage(`{"p":{"limit":2}}`), Invocation{CallID: "c"}, nil); err != nil {
			t.Fatal(err)
		}
		if got.P.Limit != 2 {
			t.Errorf("p.limit = %d, want 2", got.P.Limit)
		}
	})
}

// openArgs lets unknown keys through, at the root and in Opt.
type openArgs struct {
	Name string             `json:"name"`
	Opt  *openOpt           `json:"opt,omitempty"`
	List []openOpt          `json:"list,omitempty"`
	Map  map[string]openOpt `json:"map,omitempty"`
}

type openOpt struct {
	Units string `json:"units,omitempty"`
}

func (openArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.AdditionalProperties = nil
	s.Properties["name"].MaxLength = jsonschema.Ptr(3)
	opt := s.Properties["opt"]
	opt.AdditionalProperties = &jsonschema.Schema{}
	s.Properties["list"].Items.AdditionalProperties = nil
	s.Properties["map"].AdditionalProperties.AdditionalProperties = nil
	return nil
}

// encoding/json matches keys to fields without regard to case; where the
// schema lets unknown keys through, a key that differs from a field's name
// only in case would reach the field unvalidated, so it is refused.
func TestTypedToolCaseFoldedKeysRefused(t *testing.T) {
	var got openArgs
	tool := typedTool(t, &got)
	tests := []struct {
		args string
		bad  []string // problems' leading fields; nil for success
	}{
		{`{"name":"abc","NAME":"much too long"}`, []string{"NAME: unexpected key"}},
		{`{"name":"abc","nAmE":"x"}`, []string{"nAmE: unexpected key"}},
		{`{"name":"abc","other":1}`, nil},
		{`{"name":"abc","opt":{"units":"si","extra":1}}`, nil},
		{`{"name":"abc","opt":{"UNITS":"si"}}`, []string{"opt.UNITS: unexpected key"}},
		{`{"name":"abc","list":[{"units":"a"},{"Units":"b"}]}`, []string{"list.1.Units: unexpected key"}},
		{`{"name":"abc","map":{"K":{"uNits":"b"}}}`, []string{"map.K.uNits: unexpected key"}},
		{`{"name":"abc","map":{"Units":{}}}`, nil}, // map keys are not fields
		{`{"name":"abc","ſ":1}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			_, err := tool.Execute(context.Background(), json.RawMessage(tt.args), Invocation{CallID: "c"}, nil)
			if tt.bad == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidToolArgs) {
				t.Fatalf("err = %v, want ErrInvalidToolArgs", err)
			}
			mentionsAll(t, err, tt.bad...)
		})
	}
}

// A schema that refuses unknown keys already refuses such keys: no guard,
// no cost.
func TestTypedToolClosedSchemaHasNoKeyGuard(t *testing.T) {
	var got weatherArgs
	tool := typedTool(t, &got)
	if tool.keys != nil {
		t.Errorf("closed typed tool has a key guard")
	}
	_, err := tool.Validate(json.RawMessage(`{"CITY":"Oslo","city":"Oslo"}`))
	mentionsAll(t, err, `unexpected additional properties ["CITY"]`)
}

// celsius decodes itself from a JSON number or a string such as "21C".
type celsius struct{ Deg float64 }

func (c *celsius) UnmarshalJSON(b []byte) error {
	if s, err := strconv.Unquote(string(b)); err == nil {
		b = []byte(strings.TrimSuffix(s, "C"))
	}
	return json.Unmarshal(b, &c.Deg)
}

// level decodes itself from a JSON string only.
type level struct{ Name string }

func (l *level) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return errors.New("empty level")
	}
	l.Name = string(b)
	return nil
}

type selfDecodingArgs struct {
	Temp  celsius   `json:"temp"`
	PTemp *celsius  `json:"ptemp,omitempty"`
	Level level     `json:"level,omitempty"`
	Big   *big.Int  `json:"big,omitempty"`
	Temps []celsius `json:"temps,omitempty"`
}

// A type that decodes itself is described by what its method takes, not by
// its fields: any JSON value for UnmarshalJSON, a string for UnmarshalText,
// an integer for big.Int; the method's own error names the field.
func TestTypedToolSelfDecodingFields(t *testing.T) {
	var got selfDecodingArgs
	tool := typedTool(t, &got)
	tests := []struct {
		args string
		want selfDecodingArgs
		bad  string
	}{
		{`{"temp":21.5}`, selfDecodingArgs{Temp: celsius{21.5}}, ""},
		{`{"temp":"21C","ptemp":3,"temps":[1,"2C"]}`, selfDecodingArgs{Temp: celsius{21}, PTemp: &celsius{3}, Temps: []celsius{{1}, {2}}}, ""},
		{`{"temp":0,"level":"warn"}`, selfDecodingArgs{Level: level{"warn"}}, ""},
		{`{"temp":0,"big":123456789012345678901234567890}`, selfDecodingArgs{Big: bigInt("123456789012345678901234567890")}, ""},
		{`{"temp":"hot"}`, selfDecodingArgs{}, "temp"},
		{`{"temp":0,"level":5}`, selfDecodingArgs{}, "level"},
		{`{"temp":0,"big":"12"}`, selfDecodingArgs{}, "big"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			typedCall(t, tool, tt.args, &got, tt.want, tt.bad,
				cmp.Comparer(func(a, b *big.Int) bool { return a == nil && b == nil || a != nil && b != nil && a.Cmp(b) == 0 }))
		})
	}
}

func bigInt(s string) *big.Int {
	n, _ := new(big.Int).SetString(s, 10)
	return n
}

// selfDecodingRoot fills in a default in its own UnmarshalJSON.
type selfDecodingRoot struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty"`
}

func (r *selfDecodingRoot) UnmarshalJSON(b []byte) error {
	type plain selfDecodingRoot
	p := plain{Days: 7}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = selfDecodingRoot(p)
	return nil
}

// The arguments type itself may decode itself: it keeps its fields' schema.
func TestTypedToolSelfDecodingRoot(t *testing.T) {
	var got selfDecodingRoot
	tool := typedTool(t, &got)
	typedCall(t, tool, `{"city":"Oslo"}`, &got, selfDecodingRoot{City: "Oslo", Days: 7}, "")
	typedCall(t, tool, `{"city":"Oslo","extra":1}`, &got, selfDecodingRoot{}, `unexpected additional properties ["extra"]`)
}

// csv is a slice type that decodes itself from "a,b".
type csv []string

func (c *csv) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*c = strings.Split(s, ",")
	return nil
}

type csvArgs struct {
	Tags csv `json:"tags"`
}

// A slice type that decodes itself is what its method takes too.
func TestTypedToolSelfDecodingSlice(t *testing.T) {
	var got csvArgs
	tool := typedTool(t, &got)
	typedCall(t, tool, `{"tags":"a,b"}`, &got, csvArgs{Tags: csv{"a", "b"}}, "")
	typedCall(t, tool, `{"tags":["a"]}`, &got, csvArgs{}, "tags")
}

type boundedNumber struct {
	N json.Number `json:"n"`
}

func (boundedNumber) CustomizeSchema(s *jsonschema.Schema) error {
	zero := 0.0
	s.Properties["n"].Minimum = &zero
	return nil
}

// A literal a float64 underflows is validated as written: -1e-400 is below
// a minimum of 0 though its float64 is -0.
func TestTypedToolUnderflowValidatedExactly(t *testing.T) {
	var got boundedNumber
	tool := typedTool(t, &got)
	typedCall(t, tool, `{"n":-1e-400}`, &got, boundedNumber{}, "n")
	typedCall(t, tool, `{"n":1e-400}`, &got, boundedNumber{N: "1e-400"}, "")
}

type foldedArgs struct {
	Name string `json:"abcdefghij"`
}

func (foldedArgs) CustomizeSchema(s *jsonschema.Schema) error {
	s.AdditionalProperties = &jsonschema.Schema{}
	return nil
}

// However many keys are wrong, a refusal lists a bounded number of
// problems in a bounded message.
func TestKeyProblemsBounded(t *testing.T) {
	var got foldedArgs
	tool := typedTool(t, &got)
	var b strings.Builder
	b.WriteString(`{`)
	for i := 1; i < 1024; i++ { // case variants of the field name
		k := []byte("abcdefghij")
		for j := range 10 {
			if i&(1<<j) != 0 {
				k[j] -= 'a' - 'A'
			}
		}
		fmt.Fprintf(&b, "%q:1,", k)
	}
	b.WriteString(`"abcdefghij":"x"}`)
	_, err := tool.Validate(json.RawMessage(b.String()))
	if probs := problemsOf(t, err); len(probs) > maxProblems {
		t.Errorf("%d problems for case-folded keys, want at most %d", len(probs), maxProblems)
	}

	closed := mustTool(t, json.RawMessage(`{"type":"object","properties":{"a":{}}}`), echoHandler, nil)
	b.Reset()
	b.WriteString(`{`)
	for i := range 5000 {
		fmt.Fprintf(&b, `"%s%d":1,`, strings.Repeat("k", 100), i)
	}
	b.WriteString(`"a":1}`)
	_, err = closed.Validate(json.RawMessage(b.String()))
	if !errors.Is(err, ErrInvalidToolArgs) || len(err.Error()) > 8<<10 {
		t.Errorf("5000 unknown keys: a %d-byte message (%.200s)", len(err.Error()), err)
	}
	mentionsAll(t, err, "unexpected additional properties")
	if !strings.Contains(err.Error(), "and 4980 more") {
		t.Errorf("the message does not say how many keys it left out: %.300s", err)
	}
}
