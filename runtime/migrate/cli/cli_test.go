package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func TestCommand(t *testing.T) {
	env := dbtest.New(t)
	ctx := context.Background()
	created := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, id := range []string{"o1", "o2", "o3"} {
		pk, sk := keys.OrderStatusGSI("created", created, id)
		_, err := env.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(env.Table), Item: map[string]types.AttributeValue{
			"PK": s("ORDER#" + id), "SK": s("ORDER#" + id), "EntityType": s("Order"), "orderId": s(id), "status": s("created"),
			"createdAt": s(keys.Timestamp(created)), "GSI1PK": s(pk), "GSI1SK": s(sk)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	m, err := orders.ByStatus(4, keys.Default)
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"-table", env.Table, "-migration", orders.Name, "-holder", "cli-test"}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string // a substring of stdout
		wantErr  string // a substring of stderr
	}{
		{"status before", []string{"status"}, 0, `"phase":"none"`, ""},
		{"unknown migration", []string{"-migration", "nope", "status"}, 1, "", `unknown migration "nope" (known: orders-by-status-v2)`},
		{"unknown phase", []string{"run", "-to", "sideways"}, 1, "", `unknown phase "sideways"`},
		{"verify too early", []string{"verify"}, 1, "", "phase out of order"},
		{"run to mirror", []string{"run", "-to", "mirror"}, 0, `"phase":"mirror"`, ""},
		{"within the mirror grace", []string{"-mirror-grace", "1h", "run", "-to", "backfill"}, 1, "", "of its 1h0m0s grace"},
		{"run to verify", []string{"run", "--to", "verify"}, 0, `"job":"backfill","scanned":3,"segments":4,"segmentsDone":4,"skipped":0,"throttled":0,"written":3}`, ""},
		{"verified", []string{"status"}, 0, `"phase":"verify","verifiedEpoch":3`, ""},
		{"run to cutover", []string{"run", "-to", "cutover"}, 0, `"phase":"cutover"`, ""},
		{"rollback", []string{"rollback"}, 0, `"phase":"verify"`, ""},
		{"verify", []string{"verify"}, 0, `"checked":3`, ""},
		{"run to done", []string{"run", "-to", "done"}, 0, `"phase":"done"`, ""},
		{"rollback from done", []string{"rollback"}, 1, "", "no rollback from done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			c := Command{Migrations: map[string]migrate.Migration{orders.Name: m}, Stdout: &out, Stderr: &errOut, Client: env.Client}
			args := append(append([]string{}, base...), tt.args...)
			if tt.args[0] == "-migration" {
				args = append([]string{"-table", env.Table}, tt.args...)
			}
			code := c.Main(ctx, args)
			if code != tt.wantCode || !strings.Contains(out.String(), tt.wantOut) || !strings.Contains(errOut.String(), tt.wantErr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					code, out.String(), errOut.String(), tt.wantCode, tt.wantOut, tt.wantErr)
			}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if line != "" && !json.Valid([]byte(line)) {
					t.Errorf("not a JSON line: %q", line)
				}
			}
		})
	}
}

func TestVerifyMismatchExitsNonZero(t *testing.T) {
	env := dbtest.New(t)
	ctx := context.Background()
	m, _ := orders.ByStatus(4, keys.Default)
	_, err := env.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(env.Table), Item: map[string]types.AttributeValue{
		"PK": s("ORDER#o1"), "SK": s("ORDER#o1"), "EntityType": s("Order"), "orderId": s("o1"), "status": s("created"),
		"createdAt": s("2026-12-01T10:00:00Z"), "GSI1PK": s("ORDERSTATUS#created"), "GSI1SK": s("x")}})
	if err != nil {
		t.Fatal(err)
	}
	c := Command{Migrations: map[string]migrate.Migration{orders.Name: m}, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Client: env.Client}
	base := []string{"-table", env.Table, "-migration", orders.Name}
	if code := c.Main(ctx, append(base, "run", "-to", "verify")); code != 0 {
		t.Fatalf("run: %s", c.Stderr)
	}
	_, err = env.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(env.Table),
		Key: map[string]types.AttributeValue{"PK": s("ORDER#o1"), "SK": s("ORDER#o1")}, UpdateExpression: aws.String("SET #s = :v"),
		ExpressionAttributeNames: map[string]string{"#s": orders.ShardAttribute}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: "77"}}})
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	c.Stderr = &errOut
	if code := c.Main(ctx, append(base, "verify")); code != 1 || !strings.Contains(errOut.String(), "PK=ORDER#o1 SK=ORDER#o1: shard differs: want") {
		t.Fatalf("verify exit %d, stderr %q; want 1 naming the item", code, errOut.String())
	}
}
