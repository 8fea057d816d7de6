package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/verify"
	"github.com/oncetable/oncetable/runtime/verify/cli"
)

func profile(user, balance string) map[string]types.AttributeValue {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	return map[string]types.AttributeValue{"PK": s("USER#" + user), "SK": s("PROFILE"), "EntityType": s("User"),
		"userId": s(user), "balance": &types.AttributeValueMemberN{Value: balance}}
}

func TestCommand(t *testing.T) {
	db, _ := ddbtest.Client(t, nil)
	ctx := context.Background()
	good, bad := ddbtest.TableName("verify-cli-good"), ddbtest.TableName("verify-cli-bad")
	for table, balance := range map[string]string{good: "0", bad: "-7"} {
		if err := provision.EnsureTable(ctx, db, table); err != nil {
			t.Fatal(err)
		}
		ddbtest.DeleteAfter(t, db, table)
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: profile("alice", balance)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		stdout     string // a line the output contains
		stderr     string
		violations int // with -format json
	}{
		{name: "healthy", args: []string{"-table", good}, code: cli.ExitOK, stdout: "verify " + good + ": OK"},
		{name: "broken text", args: []string{"-table", bad, "-max-rcu", "-1"}, code: cli.ExitViolation,
			stdout: "negative-balance: user alice: balance -7"},
		{name: "broken json", args: []string{"-table", bad, "-format", "json", "-segments", "2"}, code: cli.ExitViolation, violations: 2},
		{name: "keys listed", args: []string{"-table", bad}, code: cli.ExitViolation, stdout: "key: PK=USER#alice SK=PROFILE"},
		{name: "progress", args: []string{"-table", bad, "-progress", "1ms"}, code: cli.ExitViolation, stderr: "1 items of about"},
		{name: "missing table", args: []string{"-table", "absent"}, code: cli.ExitError, stderr: "describe table absent"},
		{name: "no table flag", args: []string{"-table", ""}, code: cli.ExitError, stderr: "-table is required"},
		{name: "bad format", args: []string{"-table", good, "-format", "xml"}, code: cli.ExitError, stderr: `-format "xml"`},
		{name: "zero rate", args: []string{"-table", good, "-max-rcu", "0"}, code: cli.ExitError, stderr: "-max-rcu 0"},
		{name: "stray argument", args: []string{"-table", good, "extra"}, code: cli.ExitError, stderr: "unexpected arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := cli.Command{Stdout: &stdout, Stderr: &stderr, Client: db}.Main(ctx, tc.args)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
			}
			if tc.violations > 0 {
				var rep verify.Report
				if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
					t.Fatalf("stdout is not a JSON report: %v\n%s", err, stdout.String())
				}
				if len(rep.Violations) != tc.violations || rep.OK {
					t.Errorf("JSON report: ok %v, %d violations, want %d: %s", rep.OK, len(rep.Violations), tc.violations, stdout.String())
				}
			}
		})
	}
}
