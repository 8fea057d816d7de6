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
	attrWriter      = "writer"    // the Region that committed the transaction
	attrWrittenAt   = "writtenAt" // its clock, in Unix milliseconds
	attrMoves       = "moves"     // the ledger entries it put: TrailMove
)

// ledgerPrefix is the sort key prefix of a ledger entry (runtime/keys).
const ledgerPrefix = "LEDGER#"

// Trail adds to items, under name, a Put in the cell's partition
// ("CELL#<l.Cell>", sort key "TRAIL#<hash>") listing the partitions of
// table that items write, to expire at expires (the table's TTL
// attribute). It also records who wrote it (l's Region and epoch, at by
// the writer's clock) and the ledger entries the transaction puts, with
// their amounts (TrailMove): a Region's stream consumer (runtime/regionwatch)
// reads them to flag a write of an old epoch that arrives after a later
// epoch was claimed. It commits with the writes or not at all, in the Region
// that commits them, so the source Region's cell partition lists every
// partition its transactions of the cell wrote: the production table keys
// items by user, order and idempotency record, not by cell, and this list
// is what DrainProof compares. It also lists the partitions in more (the
// idempotency record's, which runtime/idempotency adds to the transaction
// after the flow's items). Items that write only the cell's own partition
// (the simulation's layout) need none; Trail adds nothing then.
// A transaction of two cells' users (a transfer) has one trail in each.
func Trail(items *txn.Items, name, table string, l Lease, at, expires time.Time, more ...string) error {
	parts := partitionsOf(items, table, more)
	if len(parts) == 0 {
		return items.Err()
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	item := map[string]types.AttributeValue{
		schema.PartitionKey: &types.AttributeValueMemberS{Value: PK(l.Cell)},
		schema.SortKey:      &types.AttributeValueMemberS{Value: trailPrefix + hex.EncodeToString(sum[:16])},
		attrPartitions:      &types.AttributeValueMemberSS{Value: parts},
		attrTrailExpiry:     &types.AttributeValueMemberN{Value: strconv.FormatInt(expires.Unix(), 10)},
		attrWriter:          &types.AttributeValueMemberS{Value: l.Region},
		attrEpoch:           &types.AttributeValueMemberN{Value: strconv.FormatInt(l.Epoch, 10)},
		attrWrittenAt:       &types.AttributeValueMemberN{Value: strconv.FormatInt(at.UnixMilli(), 10)},
	}
	if moves := movesOf(items, table); len(moves) > 0 {
		item[attrMoves] = &types.AttributeValueMemberL{Value: moves}
	}
	items.Add(name, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: item}})
	return items.Err()
}

// TrailMove is a ledger entry a fenced transaction put, as its trail
// item lists it.
type TrailMove struct {
	PK, SK   string // the entry's key
	Kind     string // credit, debit, settle, ...
	Amount   int64  // minor units
	Currency string
}

// Attribute names of a ledger entry (runtime/store) that a trail copies.
const (
	attrKind     = "kind"
	attrAmount   = "amount"
	attrCurrency = "currency"
)

// movesOf lists the ledger entries of table that items put.
func movesOf(items *txn.Items, table string) []types.AttributeValue {
	var out []types.AttributeValue
	for _, it := range items.List() {
		if it.Put == nil || aws.ToString(it.Put.TableName) != table {
			continue
		}
		sk, _ := it.Put.Item[schema.SortKey].(*types.AttributeValueMemberS)
		amount, _ := it.Put.Item[attrAmount].(*types.AttributeValueMemberN)
		if sk == nil || amount == nil || !strings.HasPrefix(sk.Value, ledgerPrefix) {
			continue
		}
		m := map[string]types.AttributeValue{
			schema.PartitionKey: it.Put.Item[schema.PartitionKey],
			schema.SortKey:      sk,
			attrAmount:          amount,
		}
		for _, a := range []string{attrKind, attrCurrency} {
			if v, ok := it.Put.Item[a].(*types.AttributeValueMemberS); ok {
				m[a] = v
			}
		}
		out = append(out, &types.AttributeValueMemberM{Value: m})
	}
	return out
}

// TrailRecord is what a trail item says of the transaction that wrote it.
type TrailRecord struct {
	Cell      string
	Writer    string // the Region that committed it
	Epoch     int64  // the writer's epoch
	WrittenAt time.Time
	Moves     []TrailMove
}

// ReadTrail reads a trail item (as a stream record's image or a read
// returns it); ok is false for any other item of a cell's partition, and
// for a trail written before trails named their writer.
func ReadTrail(it map[string]types.AttributeValue) (TrailRecord, bool) {
	pk, _ := it[schema.PartitionKey].(*types.AttributeValueMemberS)
	sk, _ := it[schema.SortKey].(*types.AttributeValueMemberS)
	writer, _ := it[attrWriter].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil || writer == nil || !strings.HasPrefix(sk.Value, trailPrefix) || !strings.HasPrefix(pk.Value, PK("")) {
		return TrailRecord{}, false
	}
	r := TrailRecord{Cell: strings.TrimPrefix(pk.Value, PK("")), Writer: writer.Value, Epoch: numberOf(it[attrEpoch]),
		WrittenAt: time.UnixMilli(numberOf(it[attrWrittenAt])).UTC()}
	if l, ok := it[attrMoves].(*types.AttributeValueMemberL); ok {
		for _, v := range l.Value {
			m, ok := v.(*types.AttributeValueMemberM)
			if !ok {
				continue
			}
			r.Moves = append(r.Moves, TrailMove{PK: stringOf(m.Value[schema.PartitionKey]), SK: stringOf(m.Value[schema.SortKey]),
				Kind: stringOf(m.Value[attrKind]), Amount: numberOf(m.Value[attrAmount]), Currency: stringOf(m.Value[attrCurrency])})
		}
	}
	return r, true
}

func stringOf(v types.AttributeValue) string {
	s, _ := v.(*types.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}

func numberOf(v types.AttributeValue) int64 {
	n, _ := v.(*types.AttributeValueMemberN)
	if n == nil {
		return 0
	}
	i, _ := strconv.ParseInt(n.Value, 10, 64)
	return i
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
