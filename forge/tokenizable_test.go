package forge

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestEstimateTokensBuiltins(t *testing.T) {
	const fox = "The quick brown fox jumps over the lazy dog."
	tests := []struct {
		enc  Encoding
		text string
		want int
	}{
		{EncodingCL100K, fox, 10},
		{EncodingO200K, fox, 10},
		{EncodingR50K, fox, 10},
		{EncodingP50K, fox, 10},
		{EncodingP50KEdit, fox, 10},
		{EncodingCL100K, "hello world", 2},
		{EncodingO200K, "", 0},
		{EncodingClaude, "", 0},
		{EncodingClaude, "abc", 1},      // ceil(3/3.5)
		{EncodingClaude, "abcdefg", 2},  // ceil(7/3.5)
		{EncodingClaude, "abcdefgh", 3}, // ceil(8/3.5)
		{EncodingClaude, "😀😀😀😀", 3},     // 8 UTF-16 units
		{EncodingClaude, "ééééééé", 2},  // 7 units (runes below U+FFFF count once)
	}
	for _, tt := range tests {
		t.Run(string(tt.enc)+"/"+tt.text, func(t *testing.T) {
			got, err := estimateBuiltin(tt.text, tt.enc)
			if err != nil || got != tt.want {
				t.Errorf("EstimateTokens = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

// Special-token text is counted as plain text, never as one control token.
func TestEstimateTokensSpecialTextIsPlain(t *testing.T) {
	n, err := estimateBuiltin("<|endoftext|>", EncodingCL100K)
	if err != nil || n <= 1 {
		t.Errorf("got %d, %v; want several tokens", n, err)
	}
}

func TestEstimateTokensUnknown(t *testing.T) {
	for _, enc := range []Encoding{"", "gemini", "CL100K_BASE"} {
		if _, err := estimateBuiltin("x", enc); !errors.Is(err, ErrUnknownTokenEncoding) {
			t.Errorf("%q: err = %v", enc, err)
		}
		if _, err := NewTokenizable("x").EstimateTokens(enc); !errors.Is(err, ErrUnknownTokenEncoding) {
			t.Errorf("%q via Tokenizable: err = %v", enc, err)
		}
	}
}

func TestEstimators(t *testing.T) {
	var est Estimators
	for _, enc := range []Encoding{EncodingR50K, EncodingP50K, EncodingP50KEdit, EncodingCL100K, EncodingO200K, EncodingClaude} {
		if err := est.Register(enc, func(string) (int, error) { return 1, nil }); !errors.Is(err, ErrTokenEstimatorShadowsBuiltin) {
			t.Errorf("%s: err = %v", enc, err)
		}
	}
	if err := est.Register("", func(string) (int, error) { return 1, nil }); err == nil {
		t.Errorf("empty encoding accepted")
	}
	if err := est.Register("words", nil); err == nil {
		t.Errorf("nil estimator accepted")
	}
	if _, err := est.Estimate("a b", "words"); !errors.Is(err, ErrUnknownTokenEncoding) {
		t.Errorf("before Register: %v", err)
	}
	if err := est.Register("words", func(s string) (int, error) { return len(strings.Fields(s)), nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := est.Estimate("a", "nope"); !errors.Is(err, ErrUnknownTokenEncoding) {
		t.Errorf("unknown encoding: %v", err)
	}
	if n, err := est.Estimate("a b c", "words"); err != nil || n != 3 {
		t.Errorf("custom = %d, %v", n, err)
	}
	if n, err := est.Estimate("abcdefg", EncodingClaude); err != nil || n != 2 {
		t.Errorf("built-in through Estimators = %d, %v", n, err)
	}
	if _, err := est.Estimate("x", "nope"); !errors.Is(err, ErrUnknownTokenEncoding) {
		t.Errorf("unknown: %v", err)
	}
	boom := errors.New("boom")
	_ = est.Register("failing", func(string) (int, error) { return 0, boom })
	_ = est.Register("negative", func(string) (int, error) { return -1, nil })
	_ = est.Register("panicking", func(string) (int, error) { panic("no") })
	if _, err := est.Estimate("x", "failing"); !errors.Is(err, boom) {
		t.Errorf("failing: %v", err)
	}
	if _, err := est.Estimate("x", "negative"); err == nil {
		t.Errorf("negative count accepted")
	}
	var pe *PanicError
	if _, err := est.Estimate("x", "panicking"); !errors.As(err, &pe) {
		t.Errorf("panicking: %v", err)
	}
	var nilEst *Estimators
	if n, err := nilEst.Estimate("abc", EncodingClaude); err != nil || n != 1 {
		t.Errorf("nil Estimators = %d, %v", n, err)
	}
}

func TestTokenizableCache(t *testing.T) {
	var calls atomic.Int32
	var est Estimators
	_ = est.Register("count", func(s string) (int, error) { calls.Add(1); return len(s), nil })
	tok := NewTokenizable("hello")
	for range 3 {
		if n, err := tok.estimateTokensWith(&est, "count", nil); err != nil || n != 5 {
			t.Fatalf("n = %d, %v", n, err)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("estimator called %d times, want 1 (cached)", calls.Load())
	}
	// Replacing the estimator invalidates cached counts.
	_ = est.Register("count", func(s string) (int, error) { calls.Add(1); return 2 * len(s), nil })
	if n, _ := tok.estimateTokensWith(&est, "count", nil); n != 10 {
		t.Errorf("after re-register n = %d, want 10", n)
	}
	// Another Estimators set with the same name is not served from this cache.
	var other Estimators
	_ = other.Register("count", func(string) (int, error) { return 42, nil })
	if n, _ := tok.estimateTokensWith(&other, "count", nil); n != 42 {
		t.Errorf("other set n = %d, want 42", n)
	}
}

// A long-lived Tokenizable counted with a fresh Estimators set each turn,
// or with one set changed each turn, keeps one count per encoding: counts
// made with a superseded set or generation are forgotten, as documented,
// rather than kept (and the sets pinned) forever.
func TestTokenizableCacheForgetsSupersededEstimators(t *testing.T) {
	count := func(s string) (int, error) { return len(s), nil }
	var same Estimators
	tests := []struct {
		name string
		est  func(t *testing.T) *Estimators // the set for one turn
	}{
		{"fresh set each turn", func(t *testing.T) *Estimators {
			est := new(Estimators)
			if err := est.Register("custom", count); err != nil {
				t.Fatal(err)
			}
			return est
		}},
		{"one set changed each turn", func(t *testing.T) *Estimators {
			if err := same.Register("custom", count); err != nil {
				t.Fatal(err)
			}
			return &same
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := NewTokenizable("hello world")
			for range 100 {
				est := tt.est(t)
				if n, err := tok.estimateTokensWith(est, "custom", nil); err != nil || n != 11 {
					t.Fatalf("custom = %d, %v", n, err)
				}
				if _, err := tok.estimateTokensWith(est, EncodingClaude, nil); err != nil {
					t.Fatal(err)
				}
			}
			tok.mu.Lock()
			n := len(tok.cache)
			tok.mu.Unlock()
			if n != 2 {
				t.Fatalf("cache holds %d entries for 2 encodings (superseded sets and generations kept alive)", n)
			}
		})
	}
}

type iterScope struct{ fakeScope }

func (s iterScope) Iteration() int { return 7 }

func TestDynamicTokenizable(t *testing.T) {
	var evals atomic.Int32
	tok := NewDynamicTokenizable(func(s Scope) (string, error) {
		evals.Add(1)
		if s == nil {
			return "no scope", nil
		}
		return strings.Repeat("x", 7*s.Iteration()), nil
	})
	if !isDynamic(tok) || isDynamic(NewTokenizable("a")) {
		t.Errorf("IsDynamic wrong")
	}
	if tok.String() != "no scope" {
		t.Errorf("String = %q", tok.String())
	}
	if s, err := tok.Render(iterScope{}); err != nil || len(s) != 49 {
		t.Errorf("Render = %q, %v", s, err)
	}
	n1, _ := tok.estimateTokensWith(nil, EncodingClaude, nil)
	n2, _ := tok.estimateTokensWith(nil, EncodingClaude, iterScope{})
	if n1 != 3 || n2 != 14 {
		t.Errorf("counts = %d, %d; want 3, 14 (text changes with the scope)", n1, n2)
	}
	b, err := json.Marshal(tok)
	if err != nil || string(b) != `"no scope"` {
		t.Errorf("MarshalJSON = %s, %v", b, err)
	}
	if NewDynamicTokenizable(nil).String() != "" {
		t.Errorf("nil evaluator")
	}
}

func TestDynamicTokenizableErrors(t *testing.T) {
	boom := errors.New("boom")
	failing := NewDynamicTokenizable(func(Scope) (string, error) { return "", boom })
	panicking := NewDynamicTokenizable(func(Scope) (string, error) { panic("no") })
	for name, tok := range map[string]*Tokenizable{"error": failing, "panic": panicking} {
		t.Run(name, func(t *testing.T) {
			if _, err := tok.Render(nil); !errors.Is(err, ErrTokenizableEvaluatorInvalid) {
				t.Errorf("Render: %v", err)
			}
			if _, err := tok.EstimateTokens(EncodingClaude); !errors.Is(err, ErrTokenizableEvaluatorInvalid) {
				t.Errorf("EstimateTokens: %v", err)
			}
			if _, err := json.Marshal(tok); !errors.Is(err, ErrTokenizableEvaluatorInvalid) {
				t.Errorf("MarshalJSON: %v", err)
			}
			if tok.String() != "" {
				t.Errorf("String = %q", tok.String())
			}
		})
	}
	if _, err := failing.Render(nil); !errors.Is(err, boom) {
		t.Errorf("cause lost")
	}
}

func TestTokenizableJSON(t *testing.T) {
	b, err := json.Marshal(NewTokenizable(`he said "hi"`))
	if err != nil || string(b) != `"he said \"hi\""` {
		t.Errorf("MarshalJSON = %s, %v", b, err)
	}
	var tok Tokenizable
	if err := json.Unmarshal(b, &tok); err != nil || tok.String() != `he said "hi"` {
		t.Errorf("UnmarshalJSON = %q, %v", tok.String(), err)
	}
	if err := json.Unmarshal([]byte(`5`), &tok); err == nil {
		t.Errorf("non-string accepted")
	}
	var nilTok *Tokenizable
	if nilTok.String() != "" {
		t.Errorf("nil String")
	}
	if n, err := nilTok.EstimateTokens(EncodingCL100K); err != nil || n != 0 {
		t.Errorf("nil estimate = %d, %v", n, err)
	}
}

func TestTokenizableConcurrent(t *testing.T) {
	tok := NewTokenizable(strings.Repeat("token counting is fun. ", 50))
	var est Estimators
	_ = est.Register("len", func(s string) (int, error) { return len(s), nil })
	var wg sync.WaitGroup
	want, _ := estimateBuiltin(tok.String(), EncodingCL100K)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			encs := []Encoding{EncodingCL100K, EncodingO200K, EncodingClaude, "len"}
			for j := range 20 {
				n, err := tok.estimateTokensWith(&est, encs[(i+j)%len(encs)], nil)
				if err != nil || n <= 0 {
					t.Errorf("n = %d, %v", n, err)
				}
			}
			if n, _ := tok.EstimateTokens(EncodingCL100K); n != want {
				t.Errorf("cl100k = %d, want %d", n, want)
			}
		}()
	}
	wg.Wait()
}

// UnmarshalJSON may replace the text while other goroutines render and
// count it: each sees one whole text, old or new, and its matching count.
func TestTokenizableUnmarshalConcurrent(t *testing.T) {
	tok := NewDynamicTokenizable(func(Scope) (string, error) { return "dynamic", nil })
	texts := map[string]bool{"dynamic": true, "aaaa": true, "bbbbbbbbbbbbbbbb": true}
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 50 {
			_ = json.Unmarshal([]byte(`"aaaa"`), tok)
			_ = json.Unmarshal([]byte(`"bbbbbbbbbbbbbbbb"`), tok)
		}
	})
	for range 2 {
		wg.Go(func() {
			for range 50 {
				s, err := tok.Render(nil)
				if err != nil || !texts[s] {
					t.Errorf("Render = %q, %v", s, err)
				}
				_ = isDynamic(tok)
				if n, err := tok.EstimateTokens(EncodingClaude); err != nil || n != 2 && n != 5 {
					t.Errorf("claude estimate = %d, %v", n, err)
				}
			}
		})
	}
	wg.Wait()
	if isDynamic(tok) || tok.String() != "bbbbbbbbbbbbbbbb" {
		t.Errorf("after: dynamic=%v text=%q", isDynamic(tok), tok.String())
	}
}

// isDynamic reports whether t's text is computed by a function.
func isDynamic(t *Tokenizable) bool {
	_, eval := t.state()
	return eval != nil
}
