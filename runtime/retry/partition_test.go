package retry_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/retry"
)

// A hot partition's throttle, as the embedded engine returns it over the
// wire (ProvisionedThroughputExceededException with ThrottlingReasons), is
// classified Throttled and retried until the partition has capacity again.
func TestDoRetriesPartitionThrottle(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).UnixNano())
	e := ddblocal.New(func(o *ddblocal.Options) {
		o.Clock = func() time.Time { return time.Unix(0, now.Load()) }
		o.PartitionThroughput = ddblocal.PartitionThroughput{Enabled: true, WriteUnits: 1}
	})
	defer e.Close()
	c := e.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("orders"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	putHot := func(int) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "hot"}}})
		return err
	}
	if err := putHot(0); err != nil {
		t.Fatal(err)
	}
	first := putHot(0)
	var pe *types.ProvisionedThroughputExceededException
	if !errors.As(first, &pe) || len(pe.ThrottlingReasons) != 1 {
		t.Fatalf("second put: %v, want ProvisionedThroughputExceededException with a ThrottlingReason", first)
	}
	if kind, transient := retry.Classify(first); kind != retry.Throttled || !transient {
		t.Errorf("Classify = %q, %v; want throttled, transient", kind, transient)
	}
	var retried []retry.Kind
	p := retry.Policy{MaxAttempts: 3, Base: time.Microsecond, Cap: time.Millisecond,
		OnRetry: func(k retry.Kind, _ int) {
			retried = append(retried, k)
			now.Add(int64(time.Second)) // the partition earns its unit back
		}}
	if err := retry.Do(ctx, p, putHot); err != nil || len(retried) != 1 || retried[0] != retry.Throttled {
		t.Errorf("Do: err=%v retried=%v, want success after one throttled retry", err, retried)
	}
}
