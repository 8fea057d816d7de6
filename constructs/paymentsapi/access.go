package paymentsapi

import (
	"slices"
	"sort"

	"github.com/oncetable/oncetable/constructs/singletable"
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
	// ActionConditionCheckItem authorizes create order's catalogue price
	// checks, and the migration fence's check of the META item.
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
	// Orders says the function reads or writes orders: it gets
	// ORDER_INDEXES and ORDER_SHARDS.
	Orders bool
	// FencedWrites says the function writes an order's shape (its status or
	// index keys): at stage both those writes are fenced (migrate.Fence: a
	// ConditionCheck on the migration's META item, read with GetItem).
	FencedWrites bool
	// FenceActions are the actions the fence needs that TableActions lack,
	// at stage both only. They are granted on the table ARN in a policy of
	// their own (MigrationFence) on which the function depends: the deploy
	// to both creates it before the function starts fencing, and the deploy
	// leaving both deletes it in CloudFormation's cleanup, after the
	// function stopped fencing (a statement removed from the role's default
	// policy would go before the function's update).
	FenceActions []string
}

// FunctionAccess returns the access of each function (httpapi.Function*)
// at the order index stage (schema.OrdersV1 for ""), derived from what its
// routes call in runtime/:
//
//	charge  TransactWriteItems{Update order, Put payment, Put idempotency record,
//	        ConditionCheck of the record's legacy place}; GetItem of the record on replay
//	debit   TransactWriteItems{Update balance, Put ledger entry, Put record, ConditionCheck
//	        legacy record}; GetItem on replay
//	settle  BatchGetItem(order, record); TransactWriteItems{Update order, Update balance,
//	        Update order summary, Put ledger entry, Put record, ConditionCheck legacy
//	        record}; GetItem on replay
//	api     GetItem, PutItem, UpdateItem (process payment: GetItem of the order's
//	        userId, then UpdateItem of the payment), Query on the table,
//	        TransactWriteItems{Update, Put, ConditionCheck} (credit, create order, add address,
//	        transfer, the hold flows), BatchGetItem(profile, hold, record) (capture, void),
//	        Query on the order index(es) of the stage (GSI1, OrdersByStatus), Unprocessed and Featured
//
// The legacy ConditionCheck keeps a key that a version before records had
// partitions of their own stored in the user's or order's partition from
// running again (idempotency.Request.LegacyPartition).
//
// charge, settle and api read and write orders. settle (the order's
// status) and api (create order) write an order's shape: at stage both
// those writes carry the fence's ConditionCheck on the META item and read
// it with GetItem (both already granted to api; settle gains
// ConditionCheckItem as a FenceAction). charge only sets the order's
// paymentId, which no shape depends on, so it is not fenced. At v1 and v2
// there is no fence.
//
// Every function checks the caller first (runtime/httpapi): for a customer
// on an order's route (charge, settle, GET /orders/{orderId}) that is a
// GetItem of the order projected to userId, which charge, settle and api
// hold already.
//
// A test runs every route against the embedded engine and checks that each
// recorded call is covered and that every action is used.
func FunctionAccess(stage schema.OrderIndexes) map[string]Access {
	orders := singletable.OrderIndexes{Stage: stage}.WithDefaults()
	replay := []string{ActionGetItem}
	access := map[string]Access{
		httpapi.FunctionCharge: {
			TableActions:    []string{ActionConditionCheckItem, ActionGetItem, ActionPutItem, ActionUpdateItem},
			FallbackActions: replay,
			Orders:          true,
		},
		httpapi.FunctionDebit: {
			TableActions:    []string{ActionConditionCheckItem, ActionGetItem, ActionPutItem, ActionUpdateItem},
			FallbackActions: replay,
		},
		httpapi.FunctionSettle: {
			TableActions:    []string{ActionBatchGetItem, ActionConditionCheckItem, ActionGetItem, ActionPutItem, ActionUpdateItem},
			FallbackActions: replay,
			Orders:          true,
			FencedWrites:    true,
		},
		httpapi.FunctionAPI: {
			TableActions: []string{ActionBatchGetItem, ActionConditionCheckItem, ActionGetItem, ActionPutItem, ActionQuery, ActionUpdateItem},
			IndexActions: []string{ActionQuery},
			Indexes:      sorted(orders.IndexNames()),
			Orders:       true,
			FencedWrites: true,
		},
	}
	if orders.Stage == schema.OrdersBoth {
		for name, acc := range access {
			if acc.FencedWrites {
				acc.FenceActions = missing(acc.TableActions, ActionConditionCheckItem, ActionGetItem)
				access[name] = acc
			}
		}
	}
	return access
}

// missing lists the actions of want that have lacks, sorted.
func missing(have []string, want ...string) []string {
	var out []string
	for _, a := range want {
		if !slices.Contains(have, a) {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// Functions lists the function names in a stable order.
func Functions() []string {
	return []string{httpapi.FunctionAPI, httpapi.FunctionCharge, httpapi.FunctionDebit, httpapi.FunctionSettle}
}
