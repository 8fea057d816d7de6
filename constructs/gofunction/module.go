package gofunction

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"unicode"
)

// OwnModulePath is the module path of oncetable itself, which holds the
// lambdas/ that constructs/paymentsapi and constructs/paymentevents
// bundle: github.com/oncetable/oncetable.
var OwnModulePath = strings.TrimSuffix(reflect.TypeFor[Props]().PkgPath(), "/constructs/gofunction")

// ModuleDir returns the directory of the Go module modulePath as the CDK
// app's own build resolves it: another team's app that requires oncetable
// (with a replace directive, or a version from the module cache) gets the
// directory its build used, not its own working directory.
//
// It asks `go list -m` in the working directory (the app's module, as the
// CDK CLI runs `go run .` there), then falls back on the build information
// of the running binary: an absolute replace directory, or the module
// cache's copy of the version built. The answer is remembered per module.
func ModuleDir(modulePath string) (string, error) {
	if v, ok := moduleDirs.Load(modulePath); ok {
		r := v.(moduleDirResult)
		return r.dir, r.err
	}
	dir, err := findModuleDir(modulePath)
	moduleDirs.Store(modulePath, moduleDirResult{dir, err})
	return dir, err
}

var moduleDirs sync.Map // module path -> moduleDirResult

type moduleDirResult struct {
	dir string
	err error
}

func findModuleDir(modulePath string) (string, error) {
	goBin, err := goCommand()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(goBin, "list", "-m", "-f", "{{.Dir}}", modulePath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	listErr := cmd.Run()
	if dir := strings.TrimSpace(stdout.String()); listErr == nil && hasGoMod(dir) {
		return dir, nil
	}
	if dir := buildInfoDir(goBin, modulePath); dir != "" {
		return dir, nil
	}
	return "", fmt.Errorf("gofunction: cannot find the directory of module %s: go list -m: %s; and the binary's build "+
		"information names no replace directory or module cache copy of it; set ModuleDir",
		modulePath, cmp.Or(strings.TrimSpace(stderr.String()), fmt.Sprint(listErr)))
}

// buildInfoDir is modulePath's directory from the running binary's build
// information: its replacement when that is an absolute directory, or the
// module cache's copy of the version built.
func buildInfoDir(goBin, modulePath string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path != modulePath {
			continue
		}
		if r := m.Replace; r != nil {
			if filepath.IsAbs(r.Path) && hasGoMod(r.Path) {
				return r.Path
			}
			m = r
		}
		if m.Version == "" || m.Version == "(devel)" {
			return ""
		}
		out, err := exec.Command(goBin, "env", "GOMODCACHE").Output()
		if err != nil {
			return ""
		}
		dir := filepath.Join(strings.TrimSpace(string(out)), escapePath(m.Path)+"@"+m.Version)
		if hasGoMod(dir) {
			return dir
		}
	}
	return ""
}

// escapePath is the module cache's case encoding: an upper-case letter
// becomes "!" and its lower case.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hasGoMod(dir string) bool {
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
