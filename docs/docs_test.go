package docs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// guides are the documents whose Go code must be part of an example in
// this directory, so that it compiles and runs with the tests.
var guides = []string{"getting-started.md", "tools.md", "artifacts.md", "turn-loop.md", "from-nhtio-adk.md"}

// TestGuideSnippets checks that every ```go block of a guide appears, line
// for line (indentation aside), in one of this directory's test files.
func TestGuideSnippets(t *testing.T) {
	tests, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, f := range tests {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code = append(code, "\n"+trimLines(string(data))+"\n")
	}
	blocks := 0
	for _, g := range guides {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range goBlocks(string(data)) {
			blocks++
			want := "\n" + trimLines(block) + "\n"
			found := false
			for _, c := range code {
				found = found || strings.Contains(c, want)
			}
			if !found {
				t.Errorf("%s: this Go block is not part of an example in docs/*_test.go, so nothing compiles or runs it:\n%s", g, block)
			}
		}
	}
	if blocks < 8 {
		t.Fatalf("only %d Go blocks found in the guides", blocks)
	}
}

// goBlocks returns the contents of the ```go fences of a Markdown text.
func goBlocks(md string) []string {
	var out []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```go":
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			out = append(out, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return out
}

// trimLines drops each line's indentation and the blank lines.
func trimLines(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
