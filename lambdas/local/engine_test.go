package main

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// TestBinaryEngineOnly: `local engine` takes DynamoDB Local's options,
// prints DynamoDB Local's start-up lines with the endpoint, serves the
// DynamoDB API there (and no oncetable API), and stops on SIGTERM.
func TestBinaryEngineOnly(t *testing.T) {
	bin := buildRunner(t)
	cmd := exec.Command(bin, "engine", "-port", "0", "-host", "127.0.0.1", "-inMemory", "-sharedDb")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	endpoint := ""
	var banner []string
	for endpoint == "" && lines.Scan() {
		banner = append(banner, lines.Text())
		if url, ok := strings.CutPrefix(lines.Text(), "Endpoint: "); ok {
			endpoint = url
		}
	}
	if endpoint == "" {
		t.Fatalf("no endpoint in the banner %q", banner)
	}
	if !strings.Contains(strings.Join(banner, "\n"), "InMemory:\ttrue") {
		t.Errorf("banner %q", banner)
	}
	go io.Copy(io.Discard, stdout)
	c := ddblocal.EndpointClient(endpoint)
	if _, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("ListTables on %s: %v", endpoint, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("still running 15s after SIGTERM")
	}

	out, err := exec.Command(bin, "engine", "-help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-delayTransientStatuses") {
		t.Errorf("engine -help: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "engine", "-inMemory", "-dbPath", "x").CombinedOutput()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 || !strings.Contains(string(out), "you cannot specify both -dbPath and -inMemory") {
		t.Errorf("engine -inMemory -dbPath: %v\n%s", err, out)
	}
}
