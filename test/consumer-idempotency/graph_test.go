package main

// This file and test/consumer-ddblocal's graph_test.go differ only in the module they
// look for and their run's output, and stay two copies on purpose: a shared
// helper would have to live in a module both require, which adds that module
// to the very graphs these tests prove minimal (a helper in runtime/ddblocal
// would also put a test of consumers into the engine's API). Change both.

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// forbidden are the modules a consumer of the library must never require:
// the CDK and jsii (and the CDK's own modules), and oncetable's root module,
// which holds the payments code, the constructs and the runner.
var forbidden = []string{
	"github.com/aws/aws-cdk-go/", "github.com/aws/jsii-runtime-go", "github.com/aws/constructs-go/",
	"github.com/cdklabs/", "github.com/oncetable/oncetable@",
}

// TestModuleGraph runs `go mod graph` in this module, outside oncetable's
// workspace, as another team's build sees it, and fails on any forbidden
// module anywhere in the graph.
func TestModuleGraph(t *testing.T) {
	cmd := exec.Command("go", "mod", "graph")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go mod graph: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	library := false
	for _, line := range lines {
		for _, mod := range strings.Fields(line) {
			if strings.HasPrefix(mod, "github.com/oncetable/oncetable/runtime/idempotency@") {
				library = true
			}
			for _, f := range forbidden {
				if strings.HasPrefix(mod+"@", f) || strings.HasPrefix(mod, f) {
					t.Errorf("go mod graph names %s (forbidden: %s) in %q", mod, f, line)
				}
			}
		}
	}
	if !library {
		t.Fatalf("go mod graph never names the library; the graph:\n%s", out)
	}
	t.Logf("%d edges, none to the CDK, jsii or oncetable's root module", len(lines))
}

// TestRun runs the consumer: the message and its redelivery both succeed.
func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	want := "failures: 0\nfailures: 0\nHTTP key: order-1 <nil>\n"
	if out.String() != want {
		t.Fatalf("output %q, want %q", out.String(), want)
	}
}
