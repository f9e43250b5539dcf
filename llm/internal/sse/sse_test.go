package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type ev struct{ Name, Data string }

func readAll(r *Reader) ([]ev, error) {
	var out []ev
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev{string(e.Name), string(e.Data)})
	}
}

// reference is a deliberately naive reader of the same format: normalise
// the terminators, split into lines, and follow the field rules.
func reference(in string) []ev {
	in = strings.ReplaceAll(in, "\r\n", "\n")
	in = strings.ReplaceAll(in, "\r", "\n")
	var out []ev
	var name string
	var data []string
	has := false
	flush := func() {
		if has {
			out = append(out, ev{name, strings.Join(data, "\n")})
		}
		name, data, has = "", nil, false
	}
	lines := strings.Split(in, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		switch {
		case l == "":
			flush()
		case l[0] == ':':
		default:
			f, v, _ := strings.Cut(l, ":")
			v = strings.TrimPrefix(v, " ")
			switch f {
			case "data":
				data, has = append(data, v), true
			case "event":
				name = v
			}
		}
	}
	flush()
	return out
}

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"lf", "data: a\n\ndata: b\n\n", []ev{{"", "a"}, {"", "b"}}},
		{"crlf", "event: x\r\ndata: a\r\n\r\n", []ev{{"x", "a"}}},
		{"cr", "data: a\r\rdata: b\r\r", []ev{{"", "a"}, {"", "b"}}},
		{"mixed", "data: a\r\n\ndata: b\r\r\n", []ev{{"", "a"}, {"", "b"}}},
		{"comments", ": OPENROUTER PROCESSING\n\n: x\ndata: {}\n\n", []ev{{"", "{}"}}},
		{"multi-line data", "data: a\ndata:b\ndata\n\n", []ev{{"", "a\nb\n"}}},
		{"no space", "data:x\n\n", []ev{{"", "x"}}},
		{"two spaces kept", "data:  x\n\n", []ev{{"", " x"}}},
		{"empty data dispatches", "data:\n\n", []ev{{"", ""}}},
		{"name without data is dropped", "event: ping\n\ndata: a\n\n", []ev{{"", "a"}}},
		{"unterminated last event", "event: e\ndata: {\"a\":1}", []ev{{"e", `{"a":1}`}}},
		{"padded", "data: {\"a\":1}    \n\n", []ev{{"", `{"a":1}    `}}},
		{"unknown fields", "id: 3\nretry: 10\nfoo\ndata: a\n\n", []ev{{"", "a"}}},
		{"long line", "data: " + long + "\n\n", []ev{{"", long}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, src := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, err := readAll(NewReader(src))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.want, reference(tt.in)); diff != "" {
				t.Errorf("reference disagrees (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReaderTooLong(t *testing.T) {
	r := NewReader(strings.NewReader("data: " + strings.Repeat("x", 100) + "\n\n"))
	r.MaxEvent = 50
	if _, err := r.Next(); !errors.Is(err, ErrTooLong) {
		t.Fatalf("err = %v, want ErrTooLong", err)
	}
	if _, err := r.Next(); !errors.Is(err, ErrTooLong) {
		t.Fatalf("second err = %v, want sticky ErrTooLong", err)
	}
	r = NewReader(strings.NewReader(strings.Repeat("data: xxxxxxxxxx\n", 10) + "\n"))
	r.MaxEvent = 50
	if _, err := r.Next(); !errors.Is(err, ErrTooLong) {
		t.Fatalf("many lines: err = %v, want ErrTooLong", err)
	}
}

func TestReaderSourceError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)))
	if e, err := r.Next(); err != nil || string(e.Data) != "a" {
		t.Fatalf("first = %q, %v", e.Data, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom (a cut event is not dispatched)", err)
	}
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "event: x\r\ndata: a\r\n\r\n", "data: a\r\rdata: b\r", ": c\ndata:\ndata: z\n\n",
		"data: {\"type\": \"ping\"}   \n\nevent: error\ndata: {}", "\r\n\r\r\n\n", "data",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want := reference(string(in))
		for _, src := range []io.Reader{bytes.NewReader(in), iotest.OneByteReader(bytes.NewReader(in)), iotest.HalfReader(bytes.NewReader(in))} {
			got, err := readAll(NewReader(src))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("input %q (-reference +reader):\n%s", in, diff)
			}
		}
	})
}

func BenchmarkReader(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 1000; i++ {
		buf.WriteString(`data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"hello"},"finish_reason":null}]}` + "\n\n")
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(in))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}
