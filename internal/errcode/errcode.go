// Package errcode holds the kit's one error type, re-exported as forge.Error
// and media.Error so every package reports stable E_... codes the same way.
package errcode

import "fmt"

// Code is a stable error code shared with the TypeScript original.
type Code string

// Error is a coded error: stable code, HTTP-like status, fatal flag (a
// programming error rather than a runtime failure), message and cause.
// errors.Is(err, sentinel) matches on Code.
type Error struct {
	Code    Code
	Status  int
	Fatal   bool
	Message string
	Cause   error
}

// Error renders "E_CODE: message: cause".
func (e *Error) Error() string {
	msg := string(e.Code)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// With returns a copy of e carrying a formatted message and a cause.
func (e *Error) With(cause error, format string, args ...any) *Error {
	c := *e
	c.Message = fmt.Sprintf(format, args...)
	c.Cause = cause
	return &c
}
