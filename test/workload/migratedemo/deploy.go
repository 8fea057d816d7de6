package migratedemo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/retry"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
)

// deploy1 is the first stack update: the v2 index, then the API in stage
// both (fenced writers). CloudFormation adds one GSI per update.
func (d *demo) deploy1(ctx context.Context) error {
	t0 := time.Now()
	gsi, defs := provision.GlobalSecondaryIndex(schema.OrdersByStatus)
	create := &types.CreateGlobalSecondaryIndexAction{IndexName: gsi.IndexName, KeySchema: gsi.KeySchema, Projection: gsi.Projection}
	err := d.updateIndexes(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(d.live.Table), AttributeDefinitions: defs,
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: create}}}, schema.OrdersByStatus.Name, true)
	if err != nil {
		return err
	}
	d.logf("deploy 1: UpdateTable Create %s (HASH status+shard, RANGE createdAt+orderId): ACTIVE in %s, backfilled by the engine",
		schema.OrdersByStatus.Name, time.Since(t0).Round(time.Millisecond))
	t0 = time.Now()
	d.live.Deploy(Stage(d.cfg.Deploy1, d.cfg.Shards))
	d.logf("deploy 1: API redeployed with ORDER_INDEXES=%s ORDER_SHARDS=%d (writers fenced on the migration's phase); old instances drained in %s",
		d.cfg.Deploy1, d.cfg.Shards, time.Since(t0).Round(time.Millisecond))
	return d.dwell(ctx, string(d.cfg.Deploy1)+", phase none")
}

// deploy2 is the last stack update: the API in stage v2 (no fence, v2
// shape only), and GSI1 deleted.
func (d *demo) deploy2(ctx context.Context) error {
	d.logf("partition throttles in stage both (the migration, its sweeps included): %s", d.throttles())
	t0 := time.Now()
	d.live.Deploy(Stage(schema.OrdersV2, d.cfg.Shards))
	d.logf("deploy 2: API redeployed with ORDER_INDEXES=v2 (no fence, v2 shape only); old instances drained in %s", time.Since(t0).Round(time.Millisecond))
	t0 = time.Now()
	err := d.updateIndexes(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(d.live.Table),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(schema.GSI1.Name)}}}},
		schema.GSI1.Name, false)
	if err != nil {
		return err
	}
	d.logf("deploy 2: UpdateTable Delete %s in %s", schema.GSI1.Name, time.Since(t0).Round(time.Millisecond))
	return d.dwell(ctx, "v2")
}

// updateIndexes sends an UpdateTable that creates (want true) or deletes
// index name, retrying transient failures; a retry whose first attempt did
// commit (its response lost) finds the index as wanted and stops.
func (d *demo) updateIndexes(ctx context.Context, in *dynamodb.UpdateTableInput, name string, want bool) error {
	db := d.live.DB
	p := retry.Policy{MaxAttempts: 20, Base: 20 * time.Millisecond, Cap: time.Second}
	return retry.Do(ctx, p, func(int) error {
		has, err := hasIndex(ctx, db, d.live.Table, name)
		if err != nil || has == want {
			return err
		}
		_, err = db.UpdateTable(ctx, in)
		var inUse *types.ResourceInUseException
		if errors.As(err, &inUse) {
			return err
		}
		if err != nil {
			return fmt.Errorf("migratedemo: UpdateTable %s: %w", name, err)
		}
		return nil
	})
}

// hasIndex reports whether the table has GSI name, ACTIVE.
func hasIndex(ctx context.Context, db *dynamodb.Client, table, name string) (bool, error) {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return false, err
	}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == name {
			return g.IndexStatus == types.IndexStatusActive, nil
		}
	}
	return false, nil
}
