package canonical

import "errors"

// Errors returned by the package; test with errors.Is.
var (
	ErrInvalidJSON     = errors.New("canonical: invalid JSON")
	ErrUnsupportedType = errors.New("canonical: unsupported type")
	ErrCycle           = errors.New("canonical: cycle")
)

// StringifyJSON returns the canonical text of a raw JSON document.
func StringifyJSON(data []byte) (string, error) { return "", ErrInvalidJSON }

// Stringify returns the canonical text of a Go value.
func Stringify(v any) (string, error) { return "", ErrUnsupportedType }

// Checksum returns the lowercase hex SHA-256 of the canonical text of
// {"tool": tool, "args": args}; args of type json.RawMessage or []byte is raw JSON.
func Checksum(tool string, args any) (string, error) { return "", ErrUnsupportedType }
