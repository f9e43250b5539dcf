package dispatch

import "maps"

// Loop-guard defaults, used when the corresponding LoopPolicy field is 0.
const (
	defaultMaxIterations     = 25 // model calls of one dispatch, the final no-tools answer included
	defaultMaxIdenticalCalls = 3  // executed calls with the same checksum per turn
)

// LoopPolicy is the built-in loop guard of a dispatch. The zero value is ON
// with the defaults: at most 25 model calls and 3 identical tool calls (same
// tool, same canonical arguments) per turn.
//
// The guard never throws. An identical call past the limit is not executed:
// the model gets an error result saying it already made this exact call and
// what it returned. If it repeats a blocked call in a later response, or the
// iteration cap is reached, the dispatch finishes gracefully: one last model
// call with no tools offered and a note asking for an answer with what it
// has. Only the calls the dispatch executed count: not history, nor calls
// it refused (blocked, denied, cut off).
type LoopPolicy struct {
	// MaxIterations caps model calls per dispatch, the final no-tools
	// answer included; 0 means 25, < 0 no cap.
	MaxIterations int
	// MaxIdenticalCalls caps identical calls per turn; 0 means 3, < 0 no
	// repeat check. Calls replayed from history do not count.
	MaxIdenticalCalls int
	// Disabled turns the whole guard off (no iteration cap, no repeat check).
	Disabled bool
	// PerTool overrides MaxIdenticalCalls for the named tools; a negative
	// value exempts the tool from the repeat check.
	PerTool map[string]int
}

// clone returns p with its own copy of PerTool, so that the copy and p
// share no map.
func (p LoopPolicy) clone() LoopPolicy {
	p.PerTool = maps.Clone(p.PerTool)
	return p
}

// iterationLimit is the effective iteration cap, 0 when there is none.
func (p LoopPolicy) iterationLimit() int {
	switch {
	case p.Disabled || p.MaxIterations < 0:
		return 0
	case p.MaxIterations == 0:
		return defaultMaxIterations
	}
	return p.MaxIterations
}

// identicalCallLimit is the effective repeat cap for tool, 0 when the
// check is off for it.
func (p LoopPolicy) identicalCallLimit(tool string) int {
	if p.Disabled || p.MaxIdenticalCalls < 0 {
		return 0
	}
	n := p.MaxIdenticalCalls
	switch tp := p.PerTool[tool]; {
	case tp < 0:
		return 0
	case tp > 0:
		n = tp
	}
	if n == 0 {
		n = defaultMaxIdenticalCalls
	}
	return n
}
