package main

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBinaryServesAndStopsOnSignal builds the runner, calls it over HTTP,
// and checks that SIGTERM and SIGINT stop it cleanly (exit status 0).
func TestBinaryServesAndStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "local")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
