package scalebench

import (
	"context"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/store"
)

// meter is the store.DB in front of the engine's client: it counts the
// requests that reach the engine and the capacity they consumed
// (ReturnConsumedCapacity=TOTAL on every request).
type meter struct {
	store.DB
	requests atomic.Int64
	mu       sync.Mutex
	units    float64
}

func (m *meter) add(cc ...types.ConsumedCapacity) {
	m.requests.Add(1)
	sum := 0.0
	for _, c := range cc {
		sum += aws.ToFloat64(c.CapacityUnits)
	}
	m.mu.Lock()
	m.units += sum
	m.mu.Unlock()
}

func one(c *types.ConsumedCapacity) []types.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []types.ConsumedCapacity{*c}
}

// snapshot is the requests and units so far.
func (m *meter) snapshot() (int64, float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests.Load(), m.units
}

const total = types.ReturnConsumedCapacityTotal

// measured counts one request and the capacity its output reports.
func measured[O any](m *meter, out *O, err error, cc func(*O) []types.ConsumedCapacity) (*O, error) {
	if out != nil {
		m.add(cc(out)...)
	} else {
		m.add()
	}
	return out, err
}

func (m *meter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	cp := *in
	cp.ReturnConsumedCapacity = total
	out, err := m.DB.GetItem(ctx, &cp, optFns...)
	return measured(m, out, err, func(o *dynamodb.GetItemOutput) []types.ConsumedCapacity { return one(o.ConsumedCapacity) })
}

func (m *meter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	cp := *in
	cp.ReturnConsumedCapacity = total
	out, err := m.DB.PutItem(ctx, &cp, optFns...)
	return measured(m, out, err, func(o *dynamodb.PutItemOutput) []types.ConsumedCapacity { return one(o.ConsumedCapacity) })
}

func (m *meter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	cp := *in
	cp.ReturnConsumedCapacity = total
	out, err := m.DB.UpdateItem(ctx, &cp, optFns...)
	return measured(m, out, err, func(o *dynamodb.UpdateItemOutput) []types.ConsumedCapacity { return one(o.ConsumedCapacity) })
}

func (m *meter) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	cp := *in
	cp.ReturnConsumedCapacity = total
	out, err := m.DB.Query(ctx, &cp, optFns...)
	return measured(m, out, err, func(o *dynamodb.QueryOutput) []types.ConsumedCapacity { return one(o.ConsumedCapacity) })
}

func (m *meter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	cp := *in
	cp.ReturnConsumedCapacity = total
	out, err := m.DB.TransactWriteItems(ctx, &cp, optFns...)
	return measured(m, out, err, func(o *dynamodb.TransactWriteItemsOutput) []types.ConsumedCapacity { return o.ConsumedCapacity })
}

func (m *meter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	cp := *in
	cp.ReturnConsumedCapacity = total
	out, err := m.DB.BatchGetItem(ctx, &cp, optFns...)
	return measured(m, out, err, func(o *dynamodb.BatchGetItemOutput) []types.ConsumedCapacity { return o.ConsumedCapacity })
}

// shardedQueue is the unprocessed queue sharded as docs/migrations.md
// sketches it: every payment a transaction puts into the Unprocessed index
// also carries queueShard = FNV-1a(paymentId) mod shards, the second HASH
// attribute of the variant's index, so the queue spreads over that many
// index partitions. It is what a charge writing the shard would send; the
// rest of the flows are unchanged (processing REMOVEs UnprocessedPK, which
// takes the payment out of the index).
type shardedQueue struct {
	store.DB
	shards int
	attr   string // UnprocessedPK
}

// QueueShard is the shard of a payment in the sharded queue.
func QueueShard(paymentID string, shards int) int {
	h := fnv.New32a()
	h.Write([]byte(paymentID))
	return int(h.Sum32() % uint32(shards))
}

func (q *shardedQueue) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	cp := *in
	cp.TransactItems = make([]types.TransactWriteItem, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		if ti.Put != nil {
			if v, ok := ti.Put.Item[q.attr].(*types.AttributeValueMemberS); ok && v.Value == keys.UnprocessedPartition {
				put := *ti.Put
				put.Item = make(map[string]types.AttributeValue, len(ti.Put.Item)+1)
				for k, v := range ti.Put.Item {
					put.Item[k] = v
				}
				id, _ := put.Item["paymentId"].(*types.AttributeValueMemberS)
				shard := 0
				if id != nil {
					shard = QueueShard(id.Value, q.shards)
				}
				put.Item[QueueShardAttr] = &types.AttributeValueMemberN{Value: strconv.Itoa(shard)}
				ti.Put = &put
			}
		}
		cp.TransactItems[i] = ti
	}
	return q.DB.TransactWriteItems(ctx, &cp, optFns...)
}
