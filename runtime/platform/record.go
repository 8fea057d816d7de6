package platform

import (
	"fmt"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

// RecordError is a ledger entry's stream record the totaller cannot read.
type RecordError struct {
	EventID string
	Reason  string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("platform: stream record %s: %s", e.EventID, e.Reason)
}

// entryOfRecord reads the Entry of a record that inserts a ledger entry;
// ok is false for every other record (modifications, other items).
func entryOfRecord(r events.DynamoDBEventRecord, sch schema.Schema) (Entry, bool, error) {
	im := r.Change.NewImage
	if r.EventName != "INSERT" || str(im, sch.EntityType) != store.TypeLedgerEntry {
		return Entry{}, false, nil
	}
	fail := func(reason string) (Entry, bool, error) {
		return Entry{}, false, &RecordError{EventID: r.EventID, Reason: reason}
	}
	k := keys.Key{PK: str(im, sch.PartitionKey), SK: str(im, sch.SortKey)}
	e := store.LedgerEntry{Kind: str(im, "kind"), Currency: str(im, "currency"), UserID: str(im, "userId")}
	if k.PK == "" || k.SK == "" || e.Kind == "" || e.Currency == "" || e.UserID == "" {
		return fail("a ledger entry without its key, kind, currency or user")
	}
	amount, err := num(im, "amount")
	if err != nil {
		return fail(err.Error())
	}
	e.Amount = amount
	if legs, ok := im["legs"]; ok && legs.DataType() == events.DataTypeList {
		for _, l := range legs.List() {
			if l.DataType() != events.DataTypeMap {
				return fail("a leg that is not a map")
			}
			m := l.Map()
			a, err := num(m, "amount")
			if err != nil {
				return fail("leg " + err.Error())
			}
			e.Legs = append(e.Legs, store.Leg{Account: str(m, "account"), Amount: a})
		}
	}
	return EntryOf(k, e), true, nil
}

func str(im map[string]events.DynamoDBAttributeValue, name string) string {
	if v, ok := im[name]; ok && v.DataType() == events.DataTypeString {
		return v.String()
	}
	return ""
}

func num(im map[string]events.DynamoDBAttributeValue, name string) (int64, error) {
	v, ok := im[name]
	if !ok || v.DataType() != events.DataTypeNumber {
		return 0, fmt.Errorf("%s: not a number", name)
	}
	n, err := strconv.ParseInt(v.Number(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

func keysOf(b store.Builder, item map[string]types.AttributeValue) keys.Key {
	var k keys.Key
	if v, ok := item[b.Schema.PartitionKey].(*types.AttributeValueMemberS); ok {
		k.PK = v.Value
	}
	if v, ok := item[b.Schema.SortKey].(*types.AttributeValueMemberS); ok {
		k.SK = v.Value
	}
	return k
}
