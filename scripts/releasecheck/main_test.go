package main

import (
	"reflect"
	"strings"
	"testing"
)

const lib = root + "/runtime/lib"

func mods(t *testing.T, rootMod, libMod string) []module {
	t.Helper()
	r, err := parseGoMod(".", strings.NewReader(rootMod))
	if err != nil {
		t.Fatal(err)
	}
	l, err := parseGoMod("runtime/lib", strings.NewReader(libMod))
	if err != nil {
		t.Fatal(err)
	}
	return []module{r, l}
}

func TestCheck(t *testing.T) {
	const ready = "module " + root + "\n\ngo 1.26\n\nrequire (\n\tgithub.com/aws/aws-sdk-go-v2 v1.0.0\n\t" + lib + " v0.2.0 // indirect\n)\n\nreplace " + lib + " => ./runtime/lib\n"
	const pseudo = "module " + root + "\n\nrequire " + lib + " v0.0.0-00010101000000-000000000000\n"
	const libMod = "module " + lib + "\n\ngo 1.26\n"
	changelog := map[string][]string{".": {"Unreleased", "v0.2.0"}, "runtime/lib": {"v0.2.0"}}
	wantTags := []string{"git tag -a runtime/lib/v0.2.0 -m '" + lib + " v0.2.0'", "git tag -a v0.2.0 -m '" + root + " v0.2.0'"}
	tests := []struct {
		name, rootMod, version string
		changelog              map[string][]string
		problems               []string // substrings, one per problem
		err                    bool
	}{
		{"ready", ready, "v0.2.0", changelog, nil, false},
		{"pseudo-version require", pseudo, "v0.2.0", changelog, []string{"go mod edit -require=" + lib + "@v0.2.0"}, false},
		{"no changelog heading", ready, "v0.2.0", map[string][]string{".": {"v0.2.0"}}, []string{`the section of ` + lib + ` has no "### [v0.2.0]"`}, false},
		{"require of another version", ready, "v0.3.0", map[string][]string{".": {"v0.3.0"}, "runtime/lib": {"v0.3.0"}}, []string{lib + " v0.2.0"}, false},
		{"not a version", ready, "0.2", changelog, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, tags, err := check(mods(t, tt.rootMod, libMod), tt.changelog, tt.version)
			if tt.err {
				if err == nil {
					t.Fatalf("check = %v, %v, want an error", problems, tags)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems = %q, want %d like %q", problems, len(tt.problems), tt.problems)
			}
			for i, p := range tt.problems {
				if !strings.Contains(problems[i], p) {
					t.Errorf("problem %q, want it to contain %q", problems[i], p)
				}
			}
			if tt.version == "v0.2.0" && !reflect.DeepEqual(tags, wantTags) {
				t.Errorf("tags = %q, want %q (the library before the root that requires it)", tags, wantTags)
			}
		})
	}
}

func TestOrderRefusesACycle(t *testing.T) {
	a := module{dir: "a", path: root + "/a", requires: map[string]string{root + "/b": "v0.1.0"}}
	b := module{dir: "b", path: root + "/b", requires: map[string]string{root + "/a": "v0.1.0"}}
	if got, err := order([]module{a, b}); err == nil {
		t.Errorf("order = %v, want a cycle error", got)
	}
}

func TestChangelogVersions(t *testing.T) {
	const changelog = `# Changelog
## ` + root + `
### [Unreleased]
### [v0.1.0] - 2026-12-01
## The engine (` + "`runtime/ddblocal`" + `)
### [v0.1.0] - 2026-12-01
## The supporting modules (` + "`runtime/txn`, `runtime/retry`" + `)
### [Unreleased]
`
	got := changelogVersions(strings.NewReader(changelog))
	want := map[string][]string{".": {"Unreleased", "v0.1.0"}, "runtime/ddblocal": {"v0.1.0"}, "runtime/txn": {"Unreleased"}, "runtime/retry": {"Unreleased"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changelogVersions = %v, want %v", got, want)
	}
}

// TestRepositoryIsChecked runs the check on this repository: it must read
// every module and print a tag for each, ready or not.
func TestRepositoryIsChecked(t *testing.T) {
	var out strings.Builder
	_ = run("../..", "v0.1.0", &out)
	for _, d := range dirs {
		tag := "v0.1.0"
		if d != "." {
			tag = d + "/v0.1.0"
		}
		if !strings.Contains(out.String(), "git tag -a "+tag+" ") {
			t.Errorf("no tag %s in:\n%s", tag, out.String())
		}
	}
}
