// Package forge defines tools, tool calls, token-counted text and the tool
// registry: the primitives every other package of the kit builds on.
//
// # Tools
//
// A [Tool] is a named, described handler whose arguments are validated
// against a JSON Schema before it runs. Derive the schema from a Go struct
// with [NewTypedTool] (json tags name properties, a `jsonschema:"..."` tag
// describes one, fields without omitempty are required, unknown keys are
// rejected; implement [SchemaCustomizer] for enums, defaults and bounds), or
// pass a schema document to [NewTool] and receive the validated
// map[string]any. [NewArtifactTool] builds the inline-text tools that query
// artifacts. Names must match ^[a-zA-Z0-9_-]{1,64}$, as providers require.
//
// Validation never coerces ("5" is not a number), but 1e2 is an integer, as
// JSON Schema says, and decodes into an int field. A typed tool validates
// number literals exactly as written, as its fields receive them; an untyped
// tool validates, and hands its handler, float64 values (beyond 2^53 an
// integer arrives rounded, as it was checked). Unknown keys are rejected
// unless the schema allows them: an untyped schema whose root says nothing
// about them (no additionalProperties, patternProperties or
// unevaluatedProperties) is closed with "additionalProperties": false
// ("unevaluatedProperties": false when the root composes subschemas with
// allOf, anyOf, oneOf, $ref, if or dependentSchemas, whose properties
// additionalProperties would not see), and that closed document is what
// [Tool.Schema] and [Registry.Definitions] publish; write
// "additionalProperties": true to accept any key, or set
// [ToolOptions].OpenSchema to keep a schema written for another validator
// as its author meant it. Drafts before 2019-09
// ($schema draft-04, -06 or -07) ignore unevaluatedProperties, so when such
// a root says nothing about unknown keys and composes subschemas (allOf,
// anyOf, oneOf, $ref, if or a schema in dependencies) the tool is refused:
// state additionalProperties at the root, or use draft 2020-12. Empty
// arguments mean {}. Failures are [ErrInvalidToolArgs] whose
// [ValidationError] names every bad field in words a model can act on
// (unknown keys in sorted order).
//
// Two JSON Schema libraries share the work: github.com/google/jsonschema-go
// derives schemas from Go types and applies defaults below the root (those
// of root properties are filled in from values decoded once);
// github.com/santhosh-tekuri/jsonschema/v6 compiles each schema into the
// validator that decides (about twice as fast) and reports every failure at
// the argument it concerns, which forge words for the model. References
// must resolve inside the schema: no file or network is ever read. A
// reference cycle that never descends into the value (built only of $ref,
// allOf, anyOf, oneOf, not, if/then/else and dependentSchemas) would
// validate forever, so it is refused like any other bad schema.
//
// [Tool.Execute] runs one call: the callId is canonical.Checksum(name, raw
// args) over the raw arguments; invalid arguments emit no events and never
// reach the handler; otherwise an [ExecutionObserver] sees start and end
// events. Handler errors, panics (a [PanicError] with the stack) and the
// tool's Timeout become [ErrToolDownstreamError] with the cause kept (a
// handler error matching [ErrInvalidToolArgs] stays one), while
// cancellation of the caller's context is returned as such. Schemas are
// resolved once, at construction, or on first use for tools built with
// [ToolOptions].LazySchema (generated schemas forged in bulk, most never
// called).
//
// # Tool calls
//
// A [ToolCall] is the immutable record of one settled invocation, built
// with [NewToolCall] from a [RawToolCall]. Arguments are always a JSON
// object; the checksum is a required input ([ToolCall.VerifyChecksum]
// recomputes it); [Results] hold exactly one of a [Tokenizable], artifacts
// or media; a text result is the call's own read-only copy of the
// Tokenizable given (a dynamic one keeps its evaluator, and its text stays
// live). Inline defaults to true: producers and middleware decide when a
// result is surfaced as a handle instead. Bad input is
// [ErrInvalidInitialToolCallValue] naming every field at fault. MarshalJSON
// writes the persisted form with artifacts and media referenced by id;
// [UnmarshalToolCall] resolves them through a [ResultResolver] and
// validates again.
//
// # Registry
//
// A [Registry] is an ordered, concurrency-safe name → Tool map with a hidden
// set: [Registry.Visible] and [Registry.Definitions] are what the model is
// offered. [Merge] combines registries, honouring each tool's OnCollision.
//
// # Tokens
//
// A [Tokenizable] is text (static, or computed from the dispatch [Scope]
// by a function) with cached token estimates per [Encoding]: BPE counts
// for the OpenAI encodings (embedded vocabularies, offline) and
// ceil(UTF-16 length / 3.5) for claude. Custom encodings go in an
// [Estimators] set; forge keeps no global mutable state.
//
// # Errors
//
// Every error is a coded [Error]; branch with errors.Is on the sentinels
// (ErrInvalidToolArgs, ...) and read details with errors.As.
package forge
