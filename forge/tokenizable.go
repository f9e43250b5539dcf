package forge

// Encoding names a token encoding.
type Encoding string

// Built-in encodings. The OpenAI ones count with a BPE tokenizer; Claude and
// unknown-but-registered ones are documented estimates.
const (
	EncodingGPT2     Encoding = "gpt2"
	EncodingR50K     Encoding = "r50k_base"
	EncodingP50K     Encoding = "p50k_base"
	EncodingP50KEdit Encoding = "p50k_edit"
	EncodingCL100K   Encoding = "cl100k_base"
	EncodingO200K    Encoding = "o200k_base"
	EncodingClaude   Encoding = "claude"
)

// Evaluator produces the text of a dynamic Tokenizable. scope is nil when the
// value is rendered outside a dispatch.
type Evaluator func(scope Scope) (string, error)

// EstimatorFunc counts the tokens of text under one encoding.
type EstimatorFunc func(text string) (int, error)

// Tokenizable is a text value with cached token estimates per encoding.
// Safe for concurrent use.
type Tokenizable struct {
	// implemented by the forge package owner
	value string
	eval  Evaluator
}

// NewTokenizable returns a static Tokenizable holding s.
func NewTokenizable(s string) *Tokenizable { return &Tokenizable{value: s} }

// NewDynamicTokenizable returns a Tokenizable whose text is computed by fn.
func NewDynamicTokenizable(fn Evaluator) *Tokenizable { return &Tokenizable{eval: fn} }

// String returns the text (a dynamic value rendered with a nil scope; "" if
// the evaluator fails).
func (t *Tokenizable) String() string {
	if t == nil {
		return ""
	}
	if t.eval != nil {
		s, err := t.Render(nil)
		if err != nil {
			return ""
		}
		return s
	}
	return t.value
}

// Render resolves the text against scope. An evaluator error is wrapped in
// ErrTokenizableEvaluatorInvalid.
func (t *Tokenizable) Render(scope Scope) (string, error) {
	if t == nil {
		return "", nil
	}
	if t.eval == nil {
		return t.value, nil
	}
	s, err := t.eval(scope)
	if err != nil {
		return "", ErrTokenizableEvaluatorInvalid.With(err, "evaluator failed")
	}
	return s, nil
}

// EstimateTokens estimates the tokens of the text under enc with the built-in
// estimators. Unknown encodings give ErrUnknownTokenEncoding.
func (t *Tokenizable) EstimateTokens(enc Encoding) (int, error) {
	return EstimateTokens(t.String(), enc)
}

// EstimateTokens counts text under a built-in encoding.
func EstimateTokens(text string, enc Encoding) (int, error) {
	_ = text
	return 0, ErrUnknownTokenEncoding.With(nil, "encoding %q: not implemented yet", enc)
}

// Estimators is a set of custom token estimators layered over the built-ins.
// The zero value holds only the built-ins. Safe for concurrent use.
type Estimators struct{}

// Register adds a custom estimator; shadowing a built-in encoding returns
// ErrTokenEstimatorShadowsBuiltin.
func (e *Estimators) Register(enc Encoding, fn EstimatorFunc) error { return nil }

// Estimate counts text under enc, custom estimators first, then built-ins.
func (e *Estimators) Estimate(text string, enc Encoding) (int, error) {
	return EstimateTokens(text, enc)
}
