package platform

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/store"
)

// Sums are amounts by account, then by currency, in minor units.
type Sums map[string]map[string]int64

// Add adds amount in currency to account.
func (s Sums) Add(account, currency string, amount int64) {
	if s[account] == nil {
		s[account] = map[string]int64{}
	}
	s[account][currency] += amount
}

// ByCurrency is the sum over every account, by currency.
func (s Sums) ByCurrency() map[string]int64 {
	out := map[string]int64{}
	for _, byCur := range s {
		for cur, v := range byCur {
			out[cur] += v
		}
	}
	return out
}

// Accounts lists the accounts in s, sorted.
func (s Sums) Accounts() []string { return slices.Sorted(maps.Keys(s)) }

// ReadDB is the part of the DynamoDB client Read uses.
type ReadDB interface {
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
}

// Read sums the stored shards of every platform account (store.PlatformAccounts)
// with strongly consistent BatchGetItem calls of at most 100 keys (one call
// at the default 16 shards). Options are the Totaller's: Table, Schema and
// Shards matter.
func Read(ctx context.Context, db ReadDB, opts ...func(*Options)) (Sums, error) {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	o = o.withDefaults()
	b := store.NewBuilder(o.Table, o.Schema)
	var ks []map[string]types.AttributeValue
	for _, account := range store.PlatformAccounts {
		for shard := range o.Shards {
			ks = append(ks, b.Key(keys.PlatformTotal(account, shard)))
		}
	}
	sums := Sums{}
	for chunk := range slices.Chunk(ks, 100) {
		req := map[string]types.KeysAndAttributes{o.Table: {Keys: chunk, ConsistentRead: aws.Bool(true)}}
		for len(req) > 0 {
			out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, fmt.Errorf("platform: read the totals: %w", err)
			}
			for _, item := range out.Responses[o.Table] {
				account, byCur := TotalOf(item)
				for cur, v := range byCur {
					sums.Add(account, cur, v)
				}
			}
			req = out.UnprocessedKeys
		}
	}
	return sums, nil
}

// TotalOf reads a total item: its account and its amount per currency (an
// attribute per currency code).
func TotalOf(item map[string]types.AttributeValue) (string, map[string]int64) {
	account := ""
	if v, ok := item[accountAttribute].(*types.AttributeValueMemberS); ok {
		account = v.Value
	}
	out := map[string]int64{}
	for name, v := range item {
		n, ok := v.(*types.AttributeValueMemberN)
		if !ok {
			continue
		}
		if _, err := money.ParseCurrency(name); err != nil {
			continue
		}
		if x, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
			out[name] = x
		}
	}
	return account, out
}
