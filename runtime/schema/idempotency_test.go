package schema_test

import (
	"testing"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/schema"
)

// TestIdempotencyDefaultsAreTheTables keeps the exactly-once library's
// default names (a module of its own, which cannot import this package) equal
// to the single table's: records written with idempotency.Attributes{} live
// in oncetable's table under its key, TTL and prefix names.
func TestIdempotencyDefaultsAreTheTables(t *testing.T) {
	in := idempotency.CreateTableInput("t", idempotency.Attributes{})
	got := map[string]string{}
	for _, k := range in.KeySchema {
		got[string(k.KeyType)] = *k.AttributeName
	}
	if got["HASH"] != schema.PartitionKey || got["RANGE"] != schema.SortKey {
		t.Errorf("library key names %v, table's %s/%s", got, schema.PartitionKey, schema.SortKey)
	}
	if ttl := *idempotency.TimeToLiveInput("t", idempotency.Attributes{}).TimeToLiveSpecification.AttributeName; ttl != schema.TTLAttribute {
		t.Errorf("library TTL attribute %q, table's %q", ttl, schema.TTLAttribute)
	}
	if idempotency.DefaultKeyPrefix != keys.IdemPrefix {
		t.Errorf("library key prefix %q, table's %q", idempotency.DefaultKeyPrefix, keys.IdemPrefix)
	}
}
