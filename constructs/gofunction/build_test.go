package gofunction

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeModule lays out a small module: a main package that imports an
// internal package, an unrelated package, and a test file.
func writeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                  "module example.com/hashmod\n\ngo 1.26\n",
		"cmd/fn/main.go":          "package main\n\nimport \"example.com/hashmod/inner\"\n\nfunc main() { println(inner.Greeting) }\n",
		"inner/inner.go":          "package inner\n\nconst Greeting = \"hello\"\n",
		"inner/inner_test.go":     "package inner\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
		"inner/inner_windows.go":  "package inner\n\nconst OnlyOnWindows = 1\n",
		"unrelated/unrelated.go":  "package unrelated\n\nconst X = 1\n",
		"cmd/fn/testdata/in.json": "{}\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSourceHash(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	tests := []struct {
		name    string
		edit    func(t *testing.T, dir string)
		changes bool
	}{
		{"nothing changed", func(*testing.T, string) {}, false},
		{"main package source", appendTo("cmd/fn/main.go", "// edit\n"), true},
		{"dependency in the module", appendTo("inner/inner.go", "// edit\n"), true},
		{"go.mod", appendTo("go.mod", "// edit\n"), true},
		{"go.sum appears", appendTo("go.sum", "example.org/x v1.0.0 h1:abc=\n"), true},
		{"new file in a dependency", appendTo("inner/extra.go", "package inner\n"), true},
		{"test file", appendTo("inner/inner_test.go", "// edit\n"), false},
		{"file for another GOOS", appendTo("inner/inner_windows.go", "// edit\n"), false},
		{"package not imported", appendTo("unrelated/unrelated.go", "// edit\n"), false},
		{"testdata", appendTo("cmd/fn/testdata/in.json", "\n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeModule(t)
			before, err := SourceHash(dir, "./cmd/fn")
			if err != nil {
				t.Fatal(err)
			}
			tt.edit(t, dir)
			after, err := SourceHash(dir, "./cmd/fn")
			if err != nil {
				t.Fatal(err)
			}
			if changed := before != after; changed != tt.changes {
				t.Errorf("hash changed = %v, want %v (before %s, after %s)", changed, tt.changes, before, after)
			}
		})
	}
}

// The hash names files by import path, so the same sources in another
// directory (another machine's checkout) give the same hash.
func TestSourceHashIndependentOfLocation(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	a, err := SourceHash(writeModule(t), "./cmd/fn")
	if err != nil {
		t.Fatal(err)
	}
	b, err := SourceHash(writeModule(t), "./cmd/fn")
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("hash depends on the checkout directory: got %s and %s", a, b)
	}
}

func appendTo(name, text string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		entry   string
		command string
		want    string // part of the go command's own message
	}{
		{"type error", "./constructs/gofunction/testdata/broken", "go build", `cannot use "not a number"`},
		{"no such package", "./constructs/gofunction/testdata/missing", "go list", "testdata/missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.command == "go list" {
				_, err = SourceHash(root, tt.entry)
			} else {
				_, err = Build(root, tt.entry, t.TempDir())
			}
			var be *BuildError
			if !errors.As(err, &be) {
				t.Fatalf("got %v (%T), want a *BuildError", err, err)
			}
			if !errors.Is(err, ErrBuild) || be.Command != tt.command || be.Entry != tt.entry {
				t.Errorf("got %+v, want command %q entry %q wrapping ErrBuild", be, tt.command, tt.entry)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("message %q does not carry the go command's %q", err, tt.want)
			}
		})
	}
}

func TestNoToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for name, run := range map[string]func() error{
		"SourceHash": func() error { _, err := SourceHash(".", "./x"); return err },
		"Build":      func() error { _, err := Build(".", "./x", t.TempDir()); return err },
	} {
		if err := run(); !errors.Is(err, ErrNoToolchain) {
			t.Errorf("%s without go on PATH: got %v, want ErrNoToolchain", name, err)
		}
	}
}

func TestRetentionDays(t *testing.T) {
	for _, days := range []int{1, 7, 30, 365, 3653} {
		if !ValidRetention(days) {
			t.Errorf("ValidRetention(%d) = false, want true", days)
		}
	}
	for _, days := range []int{0, 2, 31, 366} {
		if ValidRetention(days) {
			t.Errorf("ValidRetention(%d) = true, want false", days)
		}
	}
}
