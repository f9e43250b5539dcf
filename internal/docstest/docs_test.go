package docstest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rules are what docs and comments may not contain. Each says why, for the
// failure message.
var rules = []struct {
	re  *regexp.Regexp
	why string
}{
	// Some patterns are spelled in pieces so that this file does not
	// read as one that breaks its own rules.
	{regexp.MustCompile(`/wo` + `rk/|sha` + `red/(refer` + `ence|fixtures)`), "a path outside the repository"},
	{regexp.MustCompile(`(?i)adk-be` + `haviou?r|field-su` + `rvey|wire-pro` + `tocols\.md|ecosy` + `stem\.md|integra` + `tions\.md|go-st` + `yle\.md`),
		"a note kept outside the repository"},
	{regexp.MustCompile(`§\s*\d`), "a section of a document outside the repository"},
	{regexp.MustCompile(`(?i)\bthe (product )?seeds\b`), "a note kept outside the repository"},
	{regexp.MustCompile(`(?i)\b(issues?|tickets?|pull requests?)\s*#?\d+\b|\bPRs?\s*#?\d+\b|\(#\d+\)|#\d+'s\b`), "an issue number"},
	{regexp.MustCompile(`(?i)\b(this|previous|earlier|later|next|first|second|third|fourth|fifth|sixth) session'?s? (fix(es)?|figures|work|code|changes|review|runs?)\b`),
		"the history of the work"},
	{regexp.MustCompile(`(?i)tried a` + `nd dropped|lab no` + `tebook|point-by-po` + `int review|\bthe en` + `gineer'?s?\b|\bthe is` + `sue\b`), "the history of the work"},
	{regexp.MustCompile(`(?i)\bused to (be|crash|run|check|skip|point|say|qualify|keep|return|lose|hang|panic|leak|fail|report)\b`),
		"the history of the work"},
	{regexp.MustCompile(`(?i)\bthe reference's|\bbehaviou?r reference\b`), "a note kept outside the repository"},
}

// anyRule matches what any of the rules matches, so that each file is
// scanned once.
var anyRule = func() *regexp.Regexp {
	var alts []string
	for _, r := range rules {
		alts = append(alts, "(?:"+r.re.String()+")")
	}
	return regexp.MustCompile(strings.Join(alts, "|"))
}()

// TestDocsSpeakOfTheProduct reads every .go and .md file of the
// repository (but test data and installed dependencies).
func TestDocsSpeakOfTheProduct(t *testing.T) {
	root := moduleRoot(t)
	self, _ := filepath.Abs("docs_test.go")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".testdeps", "node_modules", "testdata", "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); (ext != ".go" && ext != ".md") || path == self {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		text := string(data)
		for _, loc := range anyRule.FindAllStringIndex(text, -1) {
			m := text[loc[0]:loc[1]]
			why := "not allowed"
			for _, r := range rules {
				if r.re.MatchString(m) {
					why = r.why
					break
				}
			}
			line := 1 + strings.Count(text[:loc[0]], "\n")
			t.Errorf("%s:%d: %q is %s. Docs and comments describe the product and stand alone: "+
				"say what the behaviour is, not where a note about it lives, which issue asked for it or how the work went "+
				"(history belongs in git).", rel, line, m, why)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d files checked from %s", checked, root)
	}
}

// TestRulesCatch keeps the rules able to fail.
func TestRulesCatch(t *testing.T) {
	for _, bad := range []string{
		"see /wo" + "rk/sha" + "red/refer" + "ence/x.md", "as §" + "8.7 says", "iss" + "ue 12", "(" + "#" + "2)", "#" + "2's figures",
		"the " + "seeds say so", "the fifth " + "session's figures", "tried " + "and dropped",
		"it used " + "to crash", "the reference" + "'s rules", "the " + "issue's target",
	} {
		caught := false
		for _, r := range rules {
			caught = caught || r.re.MatchString(bad)
		}
		if !caught {
			t.Errorf("%q passes the rules", bad)
		}
	}
	for _, good := range []string{"Invoice #" + "42", "a new session", "seed := 1", "the session ends", "HTTP 404"} {
		for _, r := range rules {
			if r.re.MatchString(good) {
				t.Errorf("%q is caught as %s", good, r.why)
			}
		}
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && filepath.Base(filepath.Dir(filepath.Join(dir, "go.mod"))) != "" {
			if _, err := os.Stat(filepath.Join(dir, "internal", "docstest")); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root not found")
		}
		dir = parent
	}
}
