package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/platform/cli"
	"github.com/oncetable/oncetable/runtime/store"
)

// A table whose entries no totaller has seen: -catch-up totals them, the
// report then shows the stored totals, and -conserve the sheet.
func TestCommand(t *testing.T) {
	env := dbtest.New(t)
	for _, it := range []any{
		store.User{PK: "USER#alice", SK: "PROFILE", EntityType: store.TypeUser, UserID: "alice", Balance: 3800, Currency: "EUR"},
		store.LedgerEntry{PK: "USER#alice", SK: "LEDGER#2026-12-05T08:00:00.000000000Z#cr_1", EntityType: store.TypeLedgerEntry,
			EntryID: "cr_1", UserID: "alice", Kind: store.LedgerCredit, Amount: 5000, Currency: "EUR"}, // stored without legs
		store.LedgerEntry{PK: "USER#alice", SK: "LEDGER#2026-12-05T08:01:00.000000000Z#db_1", EntityType: store.TypeLedgerEntry,
			EntryID: "db_1", UserID: "alice", Kind: store.LedgerDebit, Amount: 1200, Currency: "EUR"}.WithLegs(),
	} {
		av, err := attributevalue.MarshalMap(it)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(env.Table), Item: av}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
	}{
		{"no table", []string{"-table", ""}, cli.ExitError, nil},
		{"too many shards", []string{"-table", env.Table, "-shards", "101"}, cli.ExitError, nil},
		{"an argument", []string{"-table", env.Table, "now"}, cli.ExitError, nil},
		{"nothing totalled yet", []string{"-table", env.Table}, cli.ExitOK, []string{"account"}},
		{"the sheet before", []string{"-table", env.Table, "-conserve"}, cli.ExitOK, []string{"platform:funding     EUR                         0                -3800", "2 entries not yet totalled", "conserved"}},
		{"catch up", []string{"-table", env.Table, "-catch-up"}, cli.ExitOK, []string{"2 entries totalled now, 0 were already", "platform:funding     EUR                     -3800"}},
		{"catch up again", []string{"-table", env.Table, "-catch-up", "-conserve"}, cli.ExitOK, []string{"0 entries totalled now", "net                  EUR                         0", "0 entries not yet totalled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := cli.Command{Stdout: &out, Stderr: &errOut, Client: env.Client}.Main(context.Background(), tc.args)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, &out, &errOut)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, &out)
				}
			}
		})
	}
}
