// Package media carries binary tool results (image, audio, video, document)
// with their trust tier and modality hazard.
//
// A tool that produces media returns a [Media] directly; it never goes
// through the artifact wrap, because only the tool knows the modality, MIME
// type and provenance. Build one with a factory that sets the trust tier
// and hazard for you:
//
//	m, err := media.ToolGenerated(media.Raw{
//		Kind:     media.KindImage,
//		MIMEType: "image/png",
//		Filename: "chart.png",
//		Reader:   media.NewMemoryReader(png),
//	})
//
// or with [New] when you choose them yourself. Trust tier and hazard have no
// default: a Media always says who authored it and how it could carry
// instructions. [New] validates every field and reports all faults at once
// ([ErrInvalidInitialMediaValue] with a *[ValidationError] cause); it
// sanitises the MIME type to a strict type/subtype ([SanitizeMIMEType]) and
// the filename to something safe to print ([SanitizeFilename]).
//
// # Readers
//
// The bytes stay behind a [Reader], opened afresh for every stream:
// [NewMemoryReader] (bytes), [NewFileReader] (a path, re-opened each time)
// and [NewHTTPReader] (re-fetched each time, with an optional size limit).
// Nothing is read until someone asks; [Media.WriteBase64],
// [Media.WriteDataURL] and [Media.Base64Reader] stream without holding the
// whole media in memory, while [Media.Bytes], [Media.Base64] and
// [Media.DataURL] build it in memory. [Sniff] detects a MIME type from the
// first 512 bytes.
//
// # Stash
//
// Text derived from the media (a transcript, a caption) lives in its stash,
// keyed by [StashTranscript], [StashCaption] or [StashDescription] for the
// renderers' fallbacks. An entry's tier is floored to the media's: derived
// text is never more trusted than its source. [Media.WithStash] returns a
// new Media; a Media never changes, so it is safe for concurrent use.
//
// # Persistence
//
// JSON (MarshalJSON) carries the metadata, never the bytes. [Media.Record]
// adds the reader's [Descriptor] (tags "media:in-memory", "media:file",
// "media:http"); [FromRecord] rebuilds the Media, resolving only the reader
// kinds [ResolveOptions] allows. Credentials are never persisted (an HTTP
// reader's headers and URL userinfo); a URL's query string is.
//
// A reader's Size is a hint for sizing buffers, never trusted for a result:
// a server's Content-Length or a custom reader may be wrong, and a file may
// change.
package media
