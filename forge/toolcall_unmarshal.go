package forge

// UnmarshalJSON always fails: a ToolCall is built and validated by
// [NewToolCall], and its persisted form references artifacts and media that
// only a [ResultResolver] can bring back. Decode with [UnmarshalToolCall].
// It exists so json.Unmarshal into a *ToolCall (or a struct field or slice
// element holding a ToolCall by value) reports that instead of leaving an
// empty, invalid value behind.
func (c *ToolCall) UnmarshalJSON([]byte) error {
	return ErrInvalidInitialToolCallValue.With(nil,
		"forge: json.Unmarshal cannot build a *forge.ToolCall (its results need resolving and validating): use forge.UnmarshalToolCall")
}
