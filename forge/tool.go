package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ebbforge/adk/internal/safetext"
	"github.com/ebbforge/adk/media"
)

// Scope is the view of the running dispatch that forge hands to handlers and
// dynamic Tokenizables. dispatch.Context implements it; it is nil outside a
// dispatch.
type Scope interface {
	// DispatchID identifies the running dispatch.
	DispatchID() string
	// Iteration is the 0-based iteration number.
	Iteration() int
}

// Invocation is what a handler learns about the call it serves.
type Invocation struct {
	Tool   string         // the tool's name
	ID     string         // the provider's call id, when known
	CallID string         // canonical.Checksum(tool, raw args)
	Meta   map[string]any // a copy of the tool's Meta (see Tool.Options); nil when it has none
	Scope  Scope          // nil outside a dispatch
}

// OutputKind tells what a handler returned.
type OutputKind int

// Output kinds.
const (
	outputNone OutputKind = iota // the zero Output
	OutputText
	OutputBytes
	OutputReader
	OutputMedia
	OutputArtifact
)

// Output is a handler's return value: text or bytes (spooled into an artifact
// by the turn runner), a stream (spooled without buffering), media (landed
// untouched) or an artifact the handler built itself.
type Output struct {
	kind     OutputKind
	text     string
	bytes    []byte
	reader   io.Reader
	media    []*media.Media
	artifact Artifact
}

// TextOutput returns text to be spooled.
func TextOutput(s string) Output { return Output{kind: OutputText, text: s} }

// BytesOutput returns bytes to be spooled.
func BytesOutput(b []byte) Output { return Output{kind: OutputBytes, bytes: b} }

// ReaderOutput returns a stream to be spooled; the spooler closes it if it is
// an io.Closer. A stream Tool.Execute does not deliver (the handler returned
// it with an error, or after its timeout or the caller's cancellation made
// Execute give up) is closed by Execute instead, when it is an io.Closer.
func ReaderOutput(r io.Reader) Output { return Output{kind: OutputReader, reader: r} }

// MediaOutput returns media results.
func MediaOutput(m ...*media.Media) Output { return Output{kind: OutputMedia, media: m} }

// ArtifactOutput returns an artifact the handler built itself.
func ArtifactOutput(a Artifact) Output { return Output{kind: OutputArtifact, artifact: a} }

// Kind reports what the output holds.
func (o Output) Kind() OutputKind { return o.kind }

// Text returns the text of an OutputText.
func (o Output) Text() string { return o.text }

// Bytes returns the bytes of an OutputBytes.
func (o Output) Bytes() []byte { return o.bytes }

// Reader returns the stream of an OutputReader.
func (o Output) Reader() io.Reader { return o.reader }

// Media returns the media of an OutputMedia.
func (o Output) Media() []*media.Media { return o.media }

// Artifact returns the artifact of an OutputArtifact.
func (o Output) Artifact() Artifact { return o.artifact }

// check reports why o is not a usable handler result, or "".
func (o Output) check() string {
	switch o.kind {
	case OutputText, OutputBytes:
		return ""
	case OutputReader:
		if isNil(o.reader) {
			return "handler returned a nil reader"
		}
	case OutputMedia:
		if len(o.media) == 0 {
			return "handler returned no media"
		}
		for _, m := range o.media {
			if m == nil {
				return "handler returned a nil media"
			}
		}
	case OutputArtifact:
		if isNil(o.artifact) {
			return "handler returned a nil artifact"
		}
	default:
		return "handler returned no output (return TextOutput(\"\") for an empty answer)"
	}
	return ""
}

// handler serves an untyped tool.
type handler = func(ctx context.Context, args map[string]any, inv Invocation) (Output, error)

// artifactHandler serves an artifact tool: it answers with text, inline.
type artifactHandler = func(ctx context.Context, args map[string]any, inv Invocation) (string, error)

// Collision is a name-collision policy for Registry.Merge.
type Collision string

// Collision policies.
const (
	CollisionThrow   Collision = "throw"
	CollisionReplace Collision = "replace"
	CollisionKeep    Collision = "keep"
)

func (c Collision) valid() bool {
	switch c {
	case "", CollisionThrow, CollisionReplace, CollisionKeep:
		return true
	}
	return false
}

// ToolOptions are a tool's optional settings; nil means defaults.
type ToolOptions struct {
	ArtifactKind ArtifactKind   // wraps returned text/bytes; nil means the plain artifact
	Trusted      bool           // render output in the trusted envelope
	Ephemeral    bool           // dropped by Registry.PruneEphemeral
	OnCollision  Collision      // "" means CollisionThrow
	Meta         map[string]any // handed to the handler; the tool keeps a copy, deep only as Tool.Options says
	Timeout      time.Duration  // per-call limit; 0 means none beyond the caller's context
	// LazySchema declares the schema document machine-generated and
	// trusted: construction does no schema work, and parsing and
	// resolving wait for the tool's first Validate or Execute. Schema and
	// Definition publish the document as given (a copy, its root closed as
	// NewTool says when it is open by omission; generate it
	// compact), or for a typed tool the derived schema encoded. Worth it
	// for tools built in bulk of which few are called, like the artifact_*
	// tools forged whenever a turn gets a new result. A document that does not resolve fails
	// every call with ErrInvalidInitialToolValue (the message construction
	// would otherwise have given), before the handler runs.
	LazySchema bool
	// OpenSchema takes an untyped tool's schema with the semantics its
	// author gave it: a root that says nothing about unknown argument keys
	// accepts them, as JSON Schema says, instead of being closed (see
	// NewTool), and Schema publishes the document unchanged. For schemas
	// written for another validator, such as an MCP server's, which would
	// accept the keys a closed copy refuses. Typed tools ignore it.
	OpenSchema bool
}

// SchemaCustomizer lets the argument type of a typed tool refine the schema
// derived from it, for what struct tags cannot say: enums, defaults, bounds,
// patterns. NewTypedTool checks A and *A for it and calls it once, before
// the schema is resolved. Defaults only apply to optional properties
// (fields tagged omitempty or omitzero). An error or a panic in
// CustomizeSchema makes NewTypedTool return ErrInvalidInitialToolValue
// ("schema: customize: ...").
type SchemaCustomizer interface {
	CustomizeSchema(s *jsonschema.Schema) error
}

// Tool is a named, described, schema-validated handler. Immutable and safe
// for concurrent use.
type Tool struct {
	name, description string
	schema            json.RawMessage
	opts              ToolOptions
	handler           handler
	artifactHandler   artifactHandler
	// v is the resolved schema; nil for a LazySchema tool, whose lazy
	// resolves it once, on first use (shared with the tool's copies: see
	// internal/forgestate).
	v    *validator
	lazy *lazyValidator
	// decode turns validated arguments into a *A for the typed handler
	// (set from args, root defaults included, for a struct of plain
	// fields, or decoded from raw, patched with the root defaults that were filled in, or
	// from raw re-decoded with its number literals kept when nested
	// defaults may apply) and typed calls the handler with it; both are nil
	// for untyped tools.
	decode func(v *validator, raw json.RawMessage, args map[string]any, added applied) (any, error)
	typed  func(ctx context.Context, a any, inv Invocation) (Output, error)
	// keys refuses argument keys a typed tool's schema lets through that
	// encoding/json would match to a field without regard to case; nil
	// when the schema refuses every unknown key.
	keys *keyGuard
}

// NewTool returns an untyped tool whose arguments are validated against the
// JSON Schema document schema (root type "object"). Unknown argument keys
// are rejected unless the schema allows them: a root that has none of
// additionalProperties, patternProperties or unevaluatedProperties is
// closed with "additionalProperties": false ("unevaluatedProperties":
// false when it composes subschemas with allOf, anyOf, oneOf, $ref, if or
// dependentSchemas), and Schema and Definition publish that closed document
// so the model is told. Say "additionalProperties": true to accept any key.
// Under a $schema before 2019-09, which has no unevaluatedProperties, a
// composing root that does not say is refused (see the package doc).
// Nested objects are followed as written. With opts.OpenSchema the root
// is left as written too.
//
// h receives the validated JSON object. Its numbers are float64, the values
// that were validated: a literal with more than 15 significant digits
// (9007199254740993) arrives rounded, as it was checked. Use a typed tool
// for exact large integers.
func NewTool(name, description string, schema json.RawMessage, h func(ctx context.Context, args map[string]any, inv Invocation) (Output, error), opts *ToolOptions) (*Tool, error) {
	var p problems
	if h == nil {
		p.add("handler: required")
	}
	return newTool(&p, name, description, schema, nil, opts, func(t *Tool) { t.handler = h })
}

// NewTypedTool returns a tool whose JSON Schema is derived from A with
// jsonschema.For: json tags name the properties, a `jsonschema:"..."` tag
// describes one, fields without omitempty/omitzero are required, and unknown
// keys are rejected (additionalProperties: false). A may implement
// [SchemaCustomizer] to add enums, defaults or bounds. The handler receives
// the arguments decoded into A after validation.
//
// The schema describes what encoding/json decodes: a json.Number field is
// a JSON number, a json.RawMessage any JSON value, a big.Int an integer
// (written in digits: big.Int's decoder refuses 1e2, naming the field), and
// a field whose type decodes itself is what its method takes (any value for
// UnmarshalJSON, a string for UnmarshalText), the method's error naming the
// field. Struct shapes the two
// would read differently are refused, naming the field: an embedded struct
// with a json tag (encoding/json nests it, the derivation flattens it), the
// ",string" option, and two fields sharing a json name. encoding/json
// matches keys to fields without regard to case, so where a customized
// schema lets unknown keys through, a key that differs from a field's json
// name only in case is refused as invalid arguments.
func NewTypedTool[A any](name, description string, h func(ctx context.Context, args A, inv Invocation) (Output, error), opts *ToolOptions) (*Tool, error) {
	var p problems
	if h == nil {
		p.add("handler: required")
	}
	s, err := deriveSchema[A]()
	if err != nil {
		p.add("schema: cannot derive from %T: %v", *new(A), err)
		return nil, p.err(ErrInvalidInitialToolValue, name)
	}
	// Shapes the schema and encoding/json would read differently; the
	// schema itself may not even resolve then, so stop here.
	if d := disagreements(reflect.TypeFor[A]()); len(d) > 0 {
		for _, d := range d {
			p.add("schema: %s", d)
		}
		return nil, p.err(ErrInvalidInitialToolValue, name)
	}
	var zero A
	if c, ok := any(&zero).(SchemaCustomizer); ok {
		if err := customize(c, s); err != nil {
			p.add("schema: customize: %v", err)
		}
	} else if c, ok := any(zero).(SchemaCustomizer); ok {
		if err := customize(c, s); err != nil {
			p.add("schema: customize: %v", err)
		}
	}
	keys := newKeyGuard(reflect.TypeFor[A](), s)
	fill := newStructFill(reflect.TypeFor[A]())
	return newTool(&p, name, description, nil, s, opts, func(t *Tool) {
		t.keys = keys
		t.decode = func(v *validator, raw json.RawMessage, args map[string]any, added applied) (any, error) {
			if fill != nil && !added.all {
				// The validated arguments already hold the values, root
				// defaults included: set the struct from them rather
				// than parse raw (and the defaults) again.
				a := new(A)
				if fill.fill(reflect.ValueOf(a), raw, args) {
					return a, nil
				}
			}
			src, err := v.decodeSource(raw, added)
			if err != nil {
				return nil, argsError(name, []string{err.Error()})
			}
			a := new(A) // a pointer boxes into the any without a copy
			if err := json.Unmarshal(src, a); err != nil {
				newA := func() any { return new(A) }
				// JSON Schema counts 1e2 and 10.0 as integers; encoding/json
				// does not decode them into int fields. Spell such numbers
				// in plain digits and try once more.
				if !integralNumberError(err) {
					return nil, argsError(name, decodeProblems(src, newA, err))
				}
				plain, changed := plainIntegers(src)
				if !changed {
					return nil, argsError(name, decodeProblems(src, newA, err))
				}
				a = new(A)
				if err := json.Unmarshal(plain, a); err != nil {
					return nil, argsError(name, decodeProblems(plain, newA, err))
				}
			}
			if added.mask != 0 {
				// Only root defaults were filled in: decode just those
				// over the struct, leaving the raw values' precision alone.
				if err := json.Unmarshal(v.defaultsPatch(added.mask), a); err != nil {
					return nil, argsError(name, []string{decodeProblem(err)})
				}
			}
			return a, nil
		}
		t.typed = func(ctx context.Context, a any, inv Invocation) (Output, error) {
			return h(ctx, *a.(*A), inv)
		}
	})
}

// customize calls c, turning a panic (a customizer indexing a property that
// does not exist, say) into an error.
func customize(c SchemaCustomizer, s *jsonschema.Schema) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panicked: %v", p)
		}
	}()
	return c.CustomizeSchema(s)
}

// NewArtifactTool returns an ArtifactTool: its answers are inline text and its
// calls are marked FromArtifactTool. opts.ArtifactKind must be nil. Its
// schema is closed to unknown keys as NewTool's is.
func NewArtifactTool(name, description string, schema json.RawMessage, h func(ctx context.Context, args map[string]any, inv Invocation) (string, error), opts *ToolOptions) (*Tool, error) {
	var p problems
	if h == nil {
		p.add("handler: required")
	}
	if opts != nil && opts.ArtifactKind != nil {
		p.add("artifactKind: an ArtifactTool answers inline and cannot have an artifact kind")
	}
	return newTool(&p, name, description, schema, nil, opts, func(t *Tool) { t.artifactHandler = h })
}

// newTool validates the common fields, resolves the schema (the raw document
// when derived is nil) and returns the tool, or every problem found.
func newTool(p *problems, name, description string, schema json.RawMessage, derived *jsonschema.Schema,
	opts *ToolOptions, set func(*Tool)) (*Tool, error) {
	if !validToolName(name) {
		p.add("name: %q must match ^[a-zA-Z0-9_-]{1,64}$", safetext.Prefix(name, quotedPrefix))
	}
	if description == "" {
		p.add("description: required")
	}
	var o ToolOptions
	if opts != nil {
		o = *opts
	}
	if !o.OnCollision.valid() {
		p.add("onCollision: %q is not one of throw, replace, keep", o.OnCollision)
	}
	if o.Timeout < 0 {
		p.add("timeout: %s is negative", o.Timeout)
	}
	if o.ArtifactKind != nil {
		if isNil(o.ArtifactKind) {
			p.add("artifactKind: nil %T", o.ArtifactKind)
		} else if o.ArtifactKind.Name() == "" {
			p.add("artifactKind: empty name")
		}
	}
	if len(o.Meta) > 0 {
		if err := checkMeta(o.Meta); err != "" {
			p.add("meta: %s", err)
		} else {
			o.Meta = cloneArgs(o.Meta)
		}
	} else {
		o.Meta = nil
	}
	var v *validator
	var doc json.RawMessage
	if derived == nil && !o.OpenSchema {
		var err error
		if schema, err = closedRoot(schema); err != nil {
			p.add("schema: %v", err)
		}
	}
	switch {
	case derived == nil && len(schema) == 0:
		p.add("schema: required")
	case o.LazySchema:
		if derived == nil {
			doc = bytes.Clone(schema)
		} else {
			var err error
			if doc, err = schemaDoc(nil, derived); err != nil {
				p.add("schema: %v", err)
			}
		}
	default:
		var err error
		v, doc, err = newValidator(schema, derived)
		if err != nil {
			p.add("schema: %v", err)
		}
	}
	if err := p.err(ErrInvalidInitialToolValue, name); err != nil {
		return nil, err
	}
	t := &Tool{name: name, description: description, schema: doc, opts: o, v: v}
	if o.LazySchema {
		t.lazy = &lazyValidator{derived: derived}
	}
	set(t)
	return t, nil
}

// constructed reports whether t came from a constructor.
func (t *Tool) constructed() bool { return t != nil && (t.v != nil || t.opts.LazySchema) }

// validator returns t's resolved schema, resolving a LazySchema on first use.
func (t *Tool) validator() (*validator, error) {
	switch {
	case !t.constructed():
		return nil, ErrInvalidToolArgs.With(nil, "forge: nil or unconstructed tool")
	case t.v != nil:
		return t.v, nil
	}
	return t.lazy.get(t.name, t.schema)
}

// lazyValidator resolves a LazySchema tool's schema once, on first use.
type lazyValidator struct {
	once    sync.Once
	derived *jsonschema.Schema // the typed tool's; nil: the published document's
	v       *validator
	err     error
}

// get resolves the schema of the tool named name whose published document
// is doc.
func (l *lazyValidator) get(name string, doc json.RawMessage) (*validator, error) {
	l.once.Do(func() {
		l.v, l.err = resolveDoc(doc, l.derived)
		if l.err != nil {
			l.err = (&problems{"schema: " + l.err.Error()}).err(ErrInvalidInitialToolValue, name)
		}
	})
	return l.v, l.err
}

func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isNil reports whether v is nil or an interface holding a nil pointer, map,
// slice, func or channel.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// Name is the tool's name.
func (t *Tool) Name() string { return t.name }

// Description is shown to the model.
func (t *Tool) Description() string { return t.description }

// Schema is the input JSON Schema document (a copy): derived for typed
// tools, otherwise the caller's document, compacted (as given with
// LazySchema), with the root closed to unknown keys when it did not say
// (see NewTool).
func (t *Tool) Schema() json.RawMessage { return bytes.Clone(t.schema) }

// IsArtifactTool reports whether t is an ArtifactTool.
func (t *Tool) IsArtifactTool() bool { return t.artifactHandler != nil }

// Options returns the tool's settings as given to its constructor, with
// OnCollision "" made CollisionThrow. Meta is a copy (nil when the tool has
// none), deep through nested map[string]any and []any values,
// so changing it never reaches the tool or a concurrent call; other values
// (structs, pointers, maps or slices of other types) are shared with the
// tool, not copied. The constructors refuse a Meta they cannot copy so: one
// whose map[string]any and []any values nest deeper than 100 levels (a map
// or slice containing itself does) or number more than 100 000.
func (t *Tool) Options() ToolOptions {
	o := t.opts
	o.OnCollision = t.onCollision()
	if o.Meta != nil {
		o.Meta = cloneArgs(o.Meta)
	}
	return o
}

// onCollision is the tool's merge policy.
func (t *Tool) onCollision() Collision {
	if t.opts.OnCollision == "" {
		return CollisionThrow
	}
	return t.opts.OnCollision
}

// Validate checks raw JSON arguments against the schema without coercion and
// returns the validated object (defaults applied), or ErrInvalidToolArgs with
// a model-readable message naming each bad field. Empty raw arguments (nil,
// "" or only white space) mean {}; anything that is not a JSON object is
// ErrInvalidToolArgs.
//
// For a typed tool the arguments must also decode into its argument type
// (an integer too large for an int field is caught here). An integer
// written with a fraction or exponent (1e2, 10.0) is an integer, as JSON
// Schema counts it, and decodes exactly into an int field. Number literals
// that float64 would round (more than 15 significant digits) are validated
// as written, so bounds hold for the exact value the field receives; the
// returned object, like an untyped tool's, holds float64 numbers.
//
// A LazySchema tool resolves its schema on the first call; when it does not
// resolve, every call returns ErrInvalidInitialToolValue instead.
func (t *Tool) Validate(raw json.RawMessage) (map[string]any, error) {
	args, _, err := t.prepare(raw)
	return args, err
}

// prepare validates raw and, for a typed tool, decodes it.
func (t *Tool) prepare(raw json.RawMessage) (args map[string]any, typedArgs any, err error) {
	v, err := t.validator()
	if err != nil {
		return nil, nil, err
	}
	args, added, err := v.validate(t.name, raw)
	if err != nil {
		return nil, nil, err
	}
	if t.keys != nil {
		if p := t.keys.check(args, "", nil); len(p) > 0 {
			return nil, nil, argsError(t.name, capProblems(p))
		}
	}
	if t.decode != nil {
		if typedArgs, err = t.decode(v, raw, args, added); err != nil {
			return nil, nil, err
		}
	}
	return args, typedArgs, nil
}
