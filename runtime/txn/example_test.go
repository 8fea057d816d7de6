package txn_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/txn"
)

func ExampleCancelled() {
	var tx txn.Items
	tx.Add("debit", types.TransactWriteItem{})
	tx.Add("ledger", types.TransactWriteItem{})
	// What DynamoDB answers when the debit's condition fails.
	err := &types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{
		{Code: aws.String("ConditionalCheckFailed")}, {Code: aws.String("None")},
	}}
	if c, ok := txn.Cancelled(err, &tx); ok {
		fmt.Println(c.Failed("debit"), c.Failed("ledger"))
		fmt.Println(c)
	}
	// Output:
	// true false
	// txn: transaction cancelled (debit: ConditionalCheckFailed)
}
