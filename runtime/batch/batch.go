package batch

import (
	"context"
	"errors"
	"fmt"

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
	err := rounds(ctx, keys, MaxGetKeys, opts, func(pending []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
		var out *dynamodb.BatchGetItemOutput
		err := retry.Do(ctx, opts.Backoff, func(int) error {
			var err error
			out, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				table: {Keys: pending, ConsistentRead: aws.Bool(opts.ConsistentRead)},
			}})
			return err
		})
		if err != nil {
			return nil, err
		}
		items = append(items, out.Responses[table]...)
		return out.UnprocessedKeys[table].Keys, nil
	})
	return items, err
}

// Write applies writes (puts and deletes) to table in chunks of 25.
func Write(ctx context.Context, db Writer, table string, writes []types.WriteRequest, opts Options) error {
	return rounds(ctx, writes, MaxWrites, opts, func(pending []types.WriteRequest) ([]types.WriteRequest, error) {
		var out *dynamodb.BatchWriteItemOutput
		err := retry.Do(ctx, opts.Backoff, func(int) error {
			var err error
			out, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: pending}})
			return err
		})
		if err != nil {
			return nil, err
		}
		return out.UnprocessedItems[table], nil
	})
}

// rounds is the loop of Get and Write: it sends all in chunks of size, and
// each chunk again with what send left unprocessed, waiting opts.Backoff
// between rounds, until nothing is left or the attempts (default 5) run
// out: then an [*IncompleteError] counts what was not sent.
func rounds[T any](ctx context.Context, all []T, size int, opts Options, send func(pending []T) ([]T, error)) error {
	p := opts.Backoff
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	for start := 0; start < len(all); start += size {
		end := min(start+size, len(all))
		pending := all[start:end]
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt == p.MaxAttempts {
				return &IncompleteError{Remaining: len(pending) + len(all) - end}
			}
			if attempt > 0 {
				if err := retry.Sleep(ctx, p.Backoff(attempt)); err != nil {
					return err
				}
			}
			var err error
			if pending, err = send(pending); err != nil {
				return err
			}
		}
	}
	return nil
}
