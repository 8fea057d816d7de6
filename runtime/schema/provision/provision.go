package provision

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
)

// CreateTableInput returns the CreateTable request for the oncetable table
// described by runtime/schema: string keys PK and SK, on-demand billing,
// and one global secondary index per schema.Indexes.
func CreateTableInput(tableName string) *dynamodb.CreateTableInput {
	return CreateTableInputFor(tableName, schema.Default())
}

// CreateTableInputFor is [CreateTableInput] for a table laid out by sch.
func CreateTableInputFor(tableName string, sch schema.Schema) *dynamodb.CreateTableInput {
	sch = sch.WithDefaults()
	defs := []types.AttributeDefinition{
		{AttributeName: aws.String(sch.PartitionKey), AttributeType: types.ScalarAttributeTypeS},
		{AttributeName: aws.String(sch.SortKey), AttributeType: types.ScalarAttributeTypeS},
	}
	seen := map[string]bool{sch.PartitionKey: true, sch.SortKey: true}
	var gsis []types.GlobalSecondaryIndex
	for _, ix := range sch.Indexes() {
		gsi, ixDefs := GlobalSecondaryIndex(ix)
		for _, d := range ixDefs {
			if !seen[*d.AttributeName] {
				seen[*d.AttributeName] = true
				defs = append(defs, d)
			}
		}
		gsis = append(gsis, gsi)
	}
	return &dynamodb.CreateTableInput{
		TableName:            aws.String(tableName),
		AttributeDefinitions: defs,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(sch.PartitionKey), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(sch.SortKey), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: gsis,
		BillingMode:            types.BillingModePayPerRequest,
	}
}

type keyElement struct {
	attr schema.KeyAttribute
	kind types.KeyType
}

// keyElements is ix's key schema in order: its HASH attributes, then its RANGE ones.
func keyElements(ix schema.Index) []keyElement {
	var out []keyElement
	for _, a := range ix.HashKeys() {
		out = append(out, keyElement{a, types.KeyTypeHash})
	}
	for _, a := range ix.RangeKeys() {
		out = append(out, keyElement{a, types.KeyTypeRange})
	}
	return out
}

func projection(ix schema.Index) *types.Projection {
	p := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)}
	if ix.Projection == schema.ProjectInclude {
		p.NonKeyAttributes = append([]string(nil), ix.NonKeyAttributes...)
	}
	return p
}

// GlobalSecondaryIndex is ix as a CreateTable or UpdateTable (Create)
// index, with the attribute definitions its key needs.
func GlobalSecondaryIndex(ix schema.Index) (types.GlobalSecondaryIndex, []types.AttributeDefinition) {
	var ks []types.KeySchemaElement
	var defs []types.AttributeDefinition
	for _, k := range keyElements(ix) {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(k.attr.Name), KeyType: k.kind})
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(k.attr.Name), AttributeType: types.ScalarAttributeType(k.attr.Type)})
	}
	return types.GlobalSecondaryIndex{IndexName: aws.String(ix.Name), KeySchema: ks, Projection: projection(ix)}, defs
}

// EnsureTable creates the oncetable table when it does not exist, waits
// until it is ACTIVE and enables TTL on schema.TTLAttribute when it is off.
// It works against real DynamoDB as well as against the engine.
func EnsureTable(ctx context.Context, client *dynamodb.Client, name string) error {
	return EnsureTableFor(ctx, client, name, schema.Default())
}

// EnsureTableFor is [EnsureTable] for a table laid out by sch.
func EnsureTableFor(ctx context.Context, client *dynamodb.Client, name string, sch schema.Schema) error {
	sch = sch.WithDefaults()
	_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		_, err = client.CreateTable(ctx, CreateTableInputFor(name, sch))
		var inUse *types.ResourceInUseException
		if err != nil && !errors.As(err, &inUse) {
			return fmt.Errorf("create table %s: %w", name, err)
		}
	case err != nil:
		return fmt.Errorf("describe table %s: %w", name, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 5 * time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 5*time.Minute); err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("describe TTL of %s: %w", name, err)
	}
	if d := ttl.TimeToLiveDescription; d != nil && (d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		return nil
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(sch.TTLAttribute),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("enable TTL on %s: %w", name, err)
	}
	return nil
}

// AddIndex adds the global secondary index ix to an existing table with one
// UpdateTable (DynamoDB creates one GSI per update) and waits until it is
// ACTIVE, that is, backfilled. An index of that name already there is
// left as it is. This is what the deploy of stage "both" of
// orders-by-status-v2 does to the table; CloudFormation does it in AWS.
func AddIndex(ctx context.Context, client *dynamodb.Client, table string, ix schema.Index) error {
	if status, err := indexStatus(ctx, client, table, ix.Name); err != nil || status != "" {
		return err
	}
	gsi, defs := GlobalSecondaryIndex(ix)
	_, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), AttributeDefinitions: defs,
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: gsi.IndexName, KeySchema: gsi.KeySchema, Projection: gsi.Projection}}}})
	if err != nil {
		return fmt.Errorf("add index %s to %s: %w", ix.Name, table, err)
	}
	for delay := 50 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		status, err := indexStatus(ctx, client, table, ix.Name)
		if err != nil || status == types.IndexStatusActive {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for index %s of %s: %w", ix.Name, table, ctx.Err())
		case <-time.After(delay):
		}
	}
}

// indexStatus is the status of table's index called name, "" when it has none.
func indexStatus(ctx context.Context, client *dynamodb.Client, table, name string) (types.IndexStatus, error) {
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return "", fmt.Errorf("describe table %s: %w", table, err)
	}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == name {
			return g.IndexStatus, nil
		}
	}
	return "", nil
}
