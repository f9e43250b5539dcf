package media

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// OctetStream is the MIME type used when a type is unusable.
const OctetStream = "application/octet-stream"

// maxMIMEPart is RFC 6838's limit on a type or subtype name.
const maxMIMEPart = 127

// SanitizeMIMEType returns s as a strict lower-case "type/subtype" with
// parameters dropped ("Text/Plain; charset=utf-8" → "text/plain"), or
// [OctetStream] when s is not one. Names follow RFC 6838's restricted-name
// grammar, so wildcards ("image/*") are rejected. Idempotent.
func SanitizeMIMEType(s string) string {
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	s = strings.ToLower(strings.TrimSpace(s))
	typ, sub, ok := strings.Cut(s, "/")
	if !ok || !restrictedName(typ) || !restrictedName(sub) {
		return OctetStream
	}
	return s
}

// restrictedName reports RFC 6838 restricted-name (lower-case only here):
// an alphanumeric first character, then alphanumerics or !#$&-^_.+ .
func restrictedName(s string) bool {
	if s == "" || len(s) > maxMIMEPart {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && strings.IndexByte("!#$&-^_.+", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// MaxFilenameLen is the most characters (runes) a sanitised filename keeps.
const MaxFilenameLen = 256

// SanitizeFilename makes s safe to show in a prompt and to use as a base
// name: it drops invalid UTF-8, control characters, line and paragraph
// separators (U+2028, U+2029), format characters (Unicode category Cf:
// zero-width spaces and joiners, the BOM, soft hyphens, tag characters and
// the bidirectional controls that make "txt.exe" display as "exe.txt"),
// '<', '>' and the path separators '/' and '\', trims surrounding white
// space, caps the result at [MaxFilenameLen] characters, and returns "" for a
// name made only of dots ("." or ".."). Idempotent. Brackets and '|' are
// kept; [Media.Marker] escapes them.
func SanitizeFilename(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unsafeInPrompt(r) {
			return -1
		}
		switch r {
		case '<', '>', '/', '\\':
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > MaxFilenameLen {
		n := 0
		for i := range s {
			if n == MaxFilenameLen {
				s = s[:i]
				break
			}
			n++
		}
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	if strings.Trim(s, ".") == "" {
		return ""
	}
	return s
}

// unsafeInPrompt reports the runes that can break or hide text in a prompt:
// controls (Cc), line and paragraph separators (Zl, Zp) and format
// characters (Cf, which include every bidirectional control).
func unsafeInPrompt(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp, unicode.Cf)
}

// sniffLen is how many bytes http.DetectContentType considers.
const sniffLen = 512

// Sniff opens r, reads at most 512 bytes and returns the sanitised MIME type
// [http.DetectContentType] finds ("application/octet-stream" when unsure).
func Sniff(ctx context.Context, r Reader) (string, error) {
	if isNil(r) {
		return "", ErrNotAMediaReader.With(nil, "media: sniff: reader is nil")
	}
	rc, err := r.Open(ctx)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	buf := make([]byte, sniffLen)
	n, err := io.ReadFull(rc, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", err
	}
	return SanitizeMIMEType(http.DetectContentType(buf[:n])), nil
}

// KindForMIME maps a MIME type to a kind: image/*, audio/* and video/* to
// their kinds, everything else to [KindDocument].
func KindForMIME(mime string) Kind {
	typ, _, _ := strings.Cut(SanitizeMIMEType(mime), "/")
	switch typ {
	case "image":
		return KindImage
	case "audio":
		return KindAudio
	case "video":
		return KindVideo
	}
	return KindDocument
}
