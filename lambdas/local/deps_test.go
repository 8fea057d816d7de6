package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoCDKInRuntime keeps CDK, constructs and jsii out of every Lambda
// binary and runtime package (STYLE.md, rule 1).
func TestNoCDKInRuntime(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test=false", "github.com/oncetable/oncetable/lambdas/...", "github.com/oncetable/oncetable/runtime/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/aws/aws-cdk-go", "github.com/aws/constructs-go", "github.com/aws/jsii-runtime-go"} {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("%s is a dependency of lambdas/ or runtime/", pkg)
			}
		}
	}
}
