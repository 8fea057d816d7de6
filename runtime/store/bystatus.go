package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
)

// The cursor bindings of the reads by status, one per layout: a cursor of
// one layout does not verify under the other.
const (
	bindingByStatusGSI1   = "ordersByStatus"
	bindingByStatusShards = "ordersByStatus/shards"
)

// ErrCursorLayout is a cursor of orders by status minted under the other
// order layout: on GSI1 before the cutover of orders-by-status-v2, or on
// the shards of OrdersByStatus from it on. It is an ErrInvalidCursor; the
// client lists again from the first page.
var ErrCursorLayout = fmt.Errorf("%w: it was issued for the other index of orders by status "+
	"(the migration %s moved reads between GSI1 and OrdersByStatus); list again without a cursor", ErrInvalidCursor, orders.Name)

// OrdersByStatus pages orders in a status newest first (createdAt, then
// orderId, descending). Eventually consistent. Before the cutover of
// orders-by-status-v2 (stage v1, or both before cutover) it is one Query of
// GSI1 with GSI1PK = ORDERSTATUS#<status>; from the cutover on (and in
// v2) it Queries OrdersByStatus on every shard (status = :s AND shard =
// :n, descending) and merges them. A cursor of the other layout is an
// ErrCursorLayout.
func (s *Store) OrdersByStatus(ctx context.Context, status string, limit int, cur string) (Page[Order], error) {
	shards, err := s.orders.ReadsShards(ctx)
	if err != nil {
		return Page[Order]{}, err
	}
	if shards {
		p, err := s.ordersByShards(ctx, status, limit, cur)
		return p, s.otherLayout(err, bindingByStatusGSI1, cur)
	}
	pk := s.keys.OrderStatusPrefix + status
	p, err := runPage[Order](ctx, s, pageQuery{binding: bindingByStatusGSI1, index: s.sch.GSI1.Name,
		pkAttr: s.sch.GSI1.PartitionKey, pk: pk}, limit, cur)
	return p, s.otherLayout(err, bindingByStatusShards, cur)
}

// otherLayout turns an invalid cursor that the other layout signed into
// ErrCursorLayout.
func (s *Store) otherLayout(err error, other, cur string) error {
	if errors.Is(err, ErrInvalidCursor) {
		if _, oerr := s.cursor.Decode(other, cur); oerr == nil {
			return ErrCursorLayout
		}
	}
	return err
}

// shardPosition is where a page of the merged shards starts: after the
// order (createdAt, orderId), which every shard resumes after, so that no
// order is skipped or repeated across shards; exhausted marks the shards
// known to hold nothing older.
type shardPosition struct {
	createdAt, orderID string
	exhausted          []bool
}

// shardItem is an order read from one shard.
type shardItem struct {
	shard int
	item  map[string]types.AttributeValue
}

func (s *Store) ordersByShards(ctx context.Context, status string, limit int, cur string) (Page[Order], error) {
	limit = pageLimit(limit)
	n := s.orders.Layout().Shards
	pos, err := s.decodeShardCursor(status, cur, n)
	if err != nil {
		return Page[Order]{}, err
	}
	read, err := s.readShards(ctx, status, pos, limit+1)
	if err != nil {
		return Page[Order]{}, err
	}
	var merged []shardItem
	for _, r := range read {
		merged = append(merged, r.items...)
	}
	sort.Slice(merged, func(i, j int) bool { return newer(merged[i].item, merged[j].item) })
	taken := merged[:min(limit, len(merged))]
	p := Page[Order]{Items: make([]Order, 0, len(taken))}
	left := make([]int, n) // items read per shard and not taken
	for _, it := range merged[len(taken):] {
		left[it.shard]++
	}
	for _, it := range taken {
		var o Order
		if err := s.items.Unmarshal(it.item, &o); err != nil {
			return Page[Order]{}, err
		}
		p.Items = append(p.Items, o)
	}
	next := shardPosition{exhausted: make([]bool, n)}
	more := false
	for i := range n {
		next.exhausted[i] = pos.exhausted[i] || (left[i] == 0 && !read[i].more)
		more = more || !next.exhausted[i]
	}
	if !more || len(taken) == 0 {
		return p, nil
	}
	last := taken[len(taken)-1].item
	next.createdAt, next.orderID = str(last, "createdAt"), str(last, "orderId")
	p.NextCursor, err = s.encodeShardCursor(status, next)
	return p, err
}

// newer orders a before b newest first: createdAt, then orderId, descending
// (DynamoDB compares strings by their UTF-8 bytes, as Go does).
func newer(a, b map[string]types.AttributeValue) bool {
	if ca, cb := str(a, "createdAt"), str(b, "createdAt"); ca != cb {
		return ca > cb
	}
	return str(a, "orderId") > str(b, "orderId")
}

func str(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// shardRead is one shard's answer: its orders after the position, and
// whether it may hold more than were read.
type shardRead struct {
	items []shardItem
	more  bool
	err   error
}

// readShards queries every shard not exhausted, in parallel, for up to
// limit orders after pos.
func (s *Store) readShards(ctx context.Context, status string, pos shardPosition, limit int) ([]shardRead, error) {
	read := make([]shardRead, len(pos.exhausted))
	var wg sync.WaitGroup
	for i := range read {
		if pos.exhausted[i] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			read[i] = s.readShard(ctx, status, i, pos, limit)
		}()
	}
	wg.Wait()
	for _, r := range read {
		if r.err != nil {
			return nil, r.err
		}
	}
	return read, nil
}

// readShard is one Query of OrdersByStatus: status = :s AND shard = :n,
// newest first, after pos.
func (s *Store) readShard(ctx context.Context, status string, shard int, pos shardPosition, limit int) shardRead {
	ix := s.sch.OrdersByStatus
	hash := ix.HashKeys()
	kc := expression.Key(hash[0].Name).Equal(expression.Value(status)).
		And(expression.Key(hash[1].Name).Equal(expression.Value(shard)))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return shardRead{err: err}
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(ix.Name),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit)),
	}
	if pos.orderID != "" {
		if in.ExclusiveStartKey, err = s.shardStartKey(status, shard, pos); err != nil {
			return shardRead{err: err}
		}
	}
	out, err := s.query(ctx, in)
	if err != nil {
		if in.ExclusiveStartKey != nil && isValidation(err) {
			err = fmt.Errorf("%w: outside this query", ErrInvalidCursor)
		}
		return shardRead{err: err}
	}
	r := shardRead{more: len(out.LastEvaluatedKey) > 0, items: make([]shardItem, len(out.Items))}
	for i, it := range out.Items {
		r.items[i] = shardItem{shard: shard, item: it}
	}
	return r
}

// shardStartKey is the ExclusiveStartKey of shard after pos: the index's
// four key attributes and the table's key of the order pos names. The Query
// resumes after that position whether or not the shard holds the order (the
// engine does; DynamoDB documents no existence check of a start key).
func (s *Store) shardStartKey(status string, shard int, pos shardPosition) (map[string]types.AttributeValue, error) {
	k, err := s.keys.Order(pos.orderID)
	if err != nil {
		return nil, err
	}
	key := s.items.Key(k)
	ix := s.sch.OrdersByStatus
	values := []types.AttributeValue{
		&types.AttributeValueMemberS{Value: status}, &types.AttributeValueMemberN{Value: strconv.Itoa(shard)},
		&types.AttributeValueMemberS{Value: pos.createdAt}, &types.AttributeValueMemberS{Value: pos.orderID},
	}
	for i, ka := range append(ix.HashKeys(), ix.RangeKeys()...) {
		key[ka.Name] = values[i]
	}
	return key, nil
}

// The attributes of a shards cursor.
const (
	curStatus    = "status"
	curCreatedAt = "createdAt"
	curOrderID   = "orderId"
	curExhausted = "exhausted" // one '0' or '1' per shard
)

func (s *Store) encodeShardCursor(status string, pos shardPosition) (string, error) {
	var mask strings.Builder
	for _, e := range pos.exhausted {
		mask.WriteByte("01"[boolIndex(e)])
	}
	sv := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	return s.cursor.Encode(bindingByStatusShards, map[string]types.AttributeValue{
		curStatus: sv(status), curCreatedAt: sv(pos.createdAt), curOrderID: sv(pos.orderID), curExhausted: sv(mask.String()),
	})
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// decodeShardCursor verifies a shards cursor of status. A cursor issued
// under another shard count is still exact (every shard resumes after the
// same order); only its exhausted marks are dropped.
func (s *Store) decodeShardCursor(status, cur string, n int) (shardPosition, error) {
	pos := shardPosition{exhausted: make([]bool, n)}
	m, err := s.cursor.Decode(bindingByStatusShards, cur)
	if err != nil || m == nil {
		return pos, err
	}
	get := func(k string) string { return str(m, k) }
	if get(curStatus) != status {
		return pos, fmt.Errorf("%w: not from this query", ErrInvalidCursor)
	}
	pos.createdAt, pos.orderID = get(curCreatedAt), get(curOrderID)
	if pos.createdAt == "" || keys.ValidateID("orderId", pos.orderID) != nil {
		return pos, fmt.Errorf("%w: no position", ErrInvalidCursor)
	}
	if mask := get(curExhausted); len(mask) == n {
		for i := range n {
			pos.exhausted[i] = mask[i] == '1'
		}
	}
	return pos, nil
}
