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
	}{
		{name: "table and default expiry", table: "oncetable-dev"},
		{name: "explicit expiry", table: "t", expiry: "48h"},
		{name: "no table", wantErr: "TABLE_NAME must be set"},
		{name: "bad expiry", table: "t", expiry: "tomorrow", wantErr: "IDEMPOTENCY_EXPIRY must be a positive Go duration"},
		{name: "negative expiry", table: "t", expiry: "-1h", wantErr: "IDEMPOTENCY_EXPIRY must be a positive Go duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TABLE_NAME", tt.table)
			t.Setenv("IDEMPOTENCY_EXPIRY", tt.expiry)
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
		})
	}
}
