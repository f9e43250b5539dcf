package forge

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ebbforge/adk/internal/forgestate"
)

func namedTool(t testing.TB, name string, opts *ToolOptions) *Tool {
	t.Helper()
	tool, err := NewTool(name, "tool "+name, objSchema, echoHandler, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// isHidden reports whether name is in r's hidden set.
func isHidden(r *Registry, name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.hidden[name]
	return ok
}

// hidden returns r's hidden tools, in order.
func hidden(r *Registry) []*Tool {
	var out []*Tool
	for _, t := range r.All() {
		if isHidden(r, t.name) {
			out = append(out, t)
		}
	}
	return out
}

// has reports whether r holds a tool named name.
func has(r *Registry, name string) bool {
	_, ok := r.Get(name)
	return ok
}

func names(tools []*Tool) []string {
	out := []string{}
	for _, t := range tools {
		out = append(out, t.Name())
	}
	return out
}

func TestRegistryBasics(t *testing.T) {
	var r Registry // zero value is usable
	if len(r.All()) != 0 || len(r.All()) != 0 || has(&r, "a") {
		t.Fatal("zero registry not empty")
	}
	a, b, c := namedTool(t, "a", nil), namedTool(t, "b", nil), namedTool(t, "c", nil)
	for _, tool := range []*Tool{a, b, c} {
		if err := r.Register(tool, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Register(namedTool(t, "b", nil), false); !errors.Is(err, ErrToolAlreadyRegistered) {
		t.Fatalf("duplicate: err = %v", err)
	}
	b2 := namedTool(t, "b", &ToolOptions{Trusted: true})
	if err := r.Register(b2, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Get("b"); got != b2 {
		t.Errorf("overwrite did not replace")
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, names(r.All())); diff != "" {
		t.Errorf("order after overwrite (-want +got):\n%s", diff)
	}
	if len(r.All()) != 3 || !has(&r, "c") || has(&r, "zz") {
		t.Errorf("Len/Has wrong")
	}
	if _, ok := r.Get("zz"); ok {
		t.Errorf("Get unknown")
	}
	if err := r.Register(nil, false); !errors.Is(err, ErrInvalidInitialToolValue) {
		t.Errorf("nil tool: err = %v", err)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, names(r.All())); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

func TestNewRegistryDuplicate(t *testing.T) {
	if _, err := NewRegistry(namedTool(t, "a", nil), namedTool(t, "a", nil)); !errors.Is(err, ErrToolAlreadyRegistered) {
		t.Fatalf("err = %v", err)
	}
	var e *Error
	_, err := NewRegistry(namedTool(t, "a", nil), namedTool(t, "a", nil))
	if errors.As(err, &e); !e.Fatal || e.Status != 409 {
		t.Errorf("want fatal 409: %+v", e)
	}
}

func TestRegistryHidden(t *testing.T) {
	r, _ := NewRegistry(namedTool(t, "a", nil), namedTool(t, "b", nil), namedTool(t, "c", nil))
	r.Hide("b", "later")
	if diff := cmp.Diff([]string{"a", "c"}, names(r.Visible())); diff != "" {
		t.Errorf("visible (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b"}, names(hidden(r))); diff != "" {
		t.Errorf("hidden (-want +got):\n%s", diff)
	}
	_ = r.Register(namedTool(t, "later", nil), false) // remembered before it existed
	if !isHidden(r, "later") || len(hidden(r)) != 2 {
		t.Errorf("unknown hidden name not remembered")
	}
	r.Unhide("b")
	if isHidden(r, "b") {
		t.Errorf("Unhide failed")
	}
	r.Unhide("later")
	r.Hide("a")
	if diff := cmp.Diff([]string{"a"}, names(hidden(r))); diff != "" {
		t.Errorf("Hide (-want +got):\n%s", diff)
	}
}

func TestRegistryPruneEphemeral(t *testing.T) {
	r, _ := NewRegistry(namedTool(t, "a", nil), namedTool(t, "e1", &ToolOptions{Ephemeral: true}),
		namedTool(t, "b", nil), namedTool(t, "e2", &ToolOptions{Ephemeral: true}))
	r.Hide("e1", "b")
	r.PruneEphemeral()
	changes := forgestate.Changes(r)
	r.PruneEphemeral() // idempotent, and not a change: caches keyed on the count stay valid
	if got := forgestate.Changes(r); got != changes {
		t.Errorf("a prune that removed nothing changed the count from %d to %d", changes, got)
	}
	if diff := cmp.Diff([]string{"a", "b"}, names(r.All())); diff != "" {
		t.Errorf("after prune (-want +got):\n%s", diff)
	}
	if isHidden(r, "e1") || !isHidden(r, "b") {
		t.Errorf("prune hidden entries wrong")
	}
}

func TestRegistryClone(t *testing.T) {
	r, _ := NewRegistry(namedTool(t, "a", nil), namedTool(t, "b", nil))
	r.Hide("a")
	c := r.Clone()
	c.Unhide("a")
	_ = c.Register(namedTool(t, "z", nil), false)
	if diff := cmp.Diff([]string{"a", "b"}, names(r.All())); diff != "" || !isHidden(r, "a") {
		t.Errorf("clone shares state with the original: %s", diff)
	}
	var zero Registry
	if len(zero.Clone().All()) != 0 {
		t.Errorf("clone of zero")
	}
}

func TestRegistryDefinitions(t *testing.T) {
	r, _ := NewRegistry(namedTool(t, "a", nil), namedTool(t, "b", nil))
	r.Hide("a", "not-registered", "nor-this", "nor-that")
	defs := r.Definitions()
	if len(defs) != 1 || defs[0].Name != "b" || defs[0].Description != "tool b" || !json.Valid(defs[0].Parameters) {
		t.Errorf("definitions = %+v", defs)
	}
}

func TestMerge(t *testing.T) {
	plain := func(n string) *Tool { return namedTool(t, n, nil) }
	with := func(n string, c Collision) *Tool { return namedTool(t, n, &ToolOptions{OnCollision: c, Trusted: true}) }
	tests := []struct {
		name      string
		policy    Collision
		left      []*Tool
		right     []*Tool
		wantNames []string
		wantRight []string // names whose tool must come from right
		wantErr   error
	}{
		{"disjoint", CollisionThrow, []*Tool{plain("a")}, []*Tool{plain("b")}, []string{"a", "b"}, []string{"b"}, nil},
		{"throw", CollisionThrow, []*Tool{plain("a")}, []*Tool{plain("a")}, nil, nil, ErrToolAlreadyRegistered},
		{"empty policy is throw", "", []*Tool{plain("a")}, []*Tool{plain("a")}, nil, nil, ErrToolAlreadyRegistered},
		{"policy replace keeps position", CollisionReplace, []*Tool{plain("a"), plain("b")}, []*Tool{plain("a")}, []string{"a", "b"}, []string{"a"}, nil},
		{"policy keep", CollisionKeep, []*Tool{plain("a")}, []*Tool{plain("a")}, []string{"a"}, nil, nil},
		{"tool replace beats throw", CollisionThrow, []*Tool{plain("a")}, []*Tool{with("a", CollisionReplace)}, []string{"a"}, []string{"a"}, nil},
		{"tool keep beats throw", CollisionThrow, []*Tool{plain("a")}, []*Tool{with("a", CollisionKeep)}, []string{"a"}, nil, nil},
		{"tool keep beats replace", CollisionReplace, []*Tool{plain("a")}, []*Tool{with("a", CollisionKeep)}, []string{"a"}, nil, nil},
		{"tool replace beats keep", CollisionKeep, []*Tool{plain("a")}, []*Tool{with("a", CollisionReplace)}, []string{"a"}, []string{"a"}, nil},
		{"invalid policy", "merge", nil, nil, nil, nil, ErrInvalidInitialToolValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			left, _ := NewRegistry(tt.left...)
			right, _ := NewRegistry(tt.right...)
			got, err := Merge(tt.policy, left, nil, right)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantNames, names(got.All())); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			for _, n := range tt.wantNames {
				g, _ := got.Get(n)
				r, _ := right.Get(n)
				l, _ := left.Get(n)
				fromRight := contains(tt.wantRight, n)
				if fromRight && g != r || !fromRight && g != l {
					t.Errorf("%s came from the wrong registry", n)
				}
			}
			if len(left.All()) != len(tt.left) || len(right.All()) != len(tt.right) {
				t.Errorf("inputs modified")
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestMergeHidden(t *testing.T) {
	left, _ := NewRegistry(namedTool(t, "a", nil), namedTool(t, "b", nil), namedTool(t, "c", nil))
	left.Hide("a", "b")
	right, _ := NewRegistry(namedTool(t, "b", &ToolOptions{OnCollision: CollisionReplace}), namedTool(t, "d", nil))
	right.Hide("d")
	got, err := Merge(CollisionThrow, left, right)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "d"}, names(hidden(got))); diff != "" {
		t.Errorf("hidden (-want +got):\n%s", diff)
	}
	if !isHidden(left, "b") {
		t.Errorf("merge changed an input's hidden set")
	}
}

func TestRegistryConcurrent(t *testing.T) {
	var r Registry
	var wg sync.WaitGroup
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range rounds {
				name := fmt.Sprintf("t%d_%d", i, j%5)
				_ = r.Register(namedTool(t, name, &ToolOptions{Ephemeral: j%2 == 0}), true)
				r.Hide(name)
				_ = r.Visible()
				_ = r.Definitions()
				r.Unhide(name)
				_, _ = r.Get(name)
				if j%10 == 0 {
					r.PruneEphemeral()
					_ = r.Clone()
				}
			}
		}()
	}
	wg.Wait()
	for _, tl := range r.All() {
		if got, ok := r.Get(tl.Name()); !ok || got != tl {
			t.Errorf("All holds %s, Get does not", tl.Name())
		}
	}
}
