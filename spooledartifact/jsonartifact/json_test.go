package jsonartifact_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"iter"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/internal/golden"
	"github.com/ebbforge/adk/internal/heapwatch"
	"github.com/ebbforge/adk/spooledartifact"
	"github.com/ebbforge/adk/spooledartifact/jsonartifact"
)

var update = flag.Bool("update", false, "rewrite golden files")

// callTool runs the forged method named tool of k over a.
func callTool(t *testing.T, k jsonartifact.Kind, a forge.Artifact, tool string, args map[string]any) (string, error) {
	t.Helper()
	for _, m := range k.Methods() {
		if m.Tool == tool {
			return m.Call(context.Background(), a, args)
		}
	}
	t.Fatalf("no method %s", tool)
	return "", nil
}

func wrap(t *testing.T, k jsonartifact.Kind, r spooledartifact.Reader) forge.Artifact {
	t.Helper()
	a, err := k.Wrap(context.Background(), "call_1", r)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// exportJSONL is a small JSON Lines export, generated: blank lines, CRLF and
// a record that is not an object are part of the format.
func exportJSONL() string {
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, `{"id":%d,"name":"user%d","age":%d,"roles":[%s]}`+"\n", i, i, 20+i*7, strings.Repeat(`"r",`, i%3)+`"base"`)
		if i == 2 {
			b.WriteString("\r\n   \n")
		}
	}
	b.WriteString(`{"id":5,"extra":{"nested":true},"roles":[]}` + "\r\n")
	b.WriteString(`"not an object"` + "\n")
	return b.String()
}

func TestConformance(t *testing.T) {
	api, err := os.ReadFile("testdata/api_response.json")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{
		"api":   string(api),
		"jsonl": exportJSONL(),
		"json5": "// orders\n{id: 'ord_1', items: [{price: 10,}, {price: 0x20}, {price: +.5}], note: 'single', ratio: -Infinity,}\n",
	}
	cases := []struct {
		doc, tool string
		args      map[string]any
	}{
		{"api", "artifact_json_type", nil},
		{"api", "artifact_json_keys", nil},
		{"api", "artifact_json_length", nil},
		{"api", "artifact_json_get", map[string]any{"path": "data.#.id"}},
		{"api", "artifact_json_get", map[string]any{"path": "data.0.customer"}},
		{"api", "artifact_json_get", map[string]any{"path": "$.meta.big_id"}},
		{"api", "artifact_json_get", map[string]any{"path": "data.#(status==\"paid\").items.#(price>20)#.title"}},
		{"api", "artifact_json_get", map[string]any{"path": "nope.nothing"}},
		{"api", "artifact_json_filter", map[string]any{"path": "data.#(total>50)#"}},
		{"api", "artifact_json_filter", map[string]any{"path": "data.#(total>500)#"}},
		{"api", "artifact_json_slice", map[string]any{"start": 3.0, "end": 4.0}},
		{"api", "artifact_json_slice", map[string]any{"end": 0.0}},
		{"api", "artifact_json_pluck", map[string]any{"path": "data.#.items.#.sku"}},
		{"api", "artifact_json_pluck", map[string]any{"path": "data.#.customer.email"}},
		{"api", "artifact_json_pluck", map[string]any{"path": "data.#.items.#(price>10)#.title"}},
		{"api", "artifact_json_pluck", map[string]any{"path": "data.#.items.#"}},
		{"jsonl", "artifact_json_type", nil},
		{"jsonl", "artifact_json_keys", nil},
		{"jsonl", "artifact_json_length", nil},
		{"jsonl", "artifact_json_get", map[string]any{"path": "name"}},
		{"jsonl", "artifact_json_get", map[string]any{"path": "roles.#(==\"r\")#"}},
		{"jsonl", "artifact_json_filter", map[string]any{"path": "#(age>30)"}},
		{"jsonl", "artifact_json_filter", map[string]any{"path": "extra.nested"}},
		{"jsonl", "artifact_json_slice", map[string]any{"start": 1.0, "end": 3.0}},
		{"jsonl", "artifact_json_slice", map[string]any{"start": 5.0}},
		{"jsonl", "artifact_json_slice", map[string]any{"end": 0.0}},
		{"jsonl", "artifact_json_pluck", map[string]any{"path": "roles.#"}},
		{"jsonl", "artifact_json_pluck", map[string]any{"path": "roles"}},
		{"jsonl", "artifact_json_pluck", map[string]any{"path": "$"}},
		{"json5", "artifact_json_type", nil},
		{"json5", "artifact_json_keys", nil},
		{"json5", "artifact_json_get", map[string]any{"path": "items.#.price"}},
		{"json5", "artifact_json_slice", nil},
	}
	for _, c := range cases {
		name := c.doc + "_" + strings.TrimPrefix(c.tool, "artifact_json_")
		if p, ok := c.args["path"]; ok {
			name += "_" + sanitize(fmt.Sprint(p))
		}
		for _, k := range []string{"start", "end"} {
			if v, ok := c.args[k]; ok {
				name += fmt.Sprintf("_%s%v", k, v)
			}
		}
		t.Run(name, func(t *testing.T) {
			k := jsonartifact.Kind{}
			got, err := callTool(t, k, wrap(t, k, newMem(docs[c.doc])), c.tool, c.args)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, name, got, *update)
		})
	}
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' {
			return r
		}
		return '-'
	}, s)
}

func TestFormat(t *testing.T) {
	cases := []struct {
		name    string
		hint    jsonartifact.Format
		content string
		want    jsonartifact.Format
		err     error
	}{
		{"object", "", `{"a":1}`, jsonartifact.FormatJSON, nil},
		{"padded scalar", "", "  42 \n", jsonartifact.FormatJSON, nil},
		{"lines", "", "{\"a\":1}\n{\"a\":2}\n", jsonartifact.FormatJSONL, nil},
		{"one line jsonl is json", "", "{\"a\":1}\n", jsonartifact.FormatJSON, nil},
		{"lines with blanks and crlf", "", "1\r\n\r\n[2]\r\n", jsonartifact.FormatJSONL, nil},
		{"json5", "", "{a: 1, // c\n b: [1,2,],}", jsonartifact.FormatJSON5, nil},
		{"empty", "", "", jsonartifact.FormatJSONL, nil},
		{"ndjson never inferred", "", "1\n2\n", jsonartifact.FormatJSONL, nil},
		{"ndjson hint", jsonartifact.FormatNDJSON, "1\n2\n", jsonartifact.FormatNDJSON, nil},
		{"jsonl hint over one line", jsonartifact.FormatJSONL, "{\"a\":1}\n", jsonartifact.FormatJSONL, nil},
		{"json hint", jsonartifact.FormatJSON, `[1]`, jsonartifact.FormatJSON, nil},
		{"json hint not json", jsonartifact.FormatJSON, "1\n2\n", "", jsonartifact.ErrUnsupportedFormat},
		{"json5 hint", jsonartifact.FormatJSON5, `{a:'x'}`, jsonartifact.FormatJSON5, nil},
		{"json5 hint two values", jsonartifact.FormatJSON5, `{a:1} {b:2}`, "", jsonartifact.ErrUnsupportedFormat},
		{"unknown hint", "xml", `<a/>`, "", jsonartifact.ErrUnsupportedFormat},
		{"garbage", "", `{"a":`, "", jsonartifact.ErrUnsupportedFormat},
		{"half lines", "", "{\"a\":1}\nnope\n", "", jsonartifact.ErrUnsupportedFormat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := jsonartifact.New("id", newMem(c.content), jsonartifact.Kind{Format: c.hint})
			got, err := a.Format(context.Background())
			if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if got != c.want {
				t.Errorf("format = %q, want %q", got, c.want)
			}
			var fe *forge.Error
			if err != nil && !errors.As(err, &fe) {
				t.Errorf("error %v is not a *forge.Error", err)
			}
		})
	}
}

// TestByteOrderMark: the reference trims its input with JavaScript's
// trim(), which removes a leading U+FEFF, so JSON, JSON Lines and JSON5
// written with a UTF-8 byte order mark are read as if it were not there,
// hinted or inferred, and no answer holds it.
func TestByteOrderMark(t *testing.T) {
	const bom = "\ufeff"
	for _, c := range []struct {
		name    string
		kind    jsonartifact.Kind
		content string
		want    jsonartifact.Format
		slice   string
	}{
		{"json", jsonartifact.Kind{}, bom + `{"a":1}`, jsonartifact.FormatJSON, "[\n  {\n    \"a\": 1\n  }\n]"},
		{"padded json", jsonartifact.Kind{}, bom + "\n  [1] \n", jsonartifact.FormatJSON, "[\n  [\n    1\n  ]\n]"},
		{"json hint", jsonartifact.Kind{Format: jsonartifact.FormatJSON}, bom + `{"a":1}`, jsonartifact.FormatJSON, "[\n  {\n    \"a\": 1\n  }\n]"},
		{"jsonl", jsonartifact.Kind{}, bom + "{\"a\":1}\n{\"a\":2}\n", jsonartifact.FormatJSONL, "[\n  {\n    \"a\": 1\n  },\n  {\n    \"a\": 2\n  }\n]"},
		{"jsonl hint", jsonartifact.Kind{Format: jsonartifact.FormatNDJSON}, bom + "{\"a\":1}\n{\"a\":2}\n", jsonartifact.FormatNDJSON, "[\n  {\n    \"a\": 1\n  },\n  {\n    \"a\": 2\n  }\n]"},
		{"jsonl above MaxDocumentBytes", jsonartifact.Kind{MaxDocumentBytes: 8}, bom + "{\"a\":1}\n{\"a\":2}\n", jsonartifact.FormatJSONL, "[\n  {\n    \"a\": 1\n  },\n  {\n    \"a\": 2\n  }\n]"},
		{"json5", jsonartifact.Kind{}, bom + "{a: 1, // c\n}", jsonartifact.FormatJSON5, "[\n  {\n    \"a\": 1\n  }\n]"},
		{"json5 hint", jsonartifact.Kind{Format: jsonartifact.FormatJSON5}, bom + "{a: 1,}", jsonartifact.FormatJSON5, "[\n  {\n    \"a\": 1\n  }\n]"},
		// trim removes whitespace and U+FEFF alike, in any order.
		{"json, whitespace first", jsonartifact.Kind{}, " \n" + bom + `{"a":1}`, jsonartifact.FormatJSON, "[\n  {\n    \"a\": 1\n  }\n]"},
		{"jsonl, blank line first", jsonartifact.Kind{}, "\n" + bom + "{\"a\":1}\n{\"a\":2}\n", jsonartifact.FormatJSONL, "[\n  {\n    \"a\": 1\n  },\n  {\n    \"a\": 2\n  }\n]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.kind == (jsonartifact.Kind{}) {
				if f, _, err := jsonartifact.Detect([]byte(c.content)); err != nil || f != c.want {
					t.Errorf("Detect = %q, %v; want %q", f, err, c.want)
				}
			}
			a := wrap(t, c.kind, newMem(c.content))
			for _, q := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"artifact_json_type", nil, string(c.want)},
				{"artifact_json_slice", nil, c.slice},
				{"artifact_json_filter", map[string]any{"path": "@this"}, c.slice},
			} {
				got, err := callTool(t, c.kind, a, q.tool, q.args)
				if err != nil || got != q.want || strings.Contains(got, bom) {
					t.Errorf("%s = %q, %v; want %q", q.tool, got, err, q.want)
				}
			}
		})
	}
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("document above MaxDocumentBytes", func(t *testing.T) {
		doc := "{\n  \"a\": [1, 2, 3]\n}\n"
		a := jsonartifact.New("id", newMem(doc), jsonartifact.Kind{MaxDocumentBytes: 8})
		if _, err := a.Format(ctx); !errors.Is(err, jsonartifact.ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		a = jsonartifact.New("id", newMem(doc), jsonartifact.Kind{Format: jsonartifact.FormatJSON, MaxDocumentBytes: 8})
		if _, err := a.Length(ctx); !errors.Is(err, jsonartifact.ErrTooLarge) {
			t.Fatalf("hinted: err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("json lines above MaxDocumentBytes", func(t *testing.T) {
		a := jsonartifact.New("id", newMem(exportJSONL()), jsonartifact.Kind{MaxDocumentBytes: 8})
		f, err := a.Format(ctx)
		if err != nil || f != jsonartifact.FormatJSONL {
			t.Fatalf("format = %q, %v", f, err)
		}
		// Only the first MiB is checked up front: the bad last line surfaces
		// when a query reaches it.
		big := strings.Repeat(exportJSONL(), (2<<20)/len(exportJSONL()))
		bad := jsonartifact.New("id", newMem(big+"{oops\n"), jsonartifact.Kind{MaxDocumentBytes: 8})
		if f, err := bad.Format(ctx); err != nil || f != jsonartifact.FormatJSONL {
			t.Fatalf("format = %q, %v", f, err)
		}
		if _, err := bad.Length(ctx); !errors.Is(err, jsonartifact.ErrInvalidRecord) {
			t.Fatalf("err = %v, want ErrInvalidRecord", err)
		}
	})
	t.Run("record above MaxRecordBytes", func(t *testing.T) {
		content := "1\n" + `"` + strings.Repeat("x", 400<<10) + `"` + "\n3\n"
		a := jsonartifact.New("id", newMem(content), jsonartifact.Kind{Format: jsonartifact.FormatJSONL, MaxRecordBytes: 300 << 10})
		if _, err := a.Length(ctx); !errors.Is(err, jsonartifact.ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		a = jsonartifact.New("id", newMem(content), jsonartifact.Kind{Format: jsonartifact.FormatJSONL})
		if n, err := a.Length(ctx); err != nil || n != 3 {
			t.Fatalf("length = %d, %v; want 3 (a long line spans bufio buffers)", n, err)
		}
	})
	t.Run("cap notes per format", func(t *testing.T) {
		// Only JSON Lines can be paged with artifact_json_slice: on a single
		// json/json5 document slice answers [root] whatever the range, so a
		// note sending the model there loops. The note says to narrow the
		// path with an index or a query instead.
		var doc, lines strings.Builder
		doc.WriteString(`{"items":[`)
		for i := range 30 {
			if i > 0 {
				doc.WriteByte(',')
			}
			fmt.Fprintf(&doc, `{"id":"item-%04d"}`, i)
			fmt.Fprintf(&lines, `{"items":[{"id":"item-%04d"}]}`+"\n", i)
		}
		doc.WriteString(`]}`)
		json5 := "// json5\n" + strings.Replace(doc.String(), `{"items"`, `{items`, 1)
		const docNote = "Narrow the path to fewer values with an index or a query, e.g. items.1000.id"
		for _, c := range []struct {
			name, content string
			kind          jsonartifact.Kind
			tool, path    string
			note          string
		}{
			{"json pluck", doc.String(), jsonartifact.Kind{MaxMatches: 10}, "artifact_json_pluck", "items.#.id", docNote},
			{"json5 pluck", json5, jsonartifact.Kind{MaxMatches: 10}, "artifact_json_pluck", "items.#.id", docNote},
			{"json pluck byte cap", doc.String(), jsonartifact.Kind{MaxAnswerBytes: 120}, "artifact_json_pluck", "items.#.id", docNote},
			{"json filter byte cap", doc.String(), jsonartifact.Kind{MaxAnswerBytes: 120}, "artifact_json_filter", "items", docNote},
			{"json slice byte cap", doc.String(), jsonartifact.Kind{MaxAnswerBytes: 120}, "artifact_json_slice", "", docNote},
			{"jsonl pluck", lines.String(), jsonartifact.Kind{MaxMatches: 10}, "artifact_json_pluck", "items.#.id", "page with artifact_json_slice"},
			{"jsonl get", lines.String(), jsonartifact.Kind{MaxMatches: 10}, "artifact_json_get", "items.0.id", "page with artifact_json_slice"},
		} {
			t.Run(c.name, func(t *testing.T) {
				a := wrap(t, c.kind, newMem(c.content))
				got, err := callTool(t, c.kind, a, c.tool, map[string]any{"path": c.path})
				if err != nil || !strings.Contains(got, "\n(truncated: ") || !strings.Contains(got, c.note) {
					t.Fatalf("%s = %q, %v; want a note with %q", c.tool, got, err, c.note)
				}
				if c.note == docNote && strings.Contains(got, "page with artifact_json_slice") {
					t.Errorf("%s on a single document says to page with artifact_json_slice: %q", c.tool, got)
				}
			})
		}
	})
	t.Run("invalid record with hint", func(t *testing.T) {
		a := jsonartifact.New("id", newMem("1\n{nope}\n"), jsonartifact.Kind{Format: jsonartifact.FormatNDJSON})
		_, err := a.Length(ctx)
		if !errors.Is(err, jsonartifact.ErrInvalidRecord) || !strings.Contains(err.Error(), "line 1") {
			t.Fatalf("err = %v, want ErrInvalidRecord at line 1", err)
		}
	})
	t.Run("answer caps", func(t *testing.T) {
		k := jsonartifact.Kind{MaxMatches: 2}
		got, err := callTool(t, k, wrap(t, k, newMem(exportJSONL())), "artifact_json_pluck", map[string]any{"path": "id"})
		if err != nil {
			t.Fatal(err)
		}
		want := "[\n  0,\n  1\n]\n(truncated: first 2 values shown; more exist. Narrow the path or page with artifact_json_slice)"
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		k = jsonartifact.Kind{MaxAnswerBytes: 120}
		got, err = callTool(t, k, wrap(t, k, newMem(exportJSONL())), "artifact_json_slice", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got, "[\n  {\n    \"id\": 0,") || !strings.Contains(got, "\n]\n(truncated: 1 values shown;") {
			t.Errorf("byte cap: got %q", got)
		}
		k = jsonartifact.Kind{MaxMatches: 3}
		got, err = callTool(t, k, wrap(t, k, newMem(exportJSONL())), "artifact_json_keys", nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := "id\nname\nage\n(truncated: first 3 keys shown; more exist)"; got != want {
			t.Errorf("keys cap: got %q, want %q", got, want)
		}
	})
}

func TestToolArgs(t *testing.T) {
	k := jsonartifact.Kind{}
	a := wrap(t, k, newMem(exportJSONL()))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"artifact_json_get", nil},
		{"artifact_json_get", map[string]any{"path": 3}},
		{"artifact_json_filter", map[string]any{"path": "  "}},
		{"artifact_json_slice", map[string]any{"start": -1.0}},
		{"artifact_json_slice", map[string]any{"end": 1.5}},
		{"artifact_json_slice", map[string]any{"end": "2"}},
	} {
		t.Run(fmt.Sprint(c.tool, c.args), func(t *testing.T) {
			if _, err := callTool(t, k, a, c.tool, c.args); !errors.Is(err, forge.ErrInvalidToolArgs) {
				t.Fatalf("err = %v, want ErrInvalidToolArgs", err)
			}
		})
	}
	t.Run("integer kinds", func(t *testing.T) {
		for _, v := range []any{2, int64(2), 2.0, float32(2)} {
			got, err := callTool(t, k, a, "artifact_json_slice", map[string]any{"start": v, "end": v})
			if err != nil || got != "[]" {
				t.Errorf("%T: got %q, %v", v, got, err)
			}
		}
	})
	t.Run("not a json artifact", func(t *testing.T) {
		plain := spooledartifact.New("call_9", newMem("{}"))
		got, err := callTool(t, k, plain, "artifact_json_type", nil)
		if err != nil || got != "Error: tool call call_9 results are not a SpooledJsonArtifact instance" {
			t.Fatalf("got %q, %v", got, err)
		}
	})
}

func TestMethods(t *testing.T) {
	k := jsonartifact.Kind{}
	if got := k.Name(); got != "SpooledJsonArtifact" {
		t.Errorf("Name = %q", got)
	}
	a := wrap(t, k, newMem("{}"))
	if a.Kind() != "SpooledJsonArtifact" {
		t.Errorf("artifact Kind = %q", a.Kind())
	}
	if kinded, ok := a.(spooledartifact.Kinded); !ok || kinded.ArtifactKind() != spooledartifact.Kind(k) {
		t.Errorf("artifact is not Kinded with its kind")
	}
	var names []string
	for _, m := range k.Methods() {
		names = append(names, m.Tool)
		if !strings.Contains(m.Description, "produced earlier in this turn") {
			t.Errorf("%s: description lacks the turn phrase", m.Tool)
		}
		var params map[string]any
		if err := jsonUnmarshal(m.Params, &params); err != nil {
			t.Errorf("%s: params: %v", m.Tool, err)
		}
		for _, r := range m.Required {
			if _, ok := params[r]; !ok {
				t.Errorf("%s: required %q not in params", m.Tool, r)
			}
		}
		if _, ok := params["path"]; ok && !strings.Contains(m.Description, "gjson syntax") {
			t.Errorf("%s: path tool does not explain gjson syntax", m.Tool)
		}
	}
	want := []string{"artifact_json_type", "artifact_json_keys", "artifact_json_length", "artifact_json_get",
		"artifact_json_filter", "artifact_json_slice", "artifact_json_pluck"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestIterators(t *testing.T) {
	ctx := context.Background()
	a := jsonartifact.New("id", newMem(exportJSONL()), jsonartifact.Kind{})
	var lines []int
	for r, err := range a.Records(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, r.Line)
		if r.Index == 3 {
			break
		}
	}
	if diff := cmp.Diff([]int{0, 1, 2, 5}, lines); diff != "" {
		t.Errorf("record lines (-want +got):\n%s", diff)
	}
	var ids []string
	for v, err := range a.Pluck(ctx, "id") {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, string(v))
	}
	if diff := cmp.Diff([]string{"0", "1", "2", "3", "4", "5"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	keys, ok, err := a.Keys(ctx)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if diff := cmp.Diff([]string{"id", "name", "age", "roles", "extra"}, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	single := jsonartifact.New("id", newMem(`[1,2]`), jsonartifact.Kind{})
	if _, ok, err := single.Keys(ctx); ok || err != nil {
		t.Errorf("array root keys: ok=%v err=%v, want undefined", ok, err)
	}
	var got []string
	for r, err := range single.Slice(ctx, 5, 9) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(r.Value))
	}
	if diff := cmp.Diff([]string{"[1,2]"}, got); diff != "" {
		t.Errorf("single-root slice ignores the range (-want +got):\n%s", diff)
	}
	bad := jsonartifact.New("id", newMem("nope nope"), jsonartifact.Kind{})
	n := 0
	for _, err := range bad.Filter(ctx, "a") {
		n++
		if !errors.Is(err, jsonartifact.ErrUnsupportedFormat) {
			t.Errorf("err = %v", err)
		}
	}
	if n != 1 {
		t.Errorf("yielded %d times, want the error once", n)
	}
}

// TestSliceRange: json/json5 yield the root whatever the range (end=0
// included), JSON Lines the records in [start, end), a negative end meaning
// to the last record.
func TestSliceRange(t *testing.T) {
	ctx := context.Background()
	docs := map[string]string{
		"json":  `{"a":1}`,
		"json5": `{a: 1,}`,
		"jsonl": "1\n2\n\n3\n4\n",
	}
	tests := []struct {
		doc        string
		start, end int
		want       []string
	}{
		{"json", 0, 0, []string{`{"a":1}`}},
		{"json", 0, -1, []string{`{"a":1}`}},
		{"json", 3, -5, []string{`{"a":1}`}},
		{"json", 5, 9, []string{`{"a":1}`}},
		{"json", -2, 0, []string{`{"a":1}`}},
		{"json5", 0, 0, []string{`{"a":1}`}},
		{"json5", 2, 1, []string{`{"a":1}`}},
		{"jsonl", 0, 0, nil},
		{"jsonl", 2, 2, nil},
		{"jsonl", 3, 1, nil},
		{"jsonl", 0, -1, []string{"1", "2", "3", "4"}},
		{"jsonl", 1, -5, []string{"2", "3", "4"}},
		{"jsonl", -3, 2, []string{"1", "2"}},
		{"jsonl", 2, 100, []string{"3", "4"}},
		{"jsonl", 9, 100, nil},
	}
	for _, tt := range tests {
		a := jsonartifact.New("id", newMem(docs[tt.doc]), jsonartifact.Kind{})
		var got []string
		for r, err := range a.Slice(ctx, tt.start, tt.end) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(r.Value))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s Slice(%d, %d) (-want +got):\n%s", tt.doc, tt.start, tt.end, diff)
		}
	}
}

// TestTooDeep: input nested deeper than MaxDepth is ErrTooDeep before any
// parser recursing per level reads it (Go cannot recover from a stack
// overflow: 8 Mi levels killed the test binary), in every format and on
// every path; input at MaxDepth is queried as usual.
func TestTooDeep(t *testing.T) {
	ctx := context.Background()
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	obj := func(n int) string { return strings.Repeat("{a:", n) + "1" + strings.Repeat("}", n) }
	crash := nest(8 << 20) // 16 MiB, within MaxDocumentBytes
	deepLine := "{\"a\":1}\n" + nest(jsonartifact.MaxDepth+1) + "\n"
	tests := []struct {
		name string
		kind jsonartifact.Kind
		text string
		what string // the input the message names
	}{
		{"inferred", jsonartifact.Kind{}, crash, "document"},
		{"json", jsonartifact.Kind{Format: jsonartifact.FormatJSON}, crash, "document"},
		{"json5", jsonartifact.Kind{Format: jsonartifact.FormatJSON5}, obj(jsonartifact.MaxDepth + 1), "document"},
		{"inferred json5", jsonartifact.Kind{}, "// deep\n" + obj(jsonartifact.MaxDepth+1), "document"},
		{"jsonl record", jsonartifact.Kind{Format: jsonartifact.FormatJSONL}, deepLine, "line 1"},
		{"inferred jsonl", jsonartifact.Kind{}, deepLine, "document"},
		{"jsonl above MaxDocumentBytes", jsonartifact.Kind{MaxDocumentBytes: 100}, deepLine, "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := jsonartifact.New("id", newMem(tt.text), tt.kind)
			var err error
			for _, e := range a.Records(ctx) {
				if e != nil {
					err = e
				}
			}
			if !errors.Is(err, jsonartifact.ErrTooDeep) || !strings.Contains(err.Error(), tt.what+" nests") {
				t.Fatalf("Records: %v, want ErrTooDeep naming the %s", err, tt.what)
			}
			for _, m := range tt.kind.Methods() {
				if _, err := m.Call(ctx, a, map[string]any{"path": "a"}); m.Tool != "artifact_json_type" && !errors.Is(err, jsonartifact.ErrTooDeep) {
					t.Errorf("%s: %v, want ErrTooDeep", m.Tool, err)
				}
			}
		})
	}
	if _, _, err := jsonartifact.Detect([]byte(crash)); !errors.Is(err, jsonartifact.ErrTooDeep) {
		t.Errorf("Detect: %v, want ErrTooDeep", err)
	}

	// At MaxDepth every query works, modifiers that recurse included.
	for _, doc := range []string{nest(jsonartifact.MaxDepth), `{"a":` + nest(jsonartifact.MaxDepth-1) + `}`} {
		k := jsonartifact.Kind{}
		a := jsonartifact.New("id", newMem(doc), k)
		if f, err := a.Format(ctx); f != jsonartifact.FormatJSON || err != nil {
			t.Fatalf("Format at MaxDepth = %q, %v", f, err)
		}
		if _, _, err := a.Keys(ctx); err != nil {
			t.Errorf("Keys at MaxDepth: %v", err)
		}
		for _, path := range []string{"a", "0.0.0", "@flatten:{\"deep\":true}", "@reverse", "a.#", "#(0)", "@valid", "@ugly", "@dig:a", "@pretty"} {
			for _, m := range k.Methods() {
				if _, err := m.Call(ctx, a, map[string]any{"path": path}); err != nil {
					t.Errorf("%s(%q) at MaxDepth: %v", m.Tool, path, err)
				}
			}
			for name, seq := range map[string]func(context.Context, string) iter.Seq2[json.RawMessage, error]{"Get": a.Get, "Pluck": a.Pluck} {
				for _, err := range seq(ctx, path) {
					if err != nil {
						t.Errorf("%s(%q) at MaxDepth: %v", name, path, err)
					}
				}
			}
			for _, err := range a.Filter(ctx, path) {
				if err != nil {
					t.Errorf("Filter(%q) at MaxDepth: %v", path, err)
				}
			}
		}
	}
}

// TestDeepAnswersBounded: indented, 1 MiB of arrays nested 999 deep is
// gigabytes (7 GB were allocated per answer); an answer is indented only up
// to its cap, with the same note as before.
func TestDeepAnswersBounded(t *testing.T) {
	region := strings.Repeat("[", 999) + strings.Repeat("]", 999)
	doc := "[" + strings.Repeat(region+",", 512) + "1]"
	k := jsonartifact.Kind{}
	a := wrap(t, k, newMem(doc))
	if _, err := callTool(t, k, a, "artifact_json_type", nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, note string }{
		{"artifact_json_get", "\n(truncated: answer capped at 65536 of "},
		{"artifact_json_slice", "\n(truncated: 0 values shown; the next is "},
	} {
		var out string
		var err error
		alloc := heapwatch.AllocatedBy(func() { out, err = callTool(t, k, a, c.tool, map[string]any{"path": "@this"}) })
		if err != nil || len(out) > jsonartifact.DefaultMaxAnswerBytes || !strings.Contains(out, c.note) {
			t.Errorf("%s: %d bytes, %v: %.200q", c.tool, len(out), err, out)
		}
		if alloc > 64<<20 {
			t.Errorf("%s allocated %d MiB over a 1 MiB document", c.tool, alloc>>20)
		}
	}
}

// TestFromStrRefused: @fromstr hands a string's content to gjson as JSON,
// which the depth check never saw: `a|@fromstr|@valid` on a string of 8 Mi
// '[' killed the process. Such paths, and paths longer than the limit, are
// refused like JSONPath.
func TestFromStrRefused(t *testing.T) {
	ctx := context.Background()
	n := 8 << 20
	doc := `{"a":"` + strings.Repeat("[", n) + strings.Repeat("]", n) + `"}`
	k := jsonartifact.Kind{}
	a := wrap(t, k, newMem(doc))
	for _, path := range []string{"a|@fromstr|@valid", "a.@fromstr.0", "[a|@fromstr|@pretty]", "a" + strings.Repeat(".a", 4<<10)} {
		for _, tool := range []string{"artifact_json_get", "artifact_json_filter", "artifact_json_pluck"} {
			if got, err := callTool(t, k, a, tool, map[string]any{"path": path}); !errors.Is(err, forge.ErrInvalidToolArgs) {
				t.Errorf("%s(%.40q) = %.40q, %v; want ErrInvalidToolArgs", tool, path, got, err)
			}
		}
		for _, err := range a.(*jsonartifact.Artifact).Get(ctx, path) {
			if !errors.Is(err, jsonartifact.ErrInvalidPath) {
				t.Errorf("Get(%.40q): err = %v, want ErrInvalidPath", path, err)
			}
		}
	}
}

// TestPathFanoutBounded: a gjson multipath or object literal copies the
// value per member, so chained or nested ones multiply it: 24 stages of
// "[@this,@this]|" (335 bytes) allocated 1.2 GiB before the answer was
// capped, and ~30 killed the process. A path that may multiply its input
// more than 16 times is refused before it runs; a multipath of a few
// fields still works.
func TestPathFanoutBounded(t *testing.T) {
	ctx := context.Background()
	doc := `{"name":"top","id":7,"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}]}`
	k := jsonartifact.Kind{}
	a := wrap(t, k, newMem(doc))
	chain := func(stage, sep string, n int) string { return strings.TrimSuffix(strings.Repeat(stage+sep, n), sep) }
	for _, c := range []struct{ name, path string }{
		{"pipe chained multipaths", chain("[@this,@this]", "|", 24)},
		{"dot chained multipaths", chain("[@this,@this]", ".", 24)},
		{"chained object literals", chain("{a:@this,b:@this}", "|", 24)},
		{"five doublings", chain("[@this,@this]", "|", 5)},
		{"nested multipaths", "[[[[[@this,@this],@this],@this],@this],@this]"},
		{"nested object literals", "{a:{a:{a:{a:{a:@this,b:@this},b:@this},b:@this},b:@this},b:@this}"},
		{"hundreds of members", "[" + chain("@this", ",", 300) + "]"},
		{"unclosed multipath", "[" + chain("@this", ",", 300)},
		{"multipath in a query", "items.#(" + chain("[@this,@this]", "|", 24) + "==1)#"},
		{"chained tostr", "name" + strings.Repeat("|@tostr", 24)},
		{"tostr of a multipath", "[name,id,name]|@tostr"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out string
			var err error
			alloc := heapwatch.AllocatedBy(func() {
				out, err = callTool(t, k, a, "artifact_json_get", map[string]any{"path": c.path})
			})
			if !errors.Is(err, forge.ErrInvalidToolArgs) || !strings.Contains(err.Error(), "more than 16 times") {
				t.Errorf("get(%.60q) = %.60q, %v; want ErrInvalidToolArgs naming the limit", c.path, out, err)
			}
			if alloc > 16<<20 {
				t.Errorf("get(%.60q) allocated %d MiB", c.path, alloc>>20)
			}
			for _, err := range a.(*jsonartifact.Artifact).Pluck(ctx, c.path) {
				if !errors.Is(err, jsonartifact.ErrInvalidPath) {
					t.Errorf("Pluck(%.60q): err = %v, want ErrInvalidPath", c.path, err)
				}
			}
		})
	}
	sixteen := "[" + chain("id", ",", 16) + "]"
	for _, c := range []struct{ path, want string }{
		{"[name,id]", "[\n  \"top\",\n  7\n]"},
		{"{name,id}", "{\n  \"name\": \"top\",\n  \"id\": 7\n}"},
		{"items.#.{id,name}", "[\n  {\n    \"id\": 1,\n    \"name\": \"a\"\n  },\n  {\n    \"id\": 2,\n    \"name\": \"b\"\n  }\n]"},
		{"[name,id]|[0,1]", "[\n  \"top\",\n  7\n]"},
		{"name|@tostr", `"\"top\""`},
		{`items.#(name!="[a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r]")#.id`, "[\n  1,\n  2\n]"},
		{sixteen, "[\n  7" + strings.Repeat(",\n  7", 15) + "\n]"},
	} {
		got, err := callTool(t, k, a, "artifact_json_get", map[string]any{"path": c.path})
		if err != nil || got != c.want {
			t.Errorf("get %s = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := jsonartifact.New("id", newGen(5000), jsonartifact.Kind{})
	if _, err := a.Length(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// A context error is not cached as the artifact's format error.
	if n, err := a.Length(context.Background()); err != nil || n != 5000 {
		t.Fatalf("length = %d, %v", n, err)
	}
}

// TestJSONPathRefused checks JSONPath-looking paths (brackets, recursive
// descent) are an argument error naming the gjson equivalent, instead of
// silently matching nothing, while gjson paths that hold brackets or ".."
// inside queries, strings or multipaths still work.
func TestJSONPathRefused(t *testing.T) {
	ctx := context.Background()
	doc := `{"name":"top","items":[{"id":1,"name":"a[0]"},{"id":2,"name":"b..c"}]}`
	k := jsonartifact.Kind{}
	a := wrap(t, k, newMem(doc))
	for _, c := range []struct{ path, hint string }{
		{"$.items[0].id", `"items.0.id"`},
		{"items[0].id", `"items.0.id"`},
		{"$.items[*].id", `"items.#.id"`},
		{"items[*]", `"items.#"`},
		{"$['items'][1]", `"items.1"`},
		{`$["items"][1]["id"]`, `"items.1.id"`},
		{"$[0]", `"0"`},
		{"$.items[?(@.id>1)].name", `"items.#(id>1)#.name"`},
		{"..name", "recursive descent"},
		{"$..name", "recursive descent"},
		{"items..id", "recursive descent"},
		{"[*]", `"#"`},
	} {
		t.Run(c.path, func(t *testing.T) {
			for _, tool := range []string{"artifact_json_get", "artifact_json_filter", "artifact_json_pluck"} {
				got, err := callTool(t, k, a, tool, map[string]any{"path": c.path})
				if !errors.Is(err, forge.ErrInvalidToolArgs) || !strings.Contains(err.Error(), c.hint) || !strings.Contains(err.Error(), "gjson") {
					t.Errorf("%s(%q) = %q, %v; want ErrInvalidToolArgs with hint %s", tool, c.path, got, err, c.hint)
				}
			}
			// The Go API refuses it too, with ErrInvalidPath.
			for _, err := range a.(*jsonartifact.Artifact).Get(ctx, c.path) {
				if !errors.Is(err, jsonartifact.ErrInvalidPath) {
					t.Errorf("Get(%q): err = %v, want ErrInvalidPath", c.path, err)
				}
			}
		})
	}
	for _, c := range []struct{ path, want string }{
		{"$.items.0.id", "1"},
		{"items.#.id", "[\n  1,\n  2\n]"},
		{`items.#(name=="a[0]").id`, "1"},
		{`items.#(name%"*..*").id`, "2"},
		{"[name,items.0.id]", "[\n  \"top\",\n  1\n]"},
		{`{name,"n":items.#}`, "{\n  \"name\": \"top\",\n  \"n\": 2\n}"},
		{`it\[ems`, "(undefined)"},
	} {
		got, err := callTool(t, k, a, "artifact_json_get", map[string]any{"path": c.path})
		if err != nil || got != c.want {
			t.Errorf("get %s = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
}

// TestJSON5KeyOrder checks a JSON5 document keeps its members in document
// order, as the original's JSON5.parse does, at every depth; a repeated key
// keeps its first position and its last value (JSON.parse's rule).
func TestJSON5KeyOrder(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ name, in, want string }{
		{"flat", "{zeta:1, alpha:2, mid:3,}", `{"zeta":1,"alpha":2,"mid":3}`},
		{"nested, comments and tricky strings",
			"// c {z:1}\n{b: {z: 1, 'y': [ {q: 1, p: 2} ], \"x\": '}:,/*'}, /* {k:1} */ a: [1, 2,], $_c: \"\\\"}\"}",
			`{"b":{"z":1,"y":[{"q":1,"p":2}],"x":"}:,/*"},"a":[1,2],"$_c":"\"}"}`},
		{"repeated key", "{b: 1, a: 2, b: 3}", `{"b":3,"a":2}`},
		{"repeated object key", "{b: {y: 1}, a: 2, b: {x: 1, w: 2}}", `{"b":{"x":1,"w":2},"a":2}`},
		{"numbers", "[{b: 0x10, a: .5, c: +1, d: Infinity, e: NaN, f: -0.0}]", `[{"b":16,"a":0.5,"c":1,"d":"Infinity","e":"NaN","f":-0.0}]`},
		{"escaped keys", `{'k\'q': 1, "a\"b": 2, 'é': 3}`, `{"k'q":1,"a\"b":2,"é":3}`},
		{"no html escaping", "{u: '<&>'}", `{"u":"<&>"}`},
		{"scalar root", "'x'", `"x"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, root, err := jsonartifact.Detect([]byte(c.in))
			if err != nil || f != jsonartifact.FormatJSON5 {
				t.Fatalf("Detect = %q, %v", f, err)
			}
			if string(root) != c.want {
				t.Errorf("root = %s\nwant   %s", root, c.want)
			}
		})
	}
	a := jsonartifact.New("id", newMem("{zeta:1, alpha:2, mid:3,}"), jsonartifact.Kind{})
	keys, ok, err := a.Keys(ctx)
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, keys); err != nil || !ok || diff != "" {
		t.Errorf("Keys: %v %v (-want +got):\n%s", ok, err, diff)
	}
}

// TestRecordTooLarge checks a JSON Lines record above MaxRecordBytes is
// ErrTooLarge naming its line, wherever it is, and one at the limit is read.
func TestRecordTooLarge(t *testing.T) {
	ctx := context.Background()
	const max = 1 << 10
	at := `"` + strings.Repeat("x", max-2) + `"` // exactly max bytes
	over := `"` + strings.Repeat("x", max-1) + `"`
	for _, c := range []struct {
		name, content string
		line          int // -1: no error
	}{
		{"at the limit", "1\n" + at + "\n3", -1},
		{"at the limit, CRLF", "1\r\n" + at + "\r\n3", -1},
		{"over, middle", "1\n\n" + over + "\n3\n", 2},
		{"over, last without newline", "1\n" + over, 1},
		{"far over, last", "1\n" + strings.Repeat(over, 10), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := jsonartifact.New("id", newMem(c.content), jsonartifact.Kind{Format: jsonartifact.FormatJSONL, MaxRecordBytes: max})
			n, err := a.Length(ctx)
			if c.line < 0 {
				if err != nil || n != 3 {
					t.Fatalf("length = %d, %v; want 3", n, err)
				}
				return
			}
			if !errors.Is(err, jsonartifact.ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf("line %d exceeds", c.line)) {
				t.Fatalf("err = %v, want ErrTooLarge at line %d", err, c.line)
			}
		})
	}
}

// TestGrowingModifiersRefused: gjson modifiers that grow a value beyond its
// size times its depth are refused before they run (chained @dig turned
// 1.2 KB into 7.9 MB, @pretty with a 1000-space indent 200 KB into 100 MB,
// @group 3 KB into 1 MB); one @dig or a plain @pretty still works, and so
// do the same names inside a query's strings (an e-mail address).
func TestGrowingModifiersRefused(t *testing.T) {
	ctx := context.Background()
	deep := strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)
	k := jsonartifact.Kind{}
	a := wrap(t, k, newMem(deep))
	for _, c := range []struct {
		path string
		ok   bool
	}{
		{"@dig:a|@dig:a", false},
		{"@dig:a|@pretty", false},
		{"@pretty|@pretty", false},
		{`@pretty:{"indent":"` + strings.Repeat(" ", 1000) + `"}`, false},
		{`@pretty:{"prefix":"` + strings.Repeat(" ", 1000) + `"}`, false},
		{"@group", false},
		{"a|@group", false},
		// gjson trims a query's path: blanks before a modifier hide nothing.
		{"#( @group)", false},
		{"#(\t@group)#", false},
		{"#( @dig:a|@dig:a)", false},
		{`#( @pretty:{"indent":"` + strings.Repeat(" ", 1000) + `"})`, false},
		{"@dig:a", true},
		{"@pretty", true},
		{"a.a|@pretty", true},
		// Modifier names inside strings a query compares with are text.
		{`users.#(email=="ops@group.io").name`, true},
		{`users.#(email%"*@digital.com")#.name|@pretty`, true},
		{`users.#(email=="x@pretty.dev")#.name|@pretty`, true},
		{`users.#(email=="a@tostr.io")#.name`, true},
	} {
		var err error
		alloc := heapwatch.AllocatedBy(func() {
			_, err = callTool(t, k, a, "artifact_json_get", map[string]any{"path": c.path})
		})
		if c.ok {
			if err != nil {
				t.Errorf("get(%.60q): %v", c.path, err)
			}
			continue
		}
		if !errors.Is(err, forge.ErrInvalidToolArgs) {
			t.Errorf("get(%.60q): err = %v, want ErrInvalidToolArgs", c.path, err)
		}
		if alloc > 1<<20 {
			t.Errorf("get(%.60q) allocated %d KiB before refusing", c.path, alloc>>10)
		}
		for _, err := range a.(*jsonartifact.Artifact).Get(ctx, c.path) {
			if !errors.Is(err, jsonartifact.ErrInvalidPath) {
				t.Errorf("Get(%.60q): err = %v, want ErrInvalidPath", c.path, err)
			}
		}
	}
}
