package migratedemo

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/test/workload"
)

// InvIndex is the invariant CheckIndex reports.
const InvIndex = "every committed order is in OrdersByStatus with its current status"

// IndexReport is what CheckIndex found.
type IndexReport struct {
	Orders  int // orders in the table (strongly consistent Scan)
	Rows    int // rows read from OrdersByStatus, every status and shard
	Missing int // orders with no row under their status and shard
	Stale   int // orders whose row differs from the item (status, shard, updatedAt)
	Ghosts  int // rows for no order of the table
	// Retired counts orders that still carry GSI1PK or GSI1SK.
	Retired int
	// PerShard counts the rows by status, then shard.
	PerShard map[string][]int
	// GSI1 reports whether the table still has GSI1.
	GSI1 bool
}

// Lost counts the orders missing from or stale in the index.
func (r IndexReport) Lost() int { return r.Missing + r.Stale }

// row is an order as OrdersByStatus holds it.
type row struct {
	status, updatedAt string
	shard             int
}

// CheckIndex reads OrdersByStatus across every status and shard (n of
// them) and compares it with the orders of st: each must be there, under
// its status and shard, with its updatedAt. It also counts the orders that
// still carry the retired GSI1 keys. Run it on the table at rest.
func CheckIndex(ctx context.Context, db *dynamodb.Client, table string, n int, st *workload.State) (IndexReport, []workload.Violation, error) {
	rep := IndexReport{Orders: len(st.Orders), PerShard: map[string][]int{}}
	statuses := map[string]bool{}
	for _, o := range st.Orders {
		statuses[o.Status] = true
		if o.GSI1PK != "" || o.GSI1SK != "" {
			rep.Retired++
		}
	}
	rows := map[string]row{}
	for status := range statuses {
		rep.PerShard[status] = make([]int, n)
		for shard := 0; shard < n; shard++ {
			if err := queryShard(ctx, db, table, status, shard, rows); err != nil {
				return rep, nil, err
			}
		}
	}
	for id, r := range rows {
		rep.Rows++
		if r.shard >= 0 && r.shard < n {
			rep.PerShard[r.status][r.shard]++
		}
		if _, ok := st.Orders[id]; !ok {
			rep.Ghosts++
		}
	}
	var out []workload.Violation
	ids := make([]string, 0, len(st.Orders))
	for id := range st.Orders {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		o := st.Orders[id]
		r, ok := rows[id]
		want := row{status: o.Status, updatedAt: o.UpdatedAt, shard: orders.Shard(id, n)}
		switch {
		case !ok:
			rep.Missing++
			out = append(out, workload.Violation{Invariant: InvIndex, Detail: fmt.Sprintf("order %s (%s, shard %d) is missing from %s", id, o.Status, want.shard, schema.OrdersByStatus.Name)})
		case r != want:
			rep.Stale++
			out = append(out, workload.Violation{Invariant: InvIndex, Detail: fmt.Sprintf("order %s is %+v in the table, %+v in %s", id, want, r, schema.OrdersByStatus.Name)})
		}
	}
	var err error
	rep.GSI1, err = hasIndex(ctx, db, table, schema.GSI1.Name)
	return rep, out, err
}

// queryShard reads every row of one status and shard into rows. A row seen
// under two keys keeps the one that differs from the other (both are
// reported stale against the table).
func queryShard(ctx context.Context, db *dynamodb.Client, table, status string, shard int, rows map[string]row) error {
	in := &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(schema.OrdersByStatus.Name),
		KeyConditionExpression:   aws.String("#s = :s AND #h = :h"),
		ExpressionAttributeNames: map[string]string{"#s": "status", "#h": orders.ShardAttribute},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: status},
			":h": &types.AttributeValueMemberN{Value: strconv.Itoa(shard)}}}
	// Partition throughput is still on: a throttled page is retried.
	p := retry.Policy{MaxAttempts: 30, Base: 20 * time.Millisecond, Cap: time.Second}
	for {
		var out *dynamodb.QueryOutput
		err := retry.Do(ctx, p, func(int) (err error) {
			out, err = db.Query(ctx, in)
			return err
		})
		if err != nil {
			return fmt.Errorf("migratedemo: query %s status %s shard %d: %w", schema.OrdersByStatus.Name, status, shard, err)
		}
		for _, it := range out.Items {
			id := str(it, "orderId")
			got := row{status: str(it, "status"), updatedAt: str(it, "updatedAt"), shard: -1}
			if v, ok := it[orders.ShardAttribute].(*types.AttributeValueMemberN); ok {
				got.shard, _ = strconv.Atoi(v.Value)
			}
			if prev, seen := rows[id]; seen && prev == got {
				continue
			}
			rows[id] = got
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func str(it map[string]types.AttributeValue, k string) string {
	if v, ok := it[k].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}
