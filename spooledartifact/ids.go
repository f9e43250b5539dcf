package spooledartifact

import (
	"strings"
	"unicode/utf8"
)

// MaxIDLength is the longest id a store accepts, in bytes.
const MaxIDLength = 200

// ValidateID reports whether id is acceptable to every store: non-empty, at
// most MaxIDLength bytes, valid UTF-8, with no NUL or other control
// character. Path syntax ("..", "/", "\") is allowed in ids because the disk
// store never uses an id as a path: it encodes it (see encodeID).
func ValidateID(id string) error {
	switch {
	case id == "":
		return ErrInvalidID.With(nil, "spooledartifact: empty id")
	case len(id) > MaxIDLength:
		return ErrInvalidID.With(nil, "spooledartifact: id longer than %d bytes", MaxIDLength)
	case !utf8.ValidString(id):
		return ErrInvalidID.With(nil, "spooledartifact: id %q is not valid UTF-8", id)
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return ErrInvalidID.With(nil, "spooledartifact: id %q holds a control character", id)
		}
	}
	return nil
}

// encodeID maps a valid id to a single, safe file name: every byte outside
// [A-Za-z0-9_-] becomes %XX. '.', '/' and '\' are always encoded, so no
// encoded name is "." or "..", none holds a separator and none starts with
// '.', which keeps them apart from the store's temporary files.
func encodeID(id string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(id))
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// decodeID reverses encodeID; ok is false for names encodeID never makes.
func decodeID(name string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '%' {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				return "", false
			}
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(name) {
			return "", false
		}
		hi, ok1 := unhex(name[i+1])
		lo, ok2 := unhex(name[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b.WriteByte(hi<<4 | lo)
		i += 2
	}
	id := b.String()
	if ValidateID(id) != nil || encodeID(id) != name {
		return "", false
	}
	return id, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
