package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func buildRunner(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "local")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBinaryInUse: a taken address or data directory is one line on
// stderr that names the flag to change, and exit status 1.
func TestBinaryInUse(t *testing.T) {
	bin := buildRunner(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	holder := exec.Command(bin, "-api-addr", "127.0.0.1:0", "-dynamodb-addr", "127.0.0.1:0", "-data-dir", dir)
	stdout, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Signal(syscall.SIGTERM); holder.Wait() }()
	if !bufio.NewScanner(stdout).Scan() {
		t.Fatal("the first runner printed no banner")
	}
	go io.Copy(io.Discard, stdout)
	addr := taken.Addr().String()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"api", []string{"-api-addr", addr, "-dynamodb-addr", "127.0.0.1:0"}, "local: " + addr + " (the api address) is already in use, probably by another runner: stop it, or choose another address with -api-addr\n"},
		{"dynamodb", []string{"-api-addr", "127.0.0.1:0", "-dynamodb-addr", addr}, "local: " + addr + " (the dynamodb address) is already in use, probably by another runner: stop it, or choose another address with -dynamodb-addr\n"},
		{"data-dir", []string{"-api-addr", "127.0.0.1:0", "-dynamodb-addr", "127.0.0.1:0", "-data-dir", dir}, "local: data directory " + dir + " is in use by another runner: stop it, or choose another directory with -data-dir\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			cmd := exec.Command(bin, tt.args...)
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1", err)
			}
			if stderr.String() != tt.want {
				t.Errorf("stderr:\n got %q\nwant %q", stderr.String(), tt.want)
			}
		})
	}
}

// TestBinaryServesAndStopsOnSignal builds the runner, calls it over HTTP,
// and checks that SIGTERM and SIGINT stop it cleanly (exit status 0).
func TestBinaryServesAndStopsOnSignal(t *testing.T) {
	bin := buildRunner(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "-api-addr", "127.0.0.1:0", "-dynamodb-addr", "127.0.0.1:0")
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stdout)
			api := ""
			for api == "" && lines.Scan() {
				if f := strings.Fields(lines.Text()); len(f) == 2 && f[0] == "API:" {
					api = f[1]
				}
			}
			if api == "" {
				cmd.Process.Kill()
				t.Fatal("no API URL in the banner")
			}
			resp, err := http.Post(api+"/users", "application/json", strings.NewReader(`{"userId":"u1","name":"U","email":"u@example.com"}`))
			if err != nil || resp.StatusCode != 201 {
				t.Errorf("POST /users: %v %v", resp, err)
			}
			if resp != nil {
				resp.Body.Close()
			}
			rest := make(chan string)
			go func() { b, _ := io.ReadAll(stdout); rest <- string(b) }()
			cmd.Process.Signal(sig)
			var out string
			select {
			case out = <-rest: // EOF: the process closed stdout on exit
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 15s after %v", sig)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("exit after %v: %v", sig, err)
			}
			if !strings.Contains(out, `"route":"createUser"`) || !strings.Contains(out, "stopped") {
				t.Errorf("output after the banner:\n%s", out)
			}
		})
	}
}
