package media_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/ebbforge/adk/media"
)

func ExampleNew() {
	m, err := media.New(media.Raw{
		ID:        "scan-1",
		Kind:      media.KindDocument,
		MIMEType:  "Application/PDF; version=1.7",
		Filename:  "../<invoice>.pdf",
		Reader:    media.NewMemoryReader([]byte("%PDF-1.7")),
		TrustTier: media.ThirdPartyPrivate,
		Hazard:    media.ExtractableInstructions,
		Stash: map[string]media.StashEntry{
			// Claims first-party, but is floored to the media's tier.
			media.StashTranscript: {Value: "Invoice #42", TrustTier: media.FirstParty},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(m)
	fmt.Println(string(b))

	_, err = media.New(media.Raw{Kind: "hologram", MIMEType: "x/y", Filename: "a"})
	fmt.Println(err)
	// Output:
	// {"id":"scan-1","kind":"document","mimeType":"application/pdf","filename":"..invoice.pdf","trustTier":"third-party-private","modalityHazard":"extractable-instructions","stash":{"text:transcript":{"value":"Invoice #42","trustTier":"third-party-private"}}}
	// E_INVALID_INITIAL_MEDIA_VALUE: media: invalid initial value: kind: "hologram" is not image, audio, video or document and reader: is nil and trustTier: "" is not first-party, third-party-public or third-party-private (no default) and modalityHazard: "" is not inert, extractable-instructions or opaque-perceptual (no default)
}

func ExampleToolGenerated() {
	m, err := media.ToolGenerated(media.Raw{
		Kind:     media.KindImage,
		MIMEType: "image/png",
		Filename: "pixel.png",
		Reader:   media.NewMemoryReader([]byte{0x89, 'P', 'N', 'G'}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	url, _ := m.DataURL(context.Background())
	fmt.Println(m.TrustTier(), m.Hazard())
	fmt.Println(url)
	// Output:
	// first-party opaque-perceptual
	// data:image/png;base64,iVBORw==
}

func ExampleNewHTTPReader() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "GIF89a...")
	}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	r, err := media.NewHTTPReader(srv.URL+"/cat.gif", &media.HTTPOptions{Client: client, MaxBytes: 1 << 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	mime, _ := media.Sniff(context.Background(), r) // one fetch
	m, err := media.RetrievedPublic(media.Raw{
		Kind: media.KindForMIME(mime), MIMEType: mime, Filename: "cat.gif", Reader: r, Source: "web",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m.WriteBase64(context.Background(), os.Stdout) // a second fetch, streamed
	fmt.Println()
	fmt.Println(m.Kind(), m.MIMEType(), m.TrustTier(), m.Size())
	// Output:
	// R0lGODlhLi4u
	// image image/gif third-party-public 9
}

func ExampleNewFileReader() {
	f, _ := os.CreateTemp("", "media-example-*.txt")
	defer os.Remove(f.Name())
	f.WriteString("hello")
	f.Close()

	r, err := media.NewFileReader(f.Name())
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := media.UserAttachment(media.Raw{Kind: media.KindDocument, MIMEType: "text/plain", Filename: "notes.txt", Reader: r})
	b, _ := m.Bytes(context.Background(), 1<<20)
	fmt.Println(string(b), m.Size(), m.TrustTier())
	// Output: hello 5 third-party-private
}

func ExampleMedia_WithStash() {
	m, _ := media.RetrievedPublic(media.Raw{
		ID: "clip", Kind: media.KindAudio, MIMEType: "audio/mpeg", Filename: "clip.mp3",
		Reader: media.NewMemoryReader(nil),
	})
	m2, _ := m.WithStash(media.StashTranscript, media.StashEntry{Value: "hello", TrustTier: media.FirstParty})
	e, _ := m2.Stash(media.StashTranscript)
	fmt.Println(e.TrustTier, len(m.StashKeys()), len(m2.StashKeys()))
	// Output: third-party-public 0 1
}
