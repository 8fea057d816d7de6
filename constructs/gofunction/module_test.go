package gofunction

import (
	"os"
	"path/filepath"
	"testing"
)

// TestModuleDirFindsOwnModuleFromAnotherModule runs ModuleDir from the
// working directory of a module of its own that requires oncetable with a
// replace directive, as another team's CDK app does: the answer is
// oncetable's directory (the replacement), not the working directory.
func TestModuleDirFindsOwnModuleFromAnotherModule(t *testing.T) {
	root, err := ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	app := t.TempDir()
	goMod := "module example.com/otherteam\n\ngo 1.26.0\n\nrequire " + OwnModulePath + " v0.0.0\n\nreplace " + OwnModulePath + " => " + root + "\n"
	if err := os.WriteFile(filepath.Join(app, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(app)
	got, err := findModuleDir(OwnModulePath)
	if err != nil {
		t.Fatal(err)
	}
	if got != root {
		t.Errorf("ModuleDir(%s) from %s = %s, want %s", OwnModulePath, app, got, root)
	}
	if _, err := findModuleDir("example.com/not/required"); err == nil {
		t.Error("a module the app does not require has a directory, want an error")
	}
}

func TestEscapePath(t *testing.T) {
	if got := escapePath("github.com/Azure/Go-Sdk"); got != "github.com/!azure/!go-!sdk" {
		t.Errorf("got %s", got)
	}
}
