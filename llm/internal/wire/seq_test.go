package wire

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSeq(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		fail    error
		stopAt  int // break after this many parts; 0 reads all
		want    []string
		wantErr error
	}{
		{"parts then failure", errBoom, 0, []string{"a", "b", ""}, errBoom},
		{"parts only", nil, 0, []string{"a", "b"}, nil},
		{"consumer stops", nil, 1, []string{"a"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq := Seq(func(yield func(string, error) bool) error {
				e := Emitter[string]{Yield: yield}
				pending := []string{"a", "b"}
				if !e.Emit(&pending) {
					if len(pending) != 0 {
						t.Errorf("pending not emptied: %q", pending)
					}
					if e.Emit(&[]string{"c"}) {
						t.Error("Emit after the consumer stopped reported true")
					}
					return nil
				}
				return tt.fail
			})
			var got []string
			var gotErr error
			for p, err := range seq {
				got = append(got, p)
				if err != nil {
					gotErr = err
				}
				if tt.stopAt > 0 && len(got) == tt.stopAt {
					break
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			if !errors.Is(gotErr, tt.wantErr) {
				t.Errorf("err = %v, want %v", gotErr, tt.wantErr)
			}
		})
	}
}

func TestHeader(t *testing.T) {
	configured := http.Header{"X-Title": {"app"}}
	got := Header(configured, true)
	got.Add("X-Title", "more")
	want := http.Header{"X-Title": {"app", "more"}, "Accept": {"text/event-stream"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream header (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(http.Header{"X-Title": {"app"}}, configured); diff != "" {
		t.Errorf("configured header changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(http.Header{"X-Title": {"app"}}, Header(configured, false)); diff != "" {
		t.Errorf("whole-response header (-want +got):\n%s", diff)
	}
}
