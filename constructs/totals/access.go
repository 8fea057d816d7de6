package totals

import (
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/store"
)

// ActionUpdateItem is the one DynamoDB action of the totals function: its
// TransactWriteItems holds Update items only.
const ActionUpdateItem = "dynamodb:UpdateItem"

// Access is what the totals function writes: WriteActions only on items
// whose partition key matches one of WritePartitions (IAM's StringLike
// patterns on dynamodb:LeadingKeys). It reads nothing from the table.
type Access struct {
	WriteActions    []string
	WritePartitions []string
}

// FunctionAccess is the totals function's access, derived from
// runtime/platform: one TransactWriteItems per batch (or per 92 entries)
// whose items are Updates of the batch's ledger entries (SET totalled, in
// their users' partitions) and of the platform totals' shard items (ADD,
// in PLATFORM#<account>#<shard>). A test drives the totaller from the
// engine's stream through Filter and checks that every call is covered,
// every action used and every write inside WritePartitions.
func FunctionAccess() Access {
	return Access{
		WriteActions:    []string{ActionUpdateItem},
		WritePartitions: []string{keys.UserPrefix + "*", keys.PlatformPrefix + "*"},
	}
}

// Filter is the stream records the mapping admits: the only ones the
// totaller counts (runtime/platform reads INSERTs of ledger entries and
// skips every other record).
var Filter = struct {
	EventName  string
	EntityType string
}{EventName: "INSERT", EntityType: store.TypeLedgerEntry}
