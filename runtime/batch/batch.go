package batch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/retry"
)

// Chunk sizes DynamoDB allows.
const (
	MaxGetKeys = 100
	MaxWrites  = 25
)

// Getter is the BatchGetItem call.
type Getter interface {
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
}

// Writer is the BatchWriteItem call.
type Writer interface {
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// ErrIncomplete is wrapped by [*IncompleteError].
var ErrIncomplete = errors.New("batch: unprocessed items remain")

// IncompleteError says how many keys or writes were still unprocessed when
// the attempts ran out.
type IncompleteError struct{ Remaining int }

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("%v: %d after retries", ErrIncomplete, e.Remaining)
}

func (e *IncompleteError) Unwrap() error { return ErrIncomplete }

// Options tune the retries; the zero value is usable.
type Options struct {
	// Backoff bounds the waits between rounds (retry.Policy defaults:
	// 5 attempts, 10ms doubling to a 200ms cap, full jitter).
	Backoff retry.Policy
	// ConsistentRead asks BatchGetItem for strongly consistent reads.
	ConsistentRead bool
}

// Get reads keys from table and returns the items found, in no particular
// order. Keys that do not exist are simply absent from the result.
func Get(ctx context.Context, db Getter, table string, keys []map[string]types.AttributeValue, opts Options) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for start := 0; start < len(keys); start += MaxGetKeys {
		pending := keys[start:min(start+MaxGetKeys, len(keys))]
		p := opts.Backoff
		if p.MaxAttempts <= 0 {
			p.MaxAttempts = 5
		}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt == p.MaxAttempts {
				return items, &IncompleteError{Remaining: len(pending) + len(keys) - min(start+MaxGetKeys, len(keys))}
			}
			if attempt > 0 {
				if err := sleep(ctx, p.Backoff(attempt)); err != nil {
					return items, err
				}
			}
			var out *dynamodb.BatchGetItemOutput
			err := retry.Do(ctx, opts.Backoff, func(int) error {
				var err error
				out, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
					table: {Keys: pending, ConsistentRead: aws.Bool(opts.ConsistentRead)},
				}})
				return err
			})
			if err != nil {
				return items, err
			}
			items = append(items, out.Responses[table]...)
			pending = out.UnprocessedKeys[table].Keys
		}
	}
	return items, nil
}

// Write applies writes (puts and deletes) to table in chunks of 25.
func Write(ctx context.Context, db Writer, table string, writes []types.WriteRequest, opts Options) error {
	for start := 0; start < len(writes); start += MaxWrites {
		pending := writes[start:min(start+MaxWrites, len(writes))]
		p := opts.Backoff
		if p.MaxAttempts <= 0 {
			p.MaxAttempts = 5
		}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt == p.MaxAttempts {
				return &IncompleteError{Remaining: len(pending) + len(writes) - min(start+MaxWrites, len(writes))}
			}
			if attempt > 0 {
				if err := sleep(ctx, p.Backoff(attempt)); err != nil {
					return err
				}
			}
			var out *dynamodb.BatchWriteItemOutput
			err := retry.Do(ctx, opts.Backoff, func(int) error {
				var err error
				out, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: pending}})
				return err
			})
			if err != nil {
				return err
			}
			pending = out.UnprocessedItems[table]
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
