package paymentsapi_test

import (
	"fmt"

	"github.com/oncetable/oncetable/constructs/paymentsapi"
	"github.com/oncetable/oncetable/runtime/httpapi"
)

// Each function's role holds exactly these DynamoDB actions.
func ExampleFunctionAccess() {
	access := paymentsapi.FunctionAccess()
	for _, fn := range paymentsapi.Functions() {
		a := access[fn]
		fmt.Println(fn, a.TableActions, a.Indexes)
	}
	fmt.Println(len(httpapi.Routes()), "routes")
	// Output:
	// api [dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:PutItem dynamodb:Query dynamodb:UpdateItem] [Featured GSI1 Unprocessed]
	// charge [dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] []
	// debit [dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] []
	// settle [dynamodb:BatchGetItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem] []
	// 18 routes
}
