package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

func TestFromEnvironment(t *testing.T) {
	tests := []struct {
		name, table, expiry, wantErr string
		indexes, shards              string
	}{
		{name: "table and default expiry", table: "oncetable-dev"},
		{name: "explicit expiry", table: "t", expiry: "48h"},
		{name: "no table", wantErr: "TABLE_NAME=\"\": must be set"},
		{name: "bad expiry", table: "t", expiry: "tomorrow", wantErr: "IDEMPOTENCY_EXPIRY=\"tomorrow\": want a positive Go duration"},
		{name: "negative expiry", table: "t", expiry: "-1h", wantErr: "IDEMPOTENCY_EXPIRY=\"-1h\": want a positive Go duration"},
		{name: "order layout both", table: "t", indexes: "both", shards: "8"},
		{name: "order layout v2", table: "t", indexes: "v2"},
		{name: "unknown order indexes", table: "t", indexes: "v3", wantErr: "ORDER_INDEXES"},
		{name: "zero order shards", table: "t", indexes: "v2", shards: "0", wantErr: "ORDER_SHARDS=\"0\": want an integer 1..100"},
		{name: "too many order shards", table: "t", shards: "101", wantErr: "ORDER_SHARDS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TABLE_NAME", tt.table)
			t.Setenv("IDEMPOTENCY_EXPIRY", tt.expiry)
			t.Setenv("ORDER_INDEXES", tt.indexes)
			t.Setenv("ORDER_SHARDS", tt.shards)
			t.Setenv("AWS_REGION", "eu-west-1")
			t.Setenv("AWS_ACCESS_KEY_ID", "ASIAEXAMPLE")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
			api, err := httpapi.FromEnvironment(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || api == nil {
				t.Fatalf("got %v, %v; want an API", api, err)
			}
			if l := api.Store().Orders().Layout(); tt.indexes != "" && string(l.Stage) != tt.indexes {
				t.Errorf("order layout %+v, want stage %s", l, tt.indexes)
			}
		})
	}
}
