// Package legs declares the migration that gives double-entry legs to the
// ledger entries stored before entries carried them: each such entry gets
// the legs its kind, user and amount imply (store.LegsOf), exactly the
// legs the flows write on every new entry.
//
// It declares the item change only (runtime/migrate runs it through its
// phases; lambdas/migrate -migration ledger-legs). No writer rewrites an
// old entry (a ledger entry is written once, by its flow, already with
// legs; the platform totaller only adds `totalled`), so it needs no fence
// on the flows and writes no old shape: readers read both shapes alike
// meanwhile (store.LedgerEntry.Posting). Match takes the entries without
// legs and the ones it migrated (they carry the version attribute), so
// verify checks every migrated entry's legs against its kind, and an entry
// a flow wrote with legs is left alone. Nothing is retired.
package legs

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// Name is the migration's name.
const Name = "ledger-legs"

// Attribute is the ledger entry's legs attribute.
const Attribute = "legs"

// ErrEntry is wrapped by the error of an entry Transform cannot read.
var ErrEntry = errors.New("legs: ledger entry without a kind, user or amount")

// Migration is the ledger-legs migration for a table laid out by sch,
// whose migrator writes versionAttribute (migrate.Options.VersionAttribute;
// "" for the default).
func Migration(sch schema.Schema, versionAttribute string) migrate.Migration {
	sch = sch.WithDefaults()
	if versionAttribute == "" {
		versionAttribute = migrate.DefaultVersionAttribute
	}
	return migrate.Migration{
		Name: Name, From: 1, To: 2,
		Match: func(it migrate.Item) bool {
			if str(it, sch.EntityType) != store.TypeLedgerEntry {
				return false
			}
			_, hasLegs := it[Attribute]
			_, migrated := it[versionAttribute]
			return !hasLegs || migrated
		},
		Transform: transform,
	}
}

// transform is the legs of an old entry, from the attributes every entry
// has: its kind, user and amount.
func transform(old migrate.Item) (migrate.Item, error) {
	kind, user := str(old, "kind"), str(old, "userId")
	n, ok := old["amount"].(*types.AttributeValueMemberN)
	if kind == "" || user == "" || !ok {
		return nil, ErrEntry
	}
	amount, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: amount %q", ErrEntry, n.Value)
	}
	legs, err := attributevalue.Marshal(store.LegsOf(kind, user, amount))
	if err != nil {
		return nil, err
	}
	return migrate.Item{Attribute: legs}, nil
}

func str(it migrate.Item, k string) string {
	if v, ok := it[k].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}
