package conformance_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The single-table access pattern the engine was first built for: payments
// sit in a sparse INCLUDE index while unprocessed. The table is spelled out
// here, not taken from the application's schema, so that the engine and
// its suite import nothing outside runtime/ddblocal.
const (
	sparseIndex = "Unprocessed"
	sparsePK    = "UnprocessedPK"
	sparseSK    = "UnprocessedSK"
)

// sparseTableInput is a PK/SK table with one sparse INCLUDE index.
func sparseTableInput() *dynamodb.CreateTableInput {
	in := tableInput(keyDef{"PK", types.ScalarAttributeTypeS}, &keyDef{"SK", types.ScalarAttributeTypeS})
	in.AttributeDefinitions = append(in.AttributeDefinitions,
		types.AttributeDefinition{AttributeName: aws.String(sparsePK), AttributeType: types.ScalarAttributeTypeS},
		types.AttributeDefinition{AttributeName: aws.String(sparseSK), AttributeType: types.ScalarAttributeTypeS})
	in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{
		IndexName: aws.String(sparseIndex), KeySchema: hashRange(sparsePK, sparseSK),
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude,
			NonKeyAttributes: []string{"EntityType", "paymentId", "amount", "currency", "status"}},
	}}
	return in
}

// TestSchemaSparseIndex runs the access pattern the issue names as the
// reason for the engine: a payment carries the Unprocessed keys while
// unprocessed, and processing REMOVEs them, which must take it out of the
// sparse INCLUDE index.
func TestSchemaSparseIndex(t *testing.T) {
	doc(t, pageGSI, `Sparse indexes: DynamoDB writes an index entry only for items that have the index key attributes; removing them (UpdateItem REMOVE) deletes the entry. INCLUDE projects the key attributes plus the listed NonKeyAttributes only.`)
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, sparseTableInput())
		waitIndexesActive(t, tg, table)
		key := item{"PK": s("PAYMENT#1"), "SK": s("PAYMENT#1")}
		pay := item{
			"PK": s("PAYMENT#1"), "SK": s("PAYMENT#1"),
			"EntityType": s("Payment"), "paymentId": s("1"), "amount": n("1250"), "currency": s("EUR"),
			"status": s("PENDING"), "secret": s("not projected"),
			sparsePK: s("UNPROCESSED"), sparseSK: s("2026-11-29T20:00:00Z#1"),
		}
		put(t, tg, table, pay)
		unprocessed := func() []item {
			t.Helper()
			out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(sparseIndex),
				KeyConditionExpression: aws.String("#p = :u"), ExpressionAttributeNames: map[string]string{"#p": sparsePK},
				ExpressionAttributeValues: item{":u": s("UNPROCESSED")}})
			noErr(t, err, "Query "+sparseIndex)
			return out.Items
		}
		got := unprocessed()
		if len(got) != 1 {
			t.Fatalf("Unprocessed holds %d items, want 1", len(got))
		}
		if _, ok := got[0]["secret"]; ok {
			t.Errorf("INCLUDE index projected a non-listed attribute: %s", show(got[0]))
		}
		if _, ok := got[0]["amount"]; !ok {
			t.Errorf("INCLUDE index lacks the listed attribute amount: %s", show(got[0]))
		}
		_, err := tg.client.UpdateItem(ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
			UpdateExpression:          aws.String("SET #s = :done REMOVE #p, #k"),
			ConditionExpression:       aws.String("attribute_exists(#p)"),
			ExpressionAttributeNames:  map[string]string{"#s": "status", "#p": sparsePK, "#k": sparseSK},
			ExpressionAttributeValues: item{":done": s("PROCESSED")}})
		noErr(t, err, "process payment")
		if got := unprocessed(); len(got) != 0 {
			t.Errorf("processed payment still in Unprocessed: %s", show(got))
		}
	})
}
