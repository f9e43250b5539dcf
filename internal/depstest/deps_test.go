package depstest

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/ebbforge/adk"

// layers ranks every package of the module. A package may import module
// packages of a strictly lower rank only. Subpackages not listed inherit the
// rank of their nearest listed ancestor, except where listed themselves.
var layers = map[string]int{
	"internal/errcode":             0,
	"internal/quoted":              0,
	"internal/safetext":            0,
	"internal/turnstate":           0, // the runner's driver of dispatch contexts, registered by dispatch
	"internal/forgestate":          0, // a registry's change count, registered by forge
	"llm/internal/sse":             0,
	"llm/internal/wire":            1,  // above its SSE reader
	"llm/internal/wiretest":        10, // test helpers of the adapters
	"canonical":                    1,
	"media":                        1,
	"forge":                        2,
	"spooledartifact":              3,
	"spooledartifact/jsonartifact": 4,
	"spooledartifact/mdartifact":   4,
	"dispatch":                     5,
	"dispatch/storetest":           10, // test support for every store
	"llm":                          6,  // the model contract: adapters import it, not the runner
	"turnrunner":                   7,
	"llm/scripted":                 7,
	"llm/openaicompat":             7,
	"llm/anthropic":                7,
	"llm/gemini":                   7,
	"mcptool":                      8,
	"mcpserver":                    8,
	"store":                        8,
	"uistream":                     8,
	"examples":                     9,
	"examples/internal":            8, // helpers the examples share
	"internal/depstest":            10,
	"internal/benchdoc":            0, // a leaf: benchmarks at every layer may use it
	"internal/cputime":             0, // a leaf, like benchdoc: benchmarks and bench/ tools use it
	"internal/golden":              10,
	"internal/heapwatch":           10,
	"internal/testdeps":            10,
	"bench":                        10,
	"docs":                         10, // the guides' examples
	"internal/docstest":            10,

	// the artifact kinds' shared argument and answer helpers, below
	// spooledartifact, which uses them too
	"spooledartifact/internal/method": 1,
	// test support of the artifact packages
	"spooledartifact/internal/ctxtest": 10,
}

// external lists third-party module prefixes with the lowest rank allowed to
// depend on them (transitively), so a heavy dependency cannot creep into a
// low layer. Anything unlisted is a new dependency to be added here on purpose.
var external = []struct {
	minRank  int
	prefixes []string
}{
	{1, []string{"github.com/tidwall/", "github.com/google/uuid"}},
	// Injected logging is allowed wherever there is something worth logging.
	{2, []string{"github.com/rs/zerolog", "github.com/mattn/go-colorable", "github.com/mattn/go-isatty", "golang.org/x/sys/"}},
	{2, []string{"github.com/google/jsonschema-go", "github.com/tiktoken-go/tokenizer", "github.com/dlclark/regexp2"}},
	// forge's argument validator and its localised messages.
	{2, []string{"github.com/santhosh-tekuri/jsonschema/v6", "golang.org/x/text/"}},
	{4, []string{"github.com/yuin/goldmark", "go.yaml.in/yaml/v3", "github.com/titanous/json5"}},
	{5, []string{"golang.org/x/sync"}},
	// The official MCP SDK and what it brings, for mcptool and mcpserver.
	{8, []string{"github.com/modelcontextprotocol/go-sdk", "github.com/segmentio/", "github.com/yosida95/uritemplate/",
		"golang.org/x/oauth2", "golang.org/x/time/"}},
	// store/sqlitestore's pure-Go SQLite driver and what it pins.
	{8, []string{"modernc.org/", "github.com/dustin/go-humanize", "github.com/remyoudompheng/bigfft", "github.com/ncruces/go-strftime"}},
	// Test-only helpers may appear in the closure of test-support packages.
	{10, []string{"go.uber.org/goleak", "github.com/google/go-cmp"}},
}

func rank(t *testing.T, pkg string) int {
	t.Helper()
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	for p := rel; p != "" && p != "."; {
		if r, ok := layers[p]; ok {
			return r
		}
		i := strings.LastIndex(p, "/")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	t.Errorf("package %s has no rank in depstest.layers: add it on purpose", pkg)
	return -1
}

// minRankFor is the lowest rank allowed to depend on dep.
func minRankFor(dep string) int {
	min := 1 << 30
	for _, e := range external {
		for _, p := range e.prefixes {
			if strings.HasPrefix(dep, p) && e.minRank < min {
				min = e.minRank
			}
		}
	}
	return min
}

func goList(t *testing.T, format string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", format, module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	res := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		res[fields[0]] = fields[1:]
	}
	return res
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// violations lists every edge of deps that breaks the layering.
func violations(t *testing.T, deps map[string][]string) []string {
	t.Helper()
	names := make([]string, 0, len(deps))
	for p := range deps {
		names = append(names, p)
	}
	sort.Strings(names)
	var bad []string
	for _, pkg := range names {
		r := rank(t, pkg)
		for _, dep := range deps[pkg] {
			switch {
			case isStd(dep):
			case strings.HasPrefix(dep, module+"/"):
				if dr := rank(t, dep); dr >= r {
					bad = append(bad, fmt.Sprintf("%s (rank %d) depends on %s (rank %d): imports must point down", pkg, r, dep, dr))
				}
			default:
				if r < minRankFor(dep) {
					bad = append(bad, fmt.Sprintf("%s (rank %d) depends on external %s, allowed from rank %d (unlisted = never): add it to depstest.external on purpose", pkg, r, dep, minRankFor(dep)))
				}
			}
		}
	}
	return bad
}

// TestImportDirection fails when a package imports one of the same or a
// higher layer, directly or through its (non-test) dependency closure.
func TestImportDirection(t *testing.T) {
	deps := goList(t, `{{.ImportPath}} {{join .Deps " "}}`)
	if len(deps) < 5 {
		t.Fatalf("go list found only %d packages", len(deps))
	}
	for _, v := range violations(t, deps) {
		t.Error(v)
	}
}

// TestViolationsDetected makes sure the rule itself can fail.
func TestViolationsDetected(t *testing.T) {
	m := module + "/"
	fake := map[string][]string{
		m + "canonical":       {"strings", m + "forge", "github.com/rs/zerolog"},
		m + "forge":           {m + "canonical", "github.com/rs/zerolog"},
		m + "dispatch":        {m + "forge", m + "turnrunner"},
		m + "turnrunner":      {m + "dispatch", "example.com/unknown"},
		m + "spooledartifact": {m + "forge", "github.com/tidwall/gjson"},
	}
	got := violations(t, fake)
	if len(got) != 4 {
		t.Fatalf("want 4 violations (canonical→forge, canonical→zerolog, dispatch→turnrunner, turnrunner→unknown), got %d:\n%s", len(got), strings.Join(got, "\n"))
	}
}
