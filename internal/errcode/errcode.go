// Package errcode holds the kit's one error type, re-exported as forge.Error
// and media.Error so every package reports stable E_... codes the same way.
package errcode

import "fmt"

// Code is a stable error code shared with the TypeScript original.
type Code string

// Error is a coded error: stable code, HTTP-like status, fatal flag (a
// programming error rather than a runtime failure), message and cause.
// errors.Is(err, sentinel) matches on Code.
//
// Packages export sentinels (forge.ErrInvalidToolArgs, ...) as *Error
// values. A sentinel is a read-only identity: compare against it with
// errors.Is and derive a concrete error with With, which returns a copy.
// Never assign to a sentinel's fields; the pointer is shared by every
// importer, and errors.Is compares Codes, so a changed Status or Message
// would leak into every error built from it afterwards.
type Error struct {
	Code    Code
	Status  int
	Fatal   bool
	Message string
	Cause   error
}

// Error renders "E_CODE: message: cause" (message and cause when set).
func (e *Error) Error() string {
	if e == nil {
		return "<nil>"
	}
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
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// Is reports whether target is a non-nil *Error with the same Code; a
// typed-nil target matches nothing.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// With returns a new *Error with e's Code, Status and Fatal, a formatted
// message and cause. e itself is never modified, so sentinels stay intact.
func (e *Error) With(cause error, format string, args ...any) *Error {
	return &Error{Code: e.Code, Status: e.Status, Fatal: e.Fatal, Message: fmt.Sprintf(format, args...), Cause: cause}
}

// InvalidToolArgs is forge.ErrInvalidToolArgs, declared here so that the
// helpers forge's own package cannot reach (the artifact kinds' argument
// readers) refuse a tool's arguments with the very same sentinel.
var InvalidToolArgs = &Error{Code: "E_INVALID_TOOL_ARGS", Status: 422}
