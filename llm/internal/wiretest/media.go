package wiretest

import (
	"testing"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/media"
)

// AttachmentMessage is a user message "What is this?" with a 3-byte PNG
// image ("abc", base64 YWJj), an audio clip and a PDF.
func AttachmentMessage(t testing.TB) dispatch.Entry {
	t.Helper()
	var atts []*media.Media
	for _, r := range []media.Raw{
		{Kind: media.KindImage, MIMEType: "image/png", Filename: "a.png"},
		{Kind: media.KindAudio, MIMEType: "audio/wav", Filename: "b.wav"},
		{Kind: media.KindDocument, MIMEType: "application/pdf", Filename: "c.pdf"},
	} {
		r.Reader = media.NewMemoryReader([]byte("abc"))
		m, err := media.UserAttachment(r)
		if err != nil {
			t.Fatal(err)
		}
		atts = append(atts, m)
	}
	msg, err := dispatch.NewMessage(dispatch.RawMessage{ID: "u1", Role: dispatch.RoleUser,
		Content: forge.NewTokenizable("What is this?"), Attachments: atts})
	if err != nil {
		t.Fatal(err)
	}
	return dispatch.Entry{Message: msg}
}
