// Package turnstate lends the turn runner the parts of a dispatch that only
// the loop driving it may use: starting a dispatch context, moving it to
// its next iteration, storing a response's entries with their loop-guard
// standing, the loop guard's recorded decisions and the dispatch's outcome.
//
// Package dispatch registers its driver when it is initialised, so before
// any package that imports it runs; the turn runner reaches the driver's
// methods through an interface of its own ([Driver]). Middleware and tools
// see none of this: they get the dispatch context's public methods only.
package turnstate

var driver any

// Register records package dispatch's driver. Only dispatch calls it, once,
// from its init.
func Register(d any) { driver = d }

// Driver returns the registered driver as a D, an interface of the caller's
// that the driver implements. It panics when the driver does not implement
// D: a mismatch between the two packages, caught by any test of the runner.
func Driver[D any]() D { return driver.(D) }

// Decision is what the loop guard decided for one proposed tool call.
type Decision uint8

// Loop-guard decisions.
const (
	// Allow: execute the call.
	Allow Decision = iota
	// BlockedRepeat: do not execute it; answer with an error result.
	BlockedRepeat
	// Finalize: the model repeated a blocked call; finish with one last
	// no-tools iteration.
	Finalize
)

// Verdict is the loop guard's answer for one proposed call.
type Verdict struct {
	Decision Decision
	// Count is how many identical calls this dispatch already made:
	// Earlier plus the allowed ones earlier in the same model response.
	Count int
	// Earlier is how many identical calls earlier iterations of this
	// dispatch stored as executed.
	Earlier int
	// Limit is the effective identical-call limit for the tool.
	Limit int
	// InResponse is set on a BlockedRepeat caused by repeats within one
	// model response: only the first Limit-Earlier of them were executed.
	InResponse bool
}
