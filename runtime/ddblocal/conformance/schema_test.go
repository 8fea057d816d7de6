package conformance_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
)

// schemaTableInput is oncetable's single table as runtime/schema describes it.
func schemaTableInput() *dynamodb.CreateTableInput {
	in := tableInput(keyDef{schema.PartitionKey, types.ScalarAttributeTypeS}, &keyDef{schema.SortKey, types.ScalarAttributeTypeS})
	for _, ix := range schema.Indexes() {
		in.AttributeDefinitions = append(in.AttributeDefinitions,
			types.AttributeDefinition{AttributeName: aws.String(ix.PartitionKey), AttributeType: types.ScalarAttributeTypeS},
			types.AttributeDefinition{AttributeName: aws.String(ix.SortKey), AttributeType: types.ScalarAttributeTypeS})
		p := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)}
		if ix.Projection == schema.ProjectInclude {
			p.NonKeyAttributes = ix.NonKeyAttributes
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(ix.Name), KeySchema: hashRange(ix.PartitionKey, ix.SortKey), Projection: p})
	}
	return in
}

// TestSchemaSparseIndex runs the access pattern the issue names as the
// reason for the engine: a payment carries the Unprocessed keys while
// unprocessed, and processing REMOVEs them, which must take it out of the
// sparse INCLUDE index.
func TestSchemaSparseIndex(t *testing.T) {
	doc(t, pageGSI, `Sparse indexes: DynamoDB writes an index entry only for items that have the index key attributes; removing them (UpdateItem REMOVE) deletes the entry. INCLUDE projects the key attributes plus the listed NonKeyAttributes only.`)
	each(t, func(t *testing.T, tg *target) {
		table := createTable(t, tg, schemaTableInput())
		waitIndexesActive(t, tg, table)
		ix := schema.Unprocessed
		key := item{schema.PartitionKey: s("PAYMENT#1"), schema.SortKey: s("PAYMENT#1")}
		pay := item{
			schema.PartitionKey: s("PAYMENT#1"), schema.SortKey: s("PAYMENT#1"),
			schema.EntityType: s("Payment"), "paymentId": s("1"), "amount": n("1250"), "currency": s("EUR"),
			"status": s("PENDING"), "secret": s("not projected"),
			ix.PartitionKey: s("UNPROCESSED"), ix.SortKey: s("2026-11-29T20:00:00Z#1"),
		}
		put(t, tg, table, pay)
		unprocessed := func() []item {
			t.Helper()
			out, err := tg.client.Query(ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(ix.Name),
				KeyConditionExpression: aws.String("#p = :u"), ExpressionAttributeNames: map[string]string{"#p": ix.PartitionKey},
				ExpressionAttributeValues: item{":u": s("UNPROCESSED")}})
			noErr(t, err, "Query "+ix.Name)
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
			ExpressionAttributeNames:  map[string]string{"#s": "status", "#p": ix.PartitionKey, "#k": ix.SortKey},
			ExpressionAttributeValues: item{":done": s("PROCESSED")}})
		noErr(t, err, "process payment")
		if got := unprocessed(); len(got) != 0 {
			t.Errorf("processed payment still in Unprocessed: %s", show(got))
		}
	})
}
