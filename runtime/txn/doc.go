// Package txn names the items of a DynamoDB TransactWriteItems request and
// reads its cancellation reasons by those names.
//
// DynamoDB answers a cancelled transaction with one CancellationReason per
// item, in request order. Code that reads reasons[0] or reasons[2] blames the
// wrong item as soon as someone inserts an item in front. Here every item is
// added under a name, and a cancellation is read by name:
//
//	var tx txn.Items
//	tx.Add("debit", debit)
//	tx.Add("ledger", entry)
//	_, err := client.TransactWriteItems(ctx, tx.Input())
//	if c, ok := txn.Cancelled(err, &tx); ok && c.Failed("debit") {
//		// c.Item("debit") is the ALL_OLD image, when the item asked for it
//	}
//
// It is not for building the items themselves (use
// feature/dynamodb/expression) or for retrying (runtime/retry).
package txn
