package turnrunner

import "testing"

// runningTurns keeps a prefix while any turn with it runs (two turns may
// share a TurnID), matches ids by their first segment only, and ending a
// turn twice changes nothing.
func TestRunningTurnsKeep(t *testing.T) {
	var rt runningTurns // the zero value is an empty set
	if rt.keep("a/c1") {
		t.Fatal("zero value keeps a/c1")
	}
	endA1 := rt.begin("a/")
	endA2 := rt.begin("a/")
	endB := rt.begin("b%2Fx/")
	tests := []struct {
		id   string
		want bool
	}{
		{"a/c1", true},
		{"a/", true},
		{"b%2Fx/c1", true},
		{"b/c1", false},  // another turn's ("b")
		{"ab/c1", false}, // turn "ab", not "a"
		{"a", false},     // no turn's
		{"c/a/c1", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := rt.keep(tt.id); got != tt.want {
			t.Errorf("keep(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
	endA1()
	endA1() // once only: turn a's second run still counts
	if !rt.keep("a/c1") {
		t.Error("a/c1 not kept while a second turn a runs")
	}
	endA2()
	endB()
	for _, id := range []string{"a/c1", "b%2Fx/c1"} {
		if rt.keep(id) {
			t.Errorf("keep(%q) after every turn ended", id)
		}
	}
	if len(rt.n) != 0 {
		t.Errorf("ended turns left %v", rt.n)
	}
}
