package retry

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// NewClient returns a DynamoDB client of cfg with the SDK's retryer off
// (aws.NopRetryer, set after optFns so that none turns it back on): each
// call is one send, and this package is the one layer that retries. Every
// DynamoDB client of oncetable's functions and commands is built here; with
// the SDK's standard retryer under [Do], a throttled call would be sent 3
// times per attempt.
func NewClient(cfg aws.Config, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, append(optFns, Off)...)
}

// Off turns the SDK's retryer off, for a client built elsewhere (the
// embedded engine's Client). RetryMaxAttempts goes to zero too: the SDK
// wraps the retryer in a new one of that many attempts after the options.
func Off(o *dynamodb.Options) { o.Retryer, o.RetryMaxAttempts = aws.NopRetryer{}, 0 }

// Client sends each call of API under Policy, for code that does not wrap
// its calls in [Do] itself: reads and a TransactWriteItems with a
// ClientRequestToken through [Do], a TransactWriteItems without one
// through [DoWrite]. API must come from [NewClient].
type Client struct {
	API    *dynamodb.Client
	Policy Policy
}

// GetItem is API.GetItem under [Do].
func (c Client) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return send(ctx, c.Policy, true, func() (*dynamodb.GetItemOutput, error) { return c.API.GetItem(ctx, in, optFns...) })
}

// Query is API.Query under [Do].
func (c Client) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return send(ctx, c.Policy, true, func() (*dynamodb.QueryOutput, error) { return c.API.Query(ctx, in, optFns...) })
}

// Scan is API.Scan under [Do].
func (c Client) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return send(ctx, c.Policy, true, func() (*dynamodb.ScanOutput, error) { return c.API.Scan(ctx, in, optFns...) })
}

// DescribeTable is API.DescribeTable under [Do].
func (c Client) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return send(ctx, c.Policy, true, func() (*dynamodb.DescribeTableOutput, error) { return c.API.DescribeTable(ctx, in, optFns...) })
}

// TransactWriteItems is API.TransactWriteItems under [Do] when in has a
// ClientRequestToken (DynamoDB applies a resend of it once), else under
// [DoWrite].
func (c Client) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return send(ctx, c.Policy, aws.ToString(in.ClientRequestToken) != "", func() (*dynamodb.TransactWriteItemsOutput, error) {
		return c.API.TransactWriteItems(ctx, in, optFns...)
	})
}

func send[O any](ctx context.Context, p Policy, resendUnknown bool, call func() (*O, error)) (*O, error) {
	var out *O
	err := do(ctx, p, func(int) (err error) {
		out, err = call()
		return err
	}, resendUnknown)
	return out, err
}
