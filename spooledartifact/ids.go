package spooledartifact

import (
	"encoding/base32"
	"strings"
	"unicode/utf8"
)

// MaxIDLength is the longest id a store accepts, in bytes. It is what keeps
// every id's file name (see encodeID) within the 255 bytes file systems
// allow: 3 + ceil(150*8/5) = 243.
const MaxIDLength = 150

// ValidateID reports whether id is acceptable to every store: non-empty, at
// most MaxIDLength bytes, valid UTF-8, with no NUL or other control
// character. An id that passes is accepted by both stores of this package.
// Path syntax ("..", "/", "\") and names such as "CON" are allowed in ids
// because the disk store never uses an id as a path: it encodes it (see
// NewDiskStore).
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

// idPrefix starts every file name of an artifact. It keeps the names apart
// from the store's temporary files and from stray files, and no Windows
// device name (CON, NUL, COM1...) starts with it.
const idPrefix = "id-"

// idEncoding is lower-case base32 without padding: names use only [a-z2-7],
// so two ids never map to names that differ only in case (case-insensitive
// file systems keep them apart) and no name holds a separator or a dot.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// encodeID maps a valid id to its file name, injectively.
func encodeID(id string) string {
	return idPrefix + idEncoding.EncodeToString([]byte(id))
}

// decodeID reverses encodeID; ok is false for names encodeID never makes.
func decodeID(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, idPrefix)
	if !ok {
		return "", false
	}
	b, err := idEncoding.DecodeString(rest)
	if err != nil {
		return "", false
	}
	id := string(b)
	if ValidateID(id) != nil || encodeID(id) != name {
		return "", false
	}
	return id, true
}
