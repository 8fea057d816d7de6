package totals

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"

	"github.com/oncetable/oncetable/runtime/platform"
)

// fakeTable stands for a table in validate, which only checks it is set.
type fakeTable struct{ awsdynamodb.ITableV2 }

func TestPropsValidate(t *testing.T) {
	table := fakeTable{}
	none, tooMany := 0, 10001
	tests := []struct {
		name    string
		props   Props
		wantErr string
	}{
		{name: "defaults", props: Props{Table: table}},
		{name: "no table", props: Props{}, wantErr: "props.Table is required"},
		{name: "too many shards", props: Props{Table: table, Shards: 101}, wantErr: "props.Shards 101"},
		{name: "batch over 10000", props: Props{Table: table, BatchSize: 10001}, wantErr: "props.BatchSize 10001"},
		{name: "window over 5m", props: Props{Table: table, BatchingWindow: 6 * time.Minute}, wantErr: "BatchingWindow 6m0s"},
		{name: "no retries", props: Props{Table: table, RetryAttempts: &none}},
		{name: "retries over 10000", props: Props{Table: table, RetryAttempts: &tooMany}, wantErr: "props.RetryAttempts 10001"},
		{name: "record age over 7 days", props: Props{Table: table, MaxRecordAge: 8 * 24 * time.Hour}, wantErr: "MaxRecordAge 192h0m0s"},
		{name: "lag alarm under a minute", props: Props{Table: table, IteratorAge: time.Second}, wantErr: "props.IteratorAge 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := withDefaults(tt.props).validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestDefaultBatchIsOneTransaction: a full batch of the filter's records
// (ledger entries only) is one totals transaction.
func TestDefaultBatchIsOneTransaction(t *testing.T) {
	if got := withDefaults(Props{}).BatchSize; got != platform.MaxEntriesPerTransaction {
		t.Errorf("default batch size %d, want runtime/platform's entries per transaction, %d", got, platform.MaxEntriesPerTransaction)
	}
}
