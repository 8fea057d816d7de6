package paymentsapi_test

import (
	"fmt"

	"github.com/oncetable/oncetable/constructs/paymentsapi"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/schema"
)

// Each function's role holds exactly these DynamoDB actions, at each order
// index stage: at both, the fenced order writers (settle; api already may)
// may also check the migration's META item, and api queries both order
// indexes; at v2, GSI1 is gone. The last column: the function gets
// ORDER_INDEXES and ORDER_SHARDS.
func ExampleFunctionAccess() {
	for _, stage := range []schema.OrderIndexes{schema.OrdersV1, schema.OrdersBoth, schema.OrdersV2} {
		access := paymentsapi.FunctionAccess(stage)
		fmt.Println(stage + ":")
		for _, fn := range paymentsapi.Functions() {
			a := access[fn]
			fmt.Println(fn, a.TableActions, a.FenceActions, a.Indexes, a.Orders)
		}
	}
	fmt.Println(len(httpapi.Routes()), "routes")
	// Output:
	// v1:
	// api [dynamodb:BatchGetItem dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:Query dynamodb:UpdateItem] [] [Featured GSI1 Unprocessed] true
	// charge [dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] [] [] true
	// debit [dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] [] [] false
	// settle [dynamodb:BatchGetItem dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] [] [] true
	// both:
	// api [dynamodb:BatchGetItem dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:Query dynamodb:UpdateItem] [] [Featured GSI1 OrdersByStatus Unprocessed] true
	// charge [dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] [] [] true
	// debit [dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] [] [] false
	// settle [dynamodb:BatchGetItem dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] [] [] true
	// v2:
	// api [dynamodb:BatchGetItem dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:Query dynamodb:UpdateItem] [] [Featured OrdersByStatus Unprocessed] true
	// charge [dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] [] [] true
	// debit [dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] [] [] false
	// settle [dynamodb:BatchGetItem dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] [] [] true
	// 31 routes
}
