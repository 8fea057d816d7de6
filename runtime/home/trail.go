package home

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// TrailItem is the name of a transaction's trail Put (TrailItem-<cell>
// for a second cell, as the fence's).
const TrailItem = "trail"

// DefaultTrailTTL is how long a trail item lists its partitions: a
// planned failover compares every partition a transaction of the cell
// wrote in this time.
const DefaultTrailTTL = 7 * 24 * time.Hour

// Trail attribute names.
const (
	trailPrefix     = "TRAIL#"
	attrPartitions  = "partitions"
	attrTrailExpiry = schema.TTLAttribute
)

// Trail adds to items, under name, a Put in the cell's partition
// ("CELL#<cell>", sort key "TRAIL#<hash>") listing the partitions of
// table that items write, to expire at expires (the table's TTL
// attribute). It commits with the writes or not at all, in the Region
// that commits them, so the source Region's cell partition lists every
// partition its transactions of the cell wrote: the production table keys
// items by user, order and idempotency record, not by cell, and this list
// is what DrainProof compares. It also lists the partitions in more (the
// idempotency record's, which runtime/idempotency adds to the transaction
// after the flow's items). Items that write only the cell's own partition
// (the simulation's layout) need none; Trail adds nothing then.
// A transaction of two cells' users (a transfer) has one trail in each.
func Trail(items *txn.Items, name, table, cell string, expires time.Time, more ...string) error {
	parts := partitionsOf(items, table, more)
	if len(parts) == 0 {
		return items.Err()
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	items.Add(name, types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(table),
		Item: map[string]types.AttributeValue{
			schema.PartitionKey: &types.AttributeValueMemberS{Value: PK(cell)},
			schema.SortKey:      &types.AttributeValueMemberS{Value: trailPrefix + hex.EncodeToString(sum[:16])},
			attrPartitions:      &types.AttributeValueMemberSS{Value: parts},
			attrTrailExpiry:     &types.AttributeValueMemberN{Value: strconv.FormatInt(expires.Unix(), 10)},
		},
	}})
	return items.Err()
}

// partitionsOf lists, sorted, the partition keys of table that items put,
// update or delete, but the cells' own ("CELL#…", which DrainProof
// compares anyway).
func partitionsOf(items *txn.Items, table string, more []string) []string {
	seen := map[string]bool{}
	for _, p := range more {
		if p != "" {
			seen[p] = true
		}
	}
	add := func(t *string, key map[string]types.AttributeValue) {
		if aws.ToString(t) != table {
			return
		}
		if s, ok := key[schema.PartitionKey].(*types.AttributeValueMemberS); ok && !strings.HasPrefix(s.Value, PK("")) {
			seen[s.Value] = true
		}
	}
	for _, it := range items.List() {
		switch {
		case it.Put != nil:
			add(it.Put.TableName, it.Put.Item)
		case it.Update != nil:
			add(it.Update.TableName, it.Update.Key)
		case it.Delete != nil:
			add(it.Delete.TableName, it.Delete.Key)
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// trailPartitions reads the partitions an item of the cell's partition
// lists, if it is a trail item.
func trailPartitions(it map[string]types.AttributeValue) []string {
	sk, _ := it[schema.SortKey].(*types.AttributeValueMemberS)
	ss, _ := it[attrPartitions].(*types.AttributeValueMemberSS)
	if sk == nil || ss == nil || !strings.HasPrefix(sk.Value, trailPrefix) {
		return nil
	}
	return ss.Value
}
