package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/freeze"
	"github.com/oncetable/oncetable/runtime/freeze/cli"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// TestCommand: freeze, status and unfreeze over the engine, as an operator
// runs them, and the refused invocations that write nothing.
func TestCommand(t *testing.T) {
	ctx := context.Background()
	db, _ := ddbtest.Client(t, nil)
	table := ddbtest.TableName("freezecli")
	if _, err := db.CreateTable(ctx, provision.CreateTableInput(table)); err != nil {
		t.Fatal(err)
	}
	ddbtest.DeleteAfter(t, db, table)
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli.Command{Stdout: &out, Stderr: &errOut, Client: db, Identity: "arn:aws:iam::123456789012:user/alice"}.Main(ctx, append(args, "-table", table))
		return code, out.String(), errOut.String()
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{name: "unknown flow", args: []string{"freeze", "-flow", "refund2", "-reason", "x"}, code: 2, contains: `-flow "refund2" is not one of all, credit`},
		{name: "no reason", args: []string{"freeze", "-flow", "charge"}, code: 2, contains: "-reason is required"},
		{name: "unknown action", args: []string{"stop", "-flow", "charge"}, code: 2, contains: "usage: freeze freeze|unfreeze|status"},
		{name: "unfreeze what is not frozen", args: []string{"unfreeze", "-flow", "charge", "-reason", "x"}, code: 2, contains: "not frozen"},
		{name: "freeze", args: []string{"freeze", "-flow", "charge", "-reason", "processor incident"}, code: 0,
			contains: "frozen: charge since 20"},
		{name: "freeze logs", args: []string{"freeze", "-flow", "settle", "-reason", "audit line"}, code: 0,
			contains: `"msg":"freeze","scope":"settle","table":"freezecli`},
		{name: "unfreeze logs", args: []string{"unfreeze", "-flow", "settle", "-reason", "audit line"}, code: 0,
			contains: `"msg":"unfreeze","scope":"settle"`},
		{name: "freeze again", args: []string{"freeze", "-flow", "charge", "-reason", "again"}, code: 2, contains: "already frozen: charge, by arn:aws:iam::123456789012:user/alice"},
		{name: "status", args: []string{"status"}, code: 0, contains: "freeze charge by arn:aws:iam::123456789012:user/alice: processor incident"},
		{name: "unfreeze", args: []string{"unfreeze", "-flow", "charge", "-reason", "processor back"}, code: 0, contains: "frozen: nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(tt.args...)
			if code != tt.code || !strings.Contains(out+errOut, tt.contains) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tt.code, tt.contains)
			}
		})
	}
	history, err := freeze.New(db, func(o *freeze.Options) { o.Table = table }).History(ctx)
	if err != nil || len(history) != 4 || history[0].Action != "freeze" || history[3].Action != "unfreeze" || history[3].Reason != "processor back" {
		t.Errorf("audit = %+v, %v; want the two freezes and unfreezes only", history, err)
	}
}

// TestEnvResolvesTheTable: -env reads the environment's Region from
// cdk.json and the table from its stack's TableName output.
func TestEnvResolvesTheTable(t *testing.T) {
	dir := t.TempDir()
	cdkJSON := filepath.Join(dir, "cdk.json")
	if err := os.WriteFile(cdkJSON, []byte(`{"context":{"oncetable:environments":{"prod":{"region":"eu-central-1"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var asked []string
	output := func(_ context.Context, region, stack, key string) (string, error) {
		asked = append(asked, region+" "+stack+" "+key)
		return "OnceTable-prod-DataTable-XYZ", nil
	}
	var errOut bytes.Buffer
	// The region's table does not exist on this engine: the command gets
	// as far as reading it, which shows the name it resolved.
	db, _ := ddbtest.Client(t, nil)
	code := cli.Command{Stdout: &bytes.Buffer{}, Stderr: &errOut, Client: db, StackOutput: output, CDKJSON: cdkJSON}.
		Main(context.Background(), []string{"status", "-env", "prod"})
	if len(asked) != 1 || asked[0] != "eu-central-1 OnceTable-prod TableName" || code != 2 || !strings.Contains(errOut.String(), "OnceTable-prod-DataTable-XYZ") {
		t.Errorf("asked %q, exit %d, stderr %q", asked, code, errOut.String())
	}
	errOut.Reset()
	code = cli.Command{Stdout: &bytes.Buffer{}, Stderr: &errOut, Client: db, StackOutput: output, CDKJSON: cdkJSON}.
		Main(context.Background(), []string{"status", "-env", "qa"})
	if code != 2 || !strings.Contains(errOut.String(), `-env "qa" is not local or an environment of cdk.json with a region (prod)`) {
		t.Errorf("unknown env: exit %d, stderr %q", code, errOut.String())
	}
}
