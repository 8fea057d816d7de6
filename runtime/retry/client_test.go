package retry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/retry"
)

// TestClientSendsUnderSustainedThrottling counts the sends of one call of
// retry.Client while the engine throttles every request: MaxAttempts (5),
// each one send, because NewClient's client does not retry under it.
func TestClientSendsUnderSustainedThrottling(t *testing.T) {
	e := ddblocal.New()
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Client().CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("things"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}); err != nil {
		t.Fatal(err)
	}
	var sends atomic.Int64
	h := e.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sends.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	e.SetFaults("things", ddblocal.Faults{ThrottleRate: 1})
	cfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
		Credentials: aws.AnonymousCredentials{}}
	p := retry.Policy{Base: time.Microsecond, Cap: time.Millisecond}
	get := &dynamodb.GetItemInput{TableName: aws.String("things"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}
	for _, tt := range []struct {
		name string
		api  *dynamodb.Client
		want int64
	}{
		{"NewClient", retry.NewClient(cfg), 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sends.Store(0)
			_, err := retry.Client{API: tt.api, Policy: p}.GetItem(ctx, get)
			if !errors.Is(err, retry.ErrUnavailable) {
				t.Errorf("GetItem: %v, want ErrUnavailable", err)
			}
			if got := sends.Load(); got != tt.want {
				t.Errorf("sends = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestNewClientRetryerIsOff: neither an option nor the configuration's
// RetryMaxAttempts turns the SDK's retries back on.
func TestNewClientRetryerIsOff(t *testing.T) {
	c := retry.NewClient(aws.Config{Region: "us-east-1", RetryMaxAttempts: 4}, func(o *dynamodb.Options) { o.Retryer = nil; o.RetryMaxAttempts = 3 })
	if _, ok := c.Options().Retryer.(aws.NopRetryer); !ok {
		t.Errorf("Retryer = %T, want aws.NopRetryer", c.Options().Retryer)
	}
}
