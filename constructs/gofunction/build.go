package gofunction

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// BinaryName is the file the provided.al2023 runtime executes.
const BinaryName = "bootstrap"

// Sentinel errors; match the typed errors with errors.As.
var (
	// ErrNoToolchain means the go command is not on PATH.
	ErrNoToolchain = errors.New("the Go toolchain (go) is not on PATH")
	// ErrBuild means go list or go build rejected the package.
	ErrBuild = errors.New("go build failed")
)

// BuildError carries the go command's own output, which is what a developer
// needs to fix the code.
type BuildError struct {
	Entry   string // the main package, such as "./lambdas/charge"
	Command string // "go build" or "go list"
	Output  string // the compiler's message
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("%s %s failed:\n%s", e.Command, e.Entry, strings.TrimSpace(e.Output))
}

// Unwrap makes errors.Is(err, ErrBuild) hold.
func (e *BuildError) Unwrap() error { return ErrBuild }

// buildEnv is the target of every bundle: Lambda's arm64 (Graviton) Linux
// without cgo, so the binary runs on the OS-only provided.al2023 runtime.
var buildEnv = []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64"}

// buildTags select what the bootstrap leaves out. lambda.norpc drops the
// legacy net/rpc path that provided runtimes never use; nethttpomithttp2
// drops net/http's HTTP/2 client (about 330 kB): the Runtime API and the
// JSON endpoints of DynamoDB, Secrets Manager and EventBridge all speak
// HTTP/1.1, and only event-stream operations, which no function calls,
// need HTTP/2.
const buildTags = "lambda.norpc,nethttpomithttp2"

// buildFlags are part of the asset hash: changing them must change the asset.
var buildFlags = []string{"-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-tags", buildTags}

// ModuleRoot returns the directory of the nearest go.mod at or above dir.
func ModuleRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("gofunction: no go.mod at or above %s", abs)
		}
	}
}

func goCommand() (string, error) {
	p, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoToolchain, err)
	}
	return p, nil
}

// listTemplate prints, for each package of the main module in the build,
// its import path and the files that go into it for the Lambda target.
const listTemplate = `{{if and .Module .Module.Main}}{{.ImportPath}}` +
	`{{range .GoFiles}} {{.}}{{end}}{{range .SFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}` +
	"\t{{.Dir}}{{end}}"

// SourceHash is the SHA-256 (hex) of everything that decides the bootstrap
// built from entry: the Go, assembly and embedded files of every package of
// the module at moduleDir that entry depends on (under the Lambda's GOOS,
// GOARCH and tags), go.mod, go.sum and the build flags. Paths are hashed as
// import paths, so the hash is the same on every machine. Test files, other
// packages and the Go version do not count.
func SourceHash(moduleDir, entry string) (string, error) {
	goBin, err := goCommand()
	if err != nil {
		return "", err
	}
	args := []string{"list", "-deps", "-tags", buildTags, "-f", listTemplate, entry}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), buildEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		out := stderr.String()
		if out == "" {
			out = err.Error()
		}
		return "", &BuildError{Entry: entry, Command: "go list", Output: out}
	}

	type pkg struct {
		path, dir string
		files     []string
	}
	var pkgs []pkg
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		head, dir, ok := strings.Cut(line, "\t")
		if !ok {
			return "", fmt.Errorf("gofunction: unexpected go list line %q", line)
		}
		fields := strings.Fields(head)
		files := append([]string(nil), fields[1:]...)
		sort.Strings(files)
		pkgs = append(pkgs, pkg{path: fields[0], dir: dir, files: files})
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if len(pkgs) == 0 {
		return "", &BuildError{Entry: entry, Command: "go list", Output: "no package of the main module matched " + entry}
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].path < pkgs[j].path })

	h := sha256.New()
	fmt.Fprintf(h, "gofunction/v1\nenv %s\nflags %s\n", strings.Join(buildEnv, " "), strings.Join(buildFlags, " "))
	for _, name := range []string{"go.mod", "go.sum"} {
		if err := hashFile(h, name, filepath.Join(moduleDir, name), name == "go.sum"); err != nil {
			return "", err
		}
	}
	for _, p := range pkgs {
		for _, f := range p.files {
			if err := hashFile(h, p.path+"/"+f, filepath.Join(p.dir, f), false); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile adds name and the SHA-256 of the file's content to h.
func hashFile(h io.Writer, name, path string, optional bool) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) && optional {
		fmt.Fprintf(h, "%s absent\n", name)
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fh := sha256.New()
	if _, err := io.Copy(fh, f); err != nil {
		return err
	}
	fmt.Fprintf(h, "%s %x\n", name, fh.Sum(nil))
	return nil
}

// Build compiles the main package entry of the module at moduleDir into
// outDir/bootstrap for Lambda's arm64 Linux. It uses the normal Go build
// cache, so unchanged packages are not recompiled. A compile error is a
// *BuildError holding the compiler's message.
func Build(moduleDir, entry, outDir string) (string, error) {
	goBin, err := goCommand()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(outDir, BinaryName)
	args := append([]string{"build"}, buildFlags...)
	args = append(args, "-o", out, entry)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), buildEnv...)
	if output, err := cmd.CombinedOutput(); err != nil {
		msg := string(output)
		if msg == "" {
			msg = err.Error()
		}
		return "", &BuildError{Entry: entry, Command: "go build", Output: msg}
	}
	return out, nil
}

// BuildNative is Build for the machine it runs on (its GOOS and GOARCH),
// with the same flags: for measurements, such as the cold-start benchmark,
// of a bootstrap this machine can execute.
func BuildNative(moduleDir, entry, outDir string) (string, error) {
	goBin, err := goCommand()
	if err != nil {
		return "", err
	}
	out := filepath.Join(outDir, BinaryName)
	args := append(append([]string{"build"}, buildFlags...), "-o", out, entry)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if output, err := cmd.CombinedOutput(); err != nil {
		return "", &BuildError{Entry: entry, Command: "go build", Output: string(output)}
	}
	return out, nil
}

// hashes memoizes SourceHash per module and entry within one synthesis:
// every environment's stack bundles the same functions.
var hashes sync.Map // "moduleDir\x00entry" -> hashResult

type hashResult struct {
	hash string
	err  error
}

func cachedSourceHash(moduleDir, entry string) (string, error) {
	key := moduleDir + "\x00" + entry
	if v, ok := hashes.Load(key); ok {
		r := v.(hashResult)
		return r.hash, r.err
	}
	h, err := SourceHash(moduleDir, entry)
	hashes.Store(key, hashResult{h, err})
	return h, err
}
