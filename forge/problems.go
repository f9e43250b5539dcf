package forge

import (
	"fmt"
	"strings"
)

// problems collects every fault in a raw value so one error can name them all.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// err returns base carrying a ValidationError with the problems, or nil.
func (p problems) err(base *Error, subject string) error {
	if len(p) == 0 {
		return nil
	}
	return base.With(&ValidationError{Problems: append([]string(nil), p...)}, "forge: invalid %s", subject)
}

// ValidationError lists every problem found in a raw value or in tool
// arguments, one entry per field at fault ("field: what is wrong"). It is the
// cause of ErrInvalidInitialToolValue, ErrInvalidInitialToolCallValue and
// ErrInvalidToolArgs errors; read it with errors.As.
type ValidationError struct {
	Problems []string
}

// Error joins the problems with "; ".
func (e *ValidationError) Error() string { return strings.Join(e.Problems, "; ") }
