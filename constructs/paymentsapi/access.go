package paymentsapi

import (
	"sort"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/schema"
)

// DynamoDB IAM actions the functions use. TransactWriteItems has no IAM
// action of its own: it is authorized per item as PutItem, UpdateItem,
// DeleteItem or ConditionCheckItem.
const (
	ActionGetItem      = "dynamodb:GetItem"
	ActionPutItem      = "dynamodb:PutItem"
	ActionUpdateItem   = "dynamodb:UpdateItem"
	ActionQuery        = "dynamodb:Query"
	ActionBatchGetItem = "dynamodb:BatchGetItem"
	// ActionConditionCheckItem authorizes create order's catalogue price checks.
	ActionConditionCheckItem = "dynamodb:ConditionCheckItem"
)

// Access is the DynamoDB access of one function: actions on the table ARN,
// and actions on the ARNs of the named indexes. Nothing else is granted.
type Access struct {
	TableActions []string
	IndexActions []string
	Indexes      []string
	// FallbackActions are granted for a rare path (the idempotency replay
	// that re-reads the record when an endpoint omits it from the
	// cancellation reason); they are part of TableActions.
	FallbackActions []string
}

// FunctionAccess returns the access of each function (httpapi.Function*),
// derived from what its routes call in runtime/:
//
//	charge  TransactWriteItems{Update order, Put payment, Put idempotency record};
//	        GetItem of the record on replay
//	debit   TransactWriteItems{Update balance, Put ledger entry, Put record}; GetItem on replay
//	settle  BatchGetItem(order, record); TransactWriteItems{Update order, Update balance,
//	        Update order summary, Put ledger entry, Put record}; GetItem on replay
//	api     GetItem, PutItem, UpdateItem (process payment), Query on the table,
//	        TransactWriteItems{Update, Put, ConditionCheck} (credit, create order, add address),
//	        Query on GSI1 (orders by status), Unprocessed and Featured
//
// A test runs every route against the embedded engine and checks that each
// recorded call is covered and that every action is used.
func FunctionAccess() map[string]Access {
	replay := []string{ActionGetItem}
	return map[string]Access{
		httpapi.FunctionCharge: {
			TableActions:    []string{ActionGetItem, ActionPutItem, ActionUpdateItem},
			FallbackActions: replay,
		},
		httpapi.FunctionDebit: {
			TableActions:    []string{ActionGetItem, ActionPutItem, ActionUpdateItem},
			FallbackActions: replay,
		},
		httpapi.FunctionSettle: {
			TableActions:    []string{ActionBatchGetItem, ActionGetItem, ActionPutItem, ActionUpdateItem},
			FallbackActions: replay,
		},
		httpapi.FunctionAPI: {
			TableActions: []string{ActionConditionCheckItem, ActionGetItem, ActionPutItem, ActionQuery, ActionUpdateItem},
			IndexActions: []string{ActionQuery},
			Indexes:      indexNames(),
		},
	}
}

func indexNames() []string {
	var names []string
	for _, ix := range schema.Indexes() {
		names = append(names, ix.Name)
	}
	sort.Strings(names)
	return names
}

// Functions lists the function names in a stable order.
func Functions() []string {
	return []string{httpapi.FunctionAPI, httpapi.FunctionCharge, httpapi.FunctionDebit, httpapi.FunctionSettle}
}
