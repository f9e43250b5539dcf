package method

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/ebbforge/adk/internal/errcode"
)

// maxExactInt is the largest integer a float64 argument holds exactly.
const maxExactInt = 1 << 53

// IntArg reads the optional non-negative integer argument name, accepting
// the number types a JSON decoder or a Go caller produces (float64 with no
// fraction, json.Number, any Go integer type). Absent or null gives def,
// which may be negative (say -1 for "to the end"). Anything else (a
// fraction, a negative number, a string) is an error matching forge.ErrInvalidToolArgs, naming
// the argument. Artifact tool arguments are counts, indexes and line
// numbers, so negatives are refused here rather than by every caller.
func IntArg(args map[string]any, name string, def int) (int, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return def, nil
	}
	bad := func(cause error) (int, error) {
		return 0, errcode.InvalidToolArgs.With(cause, "spooledartifact: %s must be a non-negative integer, got %v", name, v)
	}
	var f float64
	switch t := v.(type) {
	case int:
		if t < 0 {
			return bad(nil)
		}
		return t, nil
	case int8, int16, int32, int64:
		n := reflect.ValueOf(t).Int()
		if n < 0 || n > math.MaxInt {
			return bad(nil)
		}
		return int(n), nil
	case uint, uint8, uint16, uint32, uint64, uintptr:
		n := reflect.ValueOf(t).Uint()
		if n > math.MaxInt {
			return bad(nil)
		}
		return int(n), nil
	case float64:
		f = t
	case float32:
		f = float64(t)
	case json.Number:
		if n, err := t.Int64(); err == nil {
			if n < 0 || n > math.MaxInt {
				return bad(nil)
			}
			return int(n), nil
		}
		var err error
		if f, err = t.Float64(); err != nil {
			return bad(err)
		}
	default:
		return 0, errcode.InvalidToolArgs.With(nil, "spooledartifact: %s must be a non-negative integer, got %T", name, v)
	}
	if f < 0 || f > maxExactInt || f != math.Trunc(f) { // NaN fails f != Trunc(f)
		return bad(nil)
	}
	return int(f), nil
}

// LimitOr returns limit when it is positive and def otherwise: how a
// Kind's limit field reads its zero value (or a negative one) as the
// kind's default.
func LimitOr[T ~int | ~int64](limit, def T) T {
	if limit > 0 {
		return limit
	}
	return def
}

// StringArg reads the optional string argument name: ok is false when it is
// absent or null. Any other type is an error matching forge.ErrInvalidToolArgs, naming the
// argument.
func StringArg(args map[string]any, name string) (s string, ok bool, err error) {
	v, present := args[name]
	if !present || v == nil {
		return "", false, nil
	}
	s, isString := v.(string)
	if !isString {
		return "", false, errcode.InvalidToolArgs.With(nil, "spooledartifact: %s must be a string, got %T", name, v)
	}
	return s, true, nil
}

// CapAnswer returns s when it is at most limit bytes; otherwise it cuts s
// at the last line break that leaves room for a note, or at a rune boundary
// when a single line is too long, and ends it with "(truncated: answer
// capped at <limit> of <len(s)> bytes; <hint>)" on its own line, so the
// whole answer stays within limit bytes (unless limit is smaller than the
// note). hint tells the model how to ask for less; "" leaves it out.
func CapAnswer(s string, limit int, hint string) string {
	return CapAnswerOf(s, len(s), limit, hint)
}

// CapAnswerOf is CapAnswer for an answer rendered only up to the cap (see
// IndentJSON): head is its start, all of it when total <= limit and at
// least its first limit bytes otherwise, and total is its whole length,
// which the note reports.
func CapAnswerOf(head string, total, limit int, hint string) string {
	if total <= limit {
		return head
	}
	note := fmt.Sprintf("\n(truncated: answer capped at %d of %d bytes", limit, total)
	if hint != "" {
		note += "; " + hint
	}
	note += ")"
	budget := min(max(limit-len(note), 0), len(head))
	cut := strings.LastIndexByte(head[:budget], '\n')
	if cut < 0 {
		cut = budget
		for cut > 0 && cut < len(head) && !utf8.RuneStart(head[cut]) {
			cut--
		}
	}
	return head[:cut] + note
}
