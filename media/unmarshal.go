package media

// UnmarshalJSON always fails: a Media is built and validated by [New], and
// its bytes live behind a reader that only [FromRecord] can resolve. Decode
// the JSON into a [Metadata] and pass it to FromRecord. It exists so
// json.Unmarshal into a *Media reports that instead of leaving an empty,
// invalid value behind.
func (m *Media) UnmarshalJSON([]byte) error {
	return ErrInvalidInitialMediaValue.With(nil,
		"media: json.Unmarshal cannot build a *media.Media (its reader must be resolved): decode a media.Metadata and use media.FromRecord")
}
