package forge

import (
	"encoding/json"
	"fmt"
	"sync"
	"unicode/utf16"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names a token encoding. The built-in ones count as follows:
//   - r50k_base (GPT-2's byte-pair table), p50k_base, p50k_edit,
//     cl100k_base, o200k_base count BPE tokens with
//     github.com/tiktoken-go/tokenizer (vocabularies are embedded; nothing
//     is fetched). Special-token text such as "<|endoftext|>" is counted as
//     plain text.
//   - claude is an estimate: ceil(n / 3.5), n being the length in UTF-16
//     code units (as JavaScript's String.length, matching the original).
//
// Counting under any other encoding, unless an [Estimators] set has one
// registered, is ErrUnknownTokenEncoding.
type Encoding string

// Built-in encodings. The OpenAI ones count with a BPE tokenizer; Claude and
// unknown-but-registered ones are documented estimates.
const (
	EncodingR50K     Encoding = "r50k_base"
	EncodingP50K     Encoding = "p50k_base"
	EncodingP50KEdit Encoding = "p50k_edit"
	EncodingCL100K   Encoding = "cl100k_base"
	EncodingO200K    Encoding = "o200k_base"
	EncodingClaude   Encoding = "claude"
)

// builtin reports whether enc is a built-in encoding.
func (enc Encoding) builtin() bool {
	switch enc {
	case EncodingR50K, EncodingP50K, EncodingP50KEdit, EncodingCL100K, EncodingO200K, EncodingClaude:
		return true
	}
	return false
}

// evaluator produces the text of a dynamic Tokenizable.
type evaluator = func(scope Scope) (string, error)

// estimator counts the tokens of text under one encoding.
type estimator = func(text string) (int, error)

// Tokenizable is a text value with cached token estimates per encoding.
// Safe for concurrent use.
//
// Each encoding caches one estimate, the latest, together with the text it
// was computed for and, for a custom estimator, the Estimators set and its
// version: a dynamic value whose text changes with the scope is recounted
// rather than served a stale figure, and a count made with another set, or
// before its set changed, is recounted and replaces the old one. The cache
// is bounded by the number of encodings counted, however many sets come
// and go.
type Tokenizable struct {
	// mu guards every field: UnmarshalJSON may replace value and eval
	// while another goroutine renders.
	mu    sync.Mutex
	value string
	eval  evaluator
	cache map[Encoding]cacheEntry
	// readOnly marks a ToolCall's own text (see sealedCopy): UnmarshalJSON
	// refuses it. Set before the value is shared and never changed.
	readOnly bool
}

// cacheEntry is an encoding's latest count and what it was counted from.
type cacheEntry struct {
	est  *Estimators // the set whose custom estimator counted; nil for a built-in
	gen  uint64      // est's generation when counted
	text string
	n    int
}

// NewTokenizable returns a static Tokenizable holding s.
func NewTokenizable(s string) *Tokenizable { return &Tokenizable{value: s} }

// NewDynamicTokenizable returns a Tokenizable whose text is computed by fn
// each time it is rendered; scope is nil when it is rendered outside a
// dispatch. A nil fn renders as "".
func NewDynamicTokenizable(fn func(scope Scope) (string, error)) *Tokenizable {
	if fn == nil {
		return &Tokenizable{}
	}
	return &Tokenizable{eval: fn}
}

// state reads the text source under the lock.
func (t *Tokenizable) state() (string, evaluator) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.value, t.eval
}

// String returns the text (a dynamic value rendered with a nil scope; "" if
// the evaluator fails).
func (t *Tokenizable) String() string {
	s, err := t.Render(nil)
	if err != nil {
		return ""
	}
	return s
}

// Render resolves the text against scope. An evaluator error or panic is
// wrapped in ErrTokenizableEvaluatorInvalid.
func (t *Tokenizable) Render(scope Scope) (s string, err error) {
	if t == nil {
		return "", nil
	}
	value, eval := t.state()
	if eval == nil {
		return value, nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = ErrTokenizableEvaluatorInvalid.With(&PanicError{Value: p}, "forge: tokenizable evaluator panicked")
		}
	}()
	s, err = eval(scope)
	if err != nil {
		return "", ErrTokenizableEvaluatorInvalid.With(err, "forge: tokenizable evaluator failed")
	}
	return s, nil
}

// MarshalJSON encodes the text (a dynamic value rendered with a nil scope)
// as a JSON string; an evaluator failure is returned.
func (t *Tokenizable) MarshalJSON() ([]byte, error) {
	s, err := t.Render(nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// UnmarshalJSON sets a static value from a JSON string, dropping any cache.
// It is safe to call while other goroutines render t: they see the old text
// or the new, never a mix.
//
// The text of a ToolCall (its Results().Text()) is read-only, as the call
// is immutable: UnmarshalJSON refuses it with ErrInvalidInitialToolCallValue
// and leaves it unchanged. Decode into a new Tokenizable instead.
func (t *Tokenizable) UnmarshalJSON(data []byte) error {
	if t.readOnly { // never changes once t is shared: no lock needed
		return ErrInvalidInitialToolCallValue.With(nil,
			"forge: json.Unmarshal cannot change the text of a ToolCall, which is immutable: decode into a new Tokenizable")
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("forge: tokenizable: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.value, t.eval, t.cache = s, nil, nil
	return nil
}

// sealedCopy returns a read-only Tokenizable with t's text source (its text,
// or its evaluator), for a ToolCall to own; t itself when already read-only.
func (t *Tokenizable) sealedCopy() *Tokenizable {
	if t.readOnly {
		return t
	}
	value, eval := t.state()
	return &Tokenizable{value: value, eval: eval, readOnly: true}
}

// EstimateTokens estimates the tokens of the text under enc with the built-in
// estimators. Unknown encodings give ErrUnknownTokenEncoding.
func (t *Tokenizable) EstimateTokens(enc Encoding) (int, error) {
	return t.estimateTokensWith(nil, enc, nil)
}

// estimateTokensWith renders the text against scope and counts it under enc
// with est (custom estimators first, then the built-ins; nil est means the
// built-ins only), caching the count.
func (t *Tokenizable) estimateTokensWith(est *Estimators, enc Encoding, scope Scope) (int, error) {
	text, err := t.Render(scope)
	if err != nil {
		return 0, err
	}
	if t == nil {
		return est.Estimate(text, enc)
	}
	var fn estimator
	var src *Estimators // the set fn comes from; nil for a built-in
	var gen uint64
	if est != nil {
		if f, g := est.lookup(enc); f != nil {
			fn, src, gen = f, est, g
		}
	}
	t.mu.Lock()
	if e, ok := t.cache[enc]; ok && e.est == src && e.gen == gen && e.text == text {
		t.mu.Unlock()
		return e.n, nil
	}
	t.mu.Unlock()
	var n int
	if fn != nil {
		n, err = callEstimator(fn, enc, text)
	} else {
		n, err = estimateBuiltin(text, enc)
	}
	if err != nil {
		return 0, err
	}
	t.mu.Lock()
	if t.cache == nil {
		t.cache = map[Encoding]cacheEntry{}
	}
	t.cache[enc] = cacheEntry{est: src, gen: gen, text: text, n: n}
	t.mu.Unlock()
	return n, nil
}

// estimateBuiltin counts text under a built-in encoding (see Encoding).
func estimateBuiltin(text string, enc Encoding) (int, error) {
	switch enc {
	case EncodingClaude:
		return claudeEstimate(text), nil
	case EncodingR50K, EncodingP50K, EncodingP50KEdit, EncodingCL100K, EncodingO200K:
		if text == "" {
			return 0, nil
		}
		c, err := codecs[enc]()
		if err != nil {
			return 0, fmt.Errorf("forge: load %s tokenizer: %w", enc, err)
		}
		n, err := c.Count(text)
		if err != nil {
			return 0, fmt.Errorf("forge: count %s tokens: %w", enc, err)
		}
		return n, nil
	}
	return 0, ErrUnknownTokenEncoding.With(nil, "forge: unknown token encoding %q", enc)
}

// claudeEstimate is ceil(utf16len / 3.5) = ceil(2*len / 7).
func claudeEstimate(text string) int {
	n := 0
	for _, r := range text {
		n += utf16.RuneLen(r)
	}
	return (2*n + 6) / 7
}

// codecs loads each BPE vocabulary once, on first use. It is an immutable
// cache, not mutable state: a tokenizer.Codec is safe for concurrent Count.
var codecs = map[Encoding]func() (tokenizer.Codec, error){
	EncodingR50K:     sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.R50kBase) }),
	EncodingP50K:     sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.P50kBase) }),
	EncodingP50KEdit: sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.P50kEdit) }),
	EncodingCL100K:   sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.Cl100kBase) }),
	EncodingO200K:    sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.O200kBase) }),
}

// Estimators is a set of custom token estimators layered over the built-ins.
// The zero value holds only the built-ins. Safe for concurrent use.
type Estimators struct {
	mu  sync.RWMutex
	fns map[Encoding]estimator
	gen uint64 // bumped on every change, so cached counts go stale
}

// Register adds a custom estimator, replacing an earlier one for the same
// encoding; shadowing a built-in encoding returns
// ErrTokenEstimatorShadowsBuiltin. An empty encoding or nil fn is
// ErrUnknownTokenEncoding.
func (e *Estimators) Register(enc Encoding, fn func(text string) (int, error)) error {
	if enc.builtin() {
		return ErrTokenEstimatorShadowsBuiltin.With(nil, "forge: encoding %q is built in", enc)
	}
	if enc == "" || fn == nil {
		return ErrUnknownTokenEncoding.With(nil, "forge: register estimator: empty encoding or nil estimator")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fns == nil {
		e.fns = map[Encoding]estimator{}
	}
	e.fns[enc] = fn
	e.gen++
	return nil
}

func (e *Estimators) lookup(enc Encoding) (estimator, uint64) {
	if e == nil {
		return nil, 0
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.fns[enc], e.gen
}

// Estimate counts text under enc, custom estimators first, then the
// built-ins (see Encoding); a nil *Estimators counts with the built-ins
// only. A custom estimator's error or panic is returned wrapped; a negative
// count is an error.
func (e *Estimators) Estimate(text string, enc Encoding) (int, error) {
	if fn, _ := e.lookup(enc); fn != nil {
		return callEstimator(fn, enc, text)
	}
	return estimateBuiltin(text, enc)
}

func callEstimator(fn estimator, enc Encoding, text string) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			n, err = 0, fmt.Errorf("forge: %s estimator: %w", enc, &PanicError{Value: p})
		}
	}()
	n, err = fn(text)
	if err != nil {
		return 0, fmt.Errorf("forge: %s estimator: %w", enc, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("forge: %s estimator: negative count %d", enc, n)
	}
	return n, nil
}
