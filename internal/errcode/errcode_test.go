package errcode_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/internal/errcode"
)

func sentinel() *errcode.Error {
	return &errcode.Error{Code: "E_TEST", Status: 422, Fatal: true}
}

func TestIs(t *testing.T) {
	s := sentinel()
	derived := s.With(io.EOF, "pkg: %s", "msg")
	tests := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"sentinel itself", s, s, true},
		{"derived matches sentinel", derived, s, true},
		{"wrapped derived", fmt.Errorf("ctx: %w", derived), s, true},
		{"same code other value", derived, &errcode.Error{Code: "E_TEST"}, true},
		{"other code", derived, &errcode.Error{Code: "E_OTHER"}, false},
		{"typed nil target", derived, (*errcode.Error)(nil), false},
		{"nil target", derived, nil, false},
		{"plain error target", derived, errors.New("E_TEST"), false},
		{"cause reachable", derived, io.EOF, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.Is(tt.err, tt.target); got != tt.want {
				t.Errorf("errors.Is = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("typed nil receiver", func(t *testing.T) {
		var e *errcode.Error
		if e.Is(s) {
			t.Error("nil *Error matched a sentinel")
		}
	})
}

func TestWithCopies(t *testing.T) {
	s := sentinel()
	before := *s
	a := s.With(io.EOF, "first %d", 1)
	b := a.With(nil, "second")
	if a == s || b == a {
		t.Fatal("With returned its receiver")
	}
	if diff := cmp.Diff(before, *s, cmp.Comparer(func(x, y error) bool { return x == y })); diff != "" {
		t.Errorf("sentinel mutated (-before +after):\n%s", diff)
	}
	want := errcode.Error{Code: "E_TEST", Status: 422, Fatal: true, Message: "first 1", Cause: io.EOF}
	if diff := cmp.Diff(want, *a, cmp.Comparer(func(x, y error) bool { return x == y })); diff != "" {
		t.Errorf("With (-want +got):\n%s", diff)
	}
	if a.Message != "first 1" || a.Cause != io.EOF {
		t.Errorf("deriving from a derived error changed it: %+v", a)
	}
	a.Status = 500
	if s.Status != 422 {
		t.Errorf("changing a derived error reached the sentinel: %d", s.Status)
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		name string
		err  *errcode.Error
		want string
	}{
		{"code only", &errcode.Error{Code: "E_X"}, "E_X"},
		{"message", &errcode.Error{Code: "E_X", Message: "pkg: bad"}, "E_X: pkg: bad"},
		{"cause", &errcode.Error{Code: "E_X", Cause: io.EOF}, "E_X: EOF"},
		{"message and cause", &errcode.Error{Code: "E_X", Message: "pkg: bad", Cause: io.EOF}, "E_X: pkg: bad: EOF"},
		{"nil", nil, "<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUnwrap(t *testing.T) {
	if got := sentinel().With(io.EOF, "x").Unwrap(); got != io.EOF {
		t.Errorf("Unwrap = %v, want EOF", got)
	}
	if got := sentinel().Unwrap(); got != nil {
		t.Errorf("Unwrap of a sentinel = %v, want nil", got)
	}
	var e *errcode.Error
	if got := e.Unwrap(); got != nil {
		t.Errorf("Unwrap of nil = %v", got)
	}
	var target *errcode.Error
	if !errors.As(fmt.Errorf("w: %w", sentinel().With(nil, "m")), &target) || target.Code != "E_TEST" {
		t.Errorf("errors.As = %+v", target)
	}
}
