package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository, from this package's directory.
const root = "../.."

// history matches what a page about today must not say: issue numbers,
// the issue or the seed the project grew from, and narrated changes.
var history = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`(?i)\bissues?\s*#?\d+`), "cites an issue number"},
	{regexp.MustCompile(`(?i)\b(the|this|that) issue\b|\bissue's\b`), "refers to an issue"},
	{regexp.MustCompile(`(?i)\bproject's seed\b|\bthe seed (commit|project|repository)\b|\bseed (commit|repository)\b`), "refers to the project's seed"},
	{regexp.MustCompile(`(?i)\bbefore the move\b|\bafter the move\b`), "narrates a change"},
	{regexp.MustCompile(`(?i)\(was \d|\bwas \d+ before\b`), "narrates a change"},
	{regexp.MustCompile(`(?i)\bthis round\b|\blast round\b|\bthe previous round\b`), "narrates a change"},
}

// pages are README.md, docs/*.md and every doc.go outside dependencies
// and hidden directories.
func pages(t *testing.T) []string {
	t.Helper()
	out := []string{filepath.Join(root, "README.md")}
	md, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(md) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	out = append(out, md...)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && name == "doc.go" {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDocsStateWhatIs fails on any page that cites an issue or the seed,
// or narrates what changed.
func TestDocsStateWhatIs(t *testing.T) {
	for _, p := range pages(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, h := range history {
				if m := h.re.FindString(line); m != "" {
					rel, _ := filepath.Rel(root, p)
					t.Errorf("%s:%d %s (%q): say what is; history goes in CHANGELOG.md and commit messages\n\t%s", rel, i+1, h.why, m, strings.TrimSpace(line))
				}
			}
		}
	}
}

// TestHistoryPatterns: the patterns catch what they are for and pass
// ordinary prose.
func TestHistoryPatterns(t *testing.T) {
	caught := []string{"Target (issue 6): 1 request", "before issue 10", "the issue's sketch", "what the issue asks for",
		"this project's seed quotes", "records written before the move", "126 (was 98 before", "issues #12"}
	passed := []string{"an issue of aws-sdk-go-v2 (https://github.com/aws/aws-sdk-go-v2/issues/1825)", "seed 42 of the workload",
		"the random seed is fixed", "the history of attempts", "a record that no longer blocks its key", "issued for the other index"}
	match := func(s string) bool {
		for _, h := range history {
			if h.re.MatchString(s) {
				return true
			}
		}
		return false
	}
	for _, s := range caught {
		if !match(s) {
			t.Errorf("%q is not caught", s)
		}
	}
	for _, s := range passed {
		if match(s) {
			t.Errorf("%q is caught, but says nothing of history", s)
		}
	}
}

// link is a Markdown link's target.
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestRelativeLinksResolve fails on a link from README.md, docs/*.md or
// docs/reports/*.md to a file of the repository that does not exist.
func TestRelativeLinksResolve(t *testing.T) {
	reports, err := filepath.Glob(filepath.Join(root, "docs", "reports", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(pages(t), reports...) {
		if !strings.HasSuffix(p, ".md") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), target)); err != nil {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s links to %s, which does not exist", rel, m[1])
			}
		}
	}
}

// TestReportsHaveTheirTarget fails on a measurement report in docs/reports/
// that no make target writes: each is named by its target's [report] line
// in the Makefile, whose recipe writes it under $(REPORTS).
func TestReportsHaveTheirTarget(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	reports, err := filepath.Glob(filepath.Join(root, "docs", "reports", "*.md"))
	if err != nil || len(reports) == 0 {
		t.Fatalf("no docs/reports/*.md (%v)", err)
	}
	for _, p := range reports {
		name := "docs/reports/" + filepath.Base(p)
		if !regexp.MustCompile(`(?m)^##.*\[report\] ` + regexp.QuoteMeta(name)).Match(mk) {
			t.Errorf("%s: no make target names it (a \"[report] %s\" line in the Makefile's help)", name, name)
		}
	}
}
