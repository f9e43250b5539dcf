package llm_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/ebbforge/adk/llm"
)

// A model that is rate limited once, wrapped in a retry policy: the caller
// sees one clean response.
func ExampleWithRetry() {
	calls := 0
	flaky := llm.ModelFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Part, error] {
		return func(yield func(llm.Part, error) bool) {
			calls++
			if calls == 1 {
				yield(llm.Part{}, llm.StatusError(&llm.APIError{Provider: "example", StatusCode: 429}))
				return
			}
			if yield(llm.TextPart("Hello."), nil) {
				yield(llm.StopPart(llm.StopEnd), nil)
			}
		}
	})
	m := llm.WithRetry(flaky, llm.RetryPolicy{BaseDelay: time.Millisecond,
		OnRetry: func(attempt int, _ time.Duration, err error) {
			fmt.Printf("attempt %d failed (rate limited: %v), retrying\n", attempt, errors.Is(err, llm.ErrRateLimited))
		}})
	for p, err := range m.Stream(context.Background(), &llm.Request{}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		if p.Kind == llm.PartText {
			fmt.Println("text:", p.Text)
		}
	}
	// Output:
	// attempt 1 failed (rate limited: true), retrying
	// text: Hello.
}
