package ddbtest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddbtest"
)

func TestClientCountsEveryRequest(t *testing.T) {
	var c ddbtest.Counter
	db, _ := ddbtest.Client(t, nil, c.Option)
	ctx := context.Background()
	for range 2 {
		if _, err := db.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		got, want int
	}{
		{"ListTables", c.Count("ListTables"), 2},
		{"GetItem", c.Count("GetItem"), 0},
		{"total", c.Total(), 2},
		{"snapshot", len(c.Snapshot()), 1},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	c.Reset()
	if c.Total() != 0 {
		t.Errorf("Total after Reset = %d, want 0", c.Total())
	}
}

func TestTableNameIsFresh(t *testing.T) {
	a, b := ddbtest.TableName("wallets"), ddbtest.TableName("wallets")
	if a == b || !strings.HasPrefix(a, "wallets-") || len(a) != len("wallets-")+8 {
		t.Errorf("TableName = %q, %q; want two distinct wallets-<8 hex>", a, b)
	}
}
