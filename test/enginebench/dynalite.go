package enginebench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// DynaliteVersion is the npm release the bench installs and measures.
const DynaliteVersion = "4.0.0"

// DynaliteCacheDir is where dynalite is installed: $ENGINEBENCH_CACHE, or
// oncetable-enginebench under the user cache directory. It lies outside the
// repository so that its node_modules is never committed.
func DynaliteCacheDir() (string, error) {
	if d := os.Getenv("ENGINEBENCH_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "oncetable-enginebench"), nil
}

// Dynalite is a dynalite server started by the bench.
type Dynalite struct {
	Endpoint string
	cmd      *exec.Cmd
	done     chan error
}

// InstallDynalite installs dynalite@DynaliteVersion into dir with npm
// unless that version is already there, and returns the path of its cli.js.
func InstallDynalite(ctx context.Context, dir string) (string, error) {
	cli := filepath.Join(dir, "node_modules", "dynalite", "cli.js")
	if v, err := installedVersion(filepath.Join(dir, "node_modules", "dynalite", "package.json")); err == nil && v == DynaliteVersion {
		return cli, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm not found on PATH: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// A package.json of its own keeps npm from walking up into a project.
	pkg := filepath.Join(dir, "package.json")
	if _, err := os.Stat(pkg); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(pkg, []byte(`{"name":"enginebench-peers","private":true}`+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, "dynalite@"+DynaliteVersion)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install dynalite@%s: %w\n%s", DynaliteVersion, err, out)
	}
	if v, err := installedVersion(filepath.Join(dir, "node_modules", "dynalite", "package.json")); err != nil || v != DynaliteVersion {
		return "", fmt.Errorf("npm installed dynalite %q (%v), want %s", v, err, DynaliteVersion)
	}
	return cli, nil
}

func installedVersion(pkgJSON string) (string, error) {
	data, err := os.ReadFile(pkgJSON)
	if err != nil {
		return "", err
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return "", err
	}
	return p.Version, nil
}

// NodeBinary is the project's Node.js (node_modules/.bin/node above the
// working directory) when present, else node from PATH.
func NodeBinary() (string, error) {
	dir, err := os.Getwd()
	if err == nil {
		for {
			candidate := filepath.Join(dir, "node_modules", ".bin", "node")
			if st, err := os.Stat(candidate); err == nil && !st.IsDir() {
				return candidate, nil
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return exec.LookPath("node")
}

// StartDynalite runs dynalite's cli.js on a free loopback port with
// in-memory storage and no artificial table-state delays, and waits until
// it answers.
func StartDynalite(ctx context.Context, node, cli string) (*Dynalite, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(node, cli, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start dynalite: %w", err)
	}
	d := &Dynalite{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, done: make(chan error, 1)}
	go func() { d.done <- cmd.Wait() }()
	client := HTTPClient(d.Endpoint)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, cancel := context.WithTimeout(ctx, time.Second)
		_, err := client.ListTables(c, &dynamodb.ListTablesInput{})
		cancel()
		if err == nil {
			return d, nil
		}
		select {
		case werr := <-d.done:
			return nil, fmt.Errorf("dynalite exited before answering: %v", werr)
		default:
		}
		if time.Now().After(deadline) {
			d.Stop()
			return nil, fmt.Errorf("dynalite did not answer within 30s: %w", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Stop ends the dynalite process this bench started.
func (d *Dynalite) Stop() {
	if d.cmd.Process != nil {
		_ = d.cmd.Process.Kill()
	}
	<-d.done
}

// NewDynalite installs (once) and starts dynalite and returns it as a peer.
func NewDynalite(ctx context.Context) (*Peer, error) {
	dir, err := DynaliteCacheDir()
	if err != nil {
		return nil, err
	}
	cli, err := InstallDynalite(ctx, dir)
	if err != nil {
		return nil, err
	}
	node, err := NodeBinary()
	if err != nil {
		return nil, fmt.Errorf("node not found: %w", err)
	}
	d, err := StartDynalite(ctx, node, cli)
	if err != nil {
		return nil, err
	}
	return &Peer{
		Name:  PeerDynalite,
		API:   HTTPClient(d.Endpoint),
		Lacks: map[string]string{OpTransact: "dynalite 4.0.0 has no TransactWriteItems"},
		close: d.Stop,
	}, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
