package txn_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/txn"
)

func reason(code string) types.CancellationReason {
	return types.CancellationReason{Code: aws.String(code)}
}

func TestCancelledByName(t *testing.T) {
	tests := []struct {
		name    string
		items   []string
		reasons []string
		failed  []string
	}{
		{"first fails", []string{"a", "b"}, []string{"ConditionalCheckFailed", "None"}, []string{"a"}},
		{"second fails", []string{"a", "b"}, []string{"None", "ConditionalCheckFailed"}, []string{"b"}},
		{"inserted item moves the failure", []string{"new", "a", "b"}, []string{"None", "None", "ConditionalCheckFailed"}, []string{"b"}},
		{"conflict is no condition failure", []string{"a"}, []string{"TransactionConflict"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tx txn.Items
			tce := &types.TransactionCanceledException{}
			for i, n := range tt.items {
				tx.Add(n, types.TransactWriteItem{})
				tce.CancellationReasons = append(tce.CancellationReasons, reason(tt.reasons[i]))
			}
			c, ok := txn.Cancelled(fmt.Errorf("wrapped: %w", tce), &tx)
			if !ok {
				t.Fatal("Cancelled = false")
			}
			var got []string
			for _, n := range tt.items {
				if c.Failed(n) {
					got = append(got, n)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.failed) {
				t.Errorf("failed = %v, want %v", got, tt.failed)
			}
			if !errors.As(c, &tce) {
				t.Error("CancelledError does not unwrap to the SDK exception")
			}
		})
	}
	if _, ok := txn.Cancelled(errors.New("other"), &txn.Items{}); ok {
		t.Error("Cancelled(other error) = true")
	}
}

func TestDuplicateName(t *testing.T) {
	var tx txn.Items
	tx.Add("a", types.TransactWriteItem{})
	if tx.Err() != nil {
		t.Fatal(tx.Err())
	}
	tx.Add("a", types.TransactWriteItem{})
	if !errors.Is(tx.Err(), txn.ErrDuplicateName) {
		t.Errorf("Err = %v, want ErrDuplicateName", tx.Err())
	}
}
