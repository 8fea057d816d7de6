package reconciler

import (
	"github.com/oncetable/oncetable/runtime/reconcile"
)

// DynamoDB IAM actions of the reconcile function.
const (
	ActionScan       = "dynamodb:Scan"
	ActionQuery      = "dynamodb:Query"
	ActionGetItem    = "dynamodb:GetItem"
	ActionPutItem    = "dynamodb:PutItem"
	ActionUpdateItem = "dynamodb:UpdateItem"
)

// Access is what the reconcile function calls: ReadActions on the whole
// table (the scan, the consistent re-reads of violations, the checkpoint),
// WriteActions only on items whose partition key matches one of
// WritePartitions (IAM's StringLike patterns on dynamodb:LeadingKeys).
type Access struct {
	ReadActions     []string
	WriteActions    []string
	WritePartitions []string
}

// FunctionAccess is the reconcile function's access, derived from
// runtime/reconcile:
//
//	Scan (the pass), Query (the chunks of a pass and the consistent re-read
//	of a violation's partitions), GetItem (the checkpoint); PutItem (the
//	first checkpoint, a pass's chunks), UpdateItem (the checkpoint's lease
//	and cursor)
//
// A test runs passes over the embedded engine and checks that every call is
// covered, every action used and every write inside WritePartitions.
func FunctionAccess() Access {
	return Access{
		ReadActions:     []string{ActionGetItem, ActionQuery, ActionScan},
		WriteActions:    []string{ActionPutItem, ActionUpdateItem},
		WritePartitions: []string{reconcile.Partition, reconcile.ChunkPartitionPrefix + "*"},
	}
}
