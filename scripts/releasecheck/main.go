// Command releasecheck checks that the repository's Go modules are ready to
// be tagged VERSION, and prints the git tag commands in dependency order. It
// creates no tag and pushes nothing: publishing is pushing the tags.
//
//	go run ./scripts/releasecheck -version v0.1.0   (make release-check VERSION=v0.1.0)
//
// A module is ready when every module of this repository it requires is
// required at VERSION (the replace directives stay: they keep the workspace
// building before the tags exist, and a consumer's build ignores them) and
// its section of CHANGELOG.md has a "### [VERSION]" heading.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// root is the root module's path; the others are under it.
const root = "github.com/oncetable/oncetable"

// dirs are the modules released together, by directory.
var dirs = []string{".", "runtime/idempotency", "runtime/ddblocal", "runtime/txn", "runtime/retry", "runtime/ddbtest"}

var semver = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// module is one go.mod: its directory, path and the repository's modules it
// requires, with their versions.
type module struct {
	dir, path string
	requires  map[string]string
}

// parseGoMod reads the module path and the requires of this repository's
// modules from a go.mod.
func parseGoMod(dir string, r io.Reader) (module, error) {
	m := module{dir: dir, requires: map[string]string{}}
	sc := bufio.NewScanner(r)
	inRequire := false
	for sc.Scan() {
		f := strings.Fields(strings.TrimSpace(strings.SplitN(sc.Text(), "//", 2)[0]))
		switch {
		case len(f) == 0:
		case f[0] == "module" && len(f) == 2:
			m.path = f[1]
		case f[0] == "require" && len(f) == 2 && f[1] == "(":
			inRequire = true
		case inRequire && f[0] == ")":
			inRequire = false
		case f[0] == "require" && len(f) == 3:
			m.add(f[1], f[2])
		case inRequire && len(f) == 2:
			m.add(f[0], f[1])
		}
	}
	if m.path == "" {
		return module{}, fmt.Errorf("%s/go.mod: no module line", dir)
	}
	return m, sc.Err()
}

func (m *module) add(path, version string) {
	if path == root || strings.HasPrefix(path, root+"/") {
		m.requires[path] = version
	}
}

// tag is the git tag of m at version: a module in a subdirectory is tagged
// with the directory as prefix (go.dev/ref/mod#vcs-version).
func (m module) tag(version string) string {
	if m.dir == "." {
		return version
	}
	return m.dir + "/" + version
}

// order sorts mods so that each comes after the modules it requires, ties
// by path; it fails on a cycle.
func order(mods []module) ([]module, error) {
	byPath := map[string]module{}
	for _, m := range mods {
		byPath[m.path] = m
	}
	var out []module
	done, visiting := map[string]bool{}, map[string]bool{}
	var visit func(m module) error
	visit = func(m module) error {
		if done[m.path] {
			return nil
		}
		if visiting[m.path] {
			return fmt.Errorf("a require cycle through %s", m.path)
		}
		visiting[m.path] = true
		deps := make([]string, 0, len(m.requires))
		for p := range m.requires {
			deps = append(deps, p)
		}
		sort.Strings(deps)
		for _, p := range deps {
			if d, ok := byPath[p]; ok {
				if err := visit(d); err != nil {
					return err
				}
			}
		}
		done[m.path] = true
		out = append(out, m)
		return nil
	}
	sorted := append([]module(nil), mods...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].path < sorted[j].path })
	for _, m := range sorted {
		if err := visit(m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// changelogVersions returns, for each module directory, the version
// headings ("### [v0.1.0]") of its section of the changelog: the "## "
// heading that names the root module's path or the directory in backquotes.
func changelogVersions(r io.Reader) map[string][]string {
	out := map[string][]string{}
	var section []string
	heading := regexp.MustCompile(`^### \[([^\]]+)\]`)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = nil
			for _, d := range dirs {
				if (d == "." && strings.TrimSpace(line[3:]) == root) || (d != "." && strings.Contains(line, "`"+d+"`")) {
					section = append(section, d)
				}
			}
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			for _, d := range section {
				out[d] = append(out[d], m[1])
			}
		}
	}
	return out
}

// check returns what keeps mods from being tagged version, and the tag
// commands in dependency order.
func check(mods []module, changelog map[string][]string, version string) (problems, tags []string, err error) {
	if !semver.MatchString(version) {
		return nil, nil, fmt.Errorf("version %q is not a semantic version such as v0.1.0", version)
	}
	sorted, err := order(mods)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range sorted {
		deps := make([]string, 0, len(m.requires))
		for p := range m.requires {
			deps = append(deps, p)
		}
		sort.Strings(deps)
		for _, p := range deps {
			if v := m.requires[p]; v != version {
				problems = append(problems, fmt.Sprintf("%s/go.mod requires %s %s: run (cd %s && go mod edit -require=%s@%s)", m.dir, p, v, m.dir, p, version))
			}
		}
		found := false
		for _, v := range changelog[m.dir] {
			found = found || v == version
		}
		if !found {
			problems = append(problems, fmt.Sprintf("CHANGELOG.md: the section of %s has no \"### [%s]\" heading (rename its [Unreleased] to [%s] - YYYY-MM-DD)", m.path, version, version))
		}
		tags = append(tags, fmt.Sprintf("git tag -a %s -m '%s %s'", m.tag(version), m.path, version))
	}
	return problems, tags, nil
}

func main() {
	version := flag.String("version", "", "the version to release, such as v0.1.0")
	repo := flag.String("C", ".", "the repository's root")
	flag.Parse()
	if err := run(*repo, *version, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "releasecheck:", err)
		os.Exit(1)
	}
}

func run(repo, version string, w io.Writer) error {
	var mods []module
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(repo, d, "go.mod"))
		if err != nil {
			return err
		}
		m, err := parseGoMod(d, f)
		f.Close()
		if err != nil {
			return err
		}
		mods = append(mods, m)
	}
	f, err := os.Open(filepath.Join(repo, "CHANGELOG.md"))
	if err != nil {
		return err
	}
	defer f.Close()
	problems, tags, err := check(mods, changelogVersions(f), version)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Tags for %s, in dependency order (after the fixes below, on the commit that has them):\n", version)
	for _, t := range tags {
		fmt.Fprintln(w, "  "+t)
	}
	fmt.Fprintln(w, "then: git push origin "+strings.Join(tagNames(mods, version), " "))
	if len(problems) > 0 {
		fmt.Fprintf(w, "Not ready (%d):\n", len(problems))
		for _, p := range problems {
			fmt.Fprintln(w, "  "+p)
		}
		return fmt.Errorf("%d problems keep %s from being tagged", len(problems), version)
	}
	fmt.Fprintln(w, "Ready.")
	return nil
}

func tagNames(mods []module, version string) []string {
	sorted, _ := order(mods)
	var out []string
	for _, m := range sorted {
		out = append(out, m.tag(version))
	}
	return out
}
