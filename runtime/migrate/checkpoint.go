package migrate

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Checkpoints are items SEGMENT#<job>#<epoch>#<n>of<total> in the
// migration's partition, holding the last key handled and whether the
// segment is done. A new epoch (a rollback and a new advance) starts over.
func (mg *Migrator) checkpointKey(st State, j job, n int) Item {
	s := mg.opts.Schema
	return Item{s.PartitionKey: strAV(internalPrefix + mg.m.Name),
		s.SortKey: strAV(fmt.Sprintf("SEGMENT#%s#%d#%dof%d", j.name, st.Epoch, n, mg.opts.Segments))}
}

func (mg *Migrator) loadCheckpoint(ctx context.Context, st State, j job, n int) (last Item, done bool, err error) {
	if !j.checkpoint {
		return nil, false, nil
	}
	var out *dynamodb.GetItemOutput
	err = mg.call(ctx, func(ctx context.Context) (err error) {
		out, err = mg.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(mg.table), Key: mg.checkpointKey(st, j, n), ConsistentRead: aws.Bool(true)})
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("migrate: read checkpoint: %w", err)
	}
	if m, ok := out.Item["last"].(*types.AttributeValueMemberM); ok {
		last = m.Value
	}
	d, _ := out.Item["done"].(*types.AttributeValueMemberBOOL)
	return last, d != nil && d.Value, nil
}

func (mg *Migrator) saveCheckpoint(ctx context.Context, st State, j job, n int, last Item, done bool) error {
	if !j.checkpoint {
		return nil
	}
	item := mg.checkpointKey(st, j, n)
	item["done"] = &types.AttributeValueMemberBOOL{Value: done}
	if len(last) > 0 {
		item["last"] = &types.AttributeValueMemberM{Value: last}
	}
	err := mg.call(ctx, func(ctx context.Context) error {
		_, err := mg.client.PutItem(context.WithoutCancel(ctx), &dynamodb.PutItemInput{TableName: aws.String(mg.table), Item: item})
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: save checkpoint: %w", err)
	}
	return nil
}

// swept reports whether every segment of the job finished in st's epoch.
func (mg *Migrator) swept(ctx context.Context, st State, name string) (bool, error) {
	j := job{name: name, checkpoint: true}
	for n := 0; n < mg.opts.Segments; n++ {
		_, done, err := mg.loadCheckpoint(ctx, st, j, n)
		if err != nil || !done {
			return false, err
		}
	}
	return true, nil
}
