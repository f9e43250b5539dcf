package wiretest

import (
	"regexp"
	"strings"
	"testing"
)

// RenderKey is the envelope key adapter tests configure, so that the
// nonces in golden request bodies stay the same from run to run.
var RenderKey = []byte("adapter test key")

var envelopeRE = regexp.MustCompile(`^<((?:un)?trusted_content_[0-9a-f]{16}) [^>\n]*>\n`)

// Envelope splits s, which must be exactly one envelope whose closing tag
// appears once, at the end, into its opening tag and body.
func Envelope(t testing.TB, s string) (open, body string) {
	t.Helper()
	m := envelopeRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("not an envelope: %q", s)
	}
	closing := "</" + m[1] + ">"
	if strings.Count(s, closing) != 1 || !strings.HasSuffix(s, "\n"+closing) {
		t.Fatalf("the content escaped its envelope %s:\n%s", m[1], s)
	}
	return strings.TrimSuffix(m[0], "\n"), s[len(m[0]) : len(s)-len(closing)-1]
}

// Unwrap is the body of the envelope s, or s when it is not one: recorded
// requests were sent without envelopes.
func Unwrap(s string) string {
	m := envelopeRE.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	closing := "\n</" + m[1] + ">"
	if !strings.HasSuffix(s, closing) {
		return s
	}
	return s[len(m[0]) : len(s)-len(closing)]
}
