package benchdoc_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// history is what a table of current figures does not contain: dates,
// clock times, commit hashes and accounts of earlier work.
var (
	history = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b|\b\d{1,2}:\d\d(:\d\d)?\s*UTC\b|` +
		`(?i)\b(sessions?|tried|dropped|previously|earlier|formerly|used to|no longer)\b`)
	hexWord = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
)

// historyIn returns the first piece of history in line, or "".
func historyIn(line string) string {
	if m := history.FindString(line); m != "" {
		return m
	}
	for _, w := range hexWord.FindAllString(line, -1) {
		if strings.ContainsAny(w, "0123456789") && strings.ContainsAny(w, "abcdef") {
			return w // a commit hash, not a number or a word
		}
	}
	return ""
}

// TestBenchmarksDoc keeps docs/benchmarks.md a record of the product's
// current figures: one "## area" section each, stating the machine, every
// table after the command that reproduces it, and no history (that
// belongs in git).
func TestBenchmarksDoc(t *testing.T) {
	data, err := os.ReadFile("../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	checkBenchmarksDoc(t, string(data))
}

func checkBenchmarksDoc(t testing.TB, doc string) {
	const rules = "docs/benchmarks.md holds current figures only: one \"## area\" section per area, " +
		"each with a \"Machine:\" line and every table after a ```sh block with the command that reproduces it; " +
		"no dates, times, commit hashes or history"
	section, hasMachine, hasCommand, inFence, inTable := "", false, false, false, false
	sections := 0
	endSection := func() {
		if section != "" && !hasMachine {
			t.Errorf("section %q says nothing of the machine it ran on. %s", section, rules)
		}
	}
	for n, line := range strings.Split(doc, "\n") {
		if m := historyIn(line); m != "" {
			t.Errorf("line %d: %q is history. %s", n+1, m, rules)
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			if !inFence && (trimmed == "```sh" || trimmed == "```bash") {
				hasCommand = true
			}
			inFence = !inFence
		case inFence:
		case strings.HasPrefix(line, "## "):
			endSection()
			section, hasMachine, hasCommand = strings.TrimPrefix(line, "## "), false, false
			sections++
		case strings.HasPrefix(line, "Machine:"):
			hasMachine = true
		case strings.HasPrefix(trimmed, "|"):
			if !inTable && !hasCommand {
				t.Errorf("line %d: a table with no command before it in section %q. %s", n+1, section, rules)
			}
			if !inTable && section == "" {
				t.Errorf("line %d: a table outside any \"## area\" section. %s", n+1, rules)
			}
		}
		inTable = !inFence && strings.HasPrefix(trimmed, "|")
	}
	endSection()
	if sections == 0 {
		t.Errorf("no \"## area\" section. %s", rules)
	}
}

// TestBenchmarksDocRules keeps the rules able to fail.
func TestBenchmarksDocRules(t *testing.T) {
	for name, doc := range map[string]string{
		"no command":   "# B\n\n## a\n\nMachine: x\n\n| a |\n|---|\n",
		"no machine":   "# B\n\n## a\n\n```sh\ngo test\n```\n\n| a |\n",
		"a date":       "# B\n\n## a\n\nMachine: x, on 2026-01-02\n\n```sh\ngo test\n```\n",
		"a session":    "# B\n\n## a\n\nMachine: x\n\nThe third " + "session's figures.\n",
		"no section":   "# B\n\n```sh\ngo test\n```\n\n| a |\n",
		"a commit":     "# B\n\n## a\n\nMachine: x\n\nAt 3f9c2ab1.\n",
		"a clock time": "# B\n\n## a\n\nMachine: x\n\nMeasured at 16:20 UTC.\n",
	} {
		var rec recorder
		checkBenchmarksDoc(&rec, doc)
		if !rec.failed {
			t.Errorf("%s: passes the rules", name)
		}
	}
	var rec recorder
	checkBenchmarksDoc(&rec, "# B\n\n## a\n\nMachine: x\n\n```sh\ngo test\n```\n\n| a |\n|---|\n| 1 |\n")
	if rec.failed {
		t.Error("a well-formed section fails the rules")
	}
}

// recorder is a testing.TB that records failures instead of reporting them.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
