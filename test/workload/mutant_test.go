package workload_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/test/workload"
)

// TestMutantsAreCaught breaks the system under test on purpose, between the
// runtime and the engine, and requires the checker to report the damage: a
// workload that passes a broken system proves nothing when it passes the
// real one.
func TestMutantsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*dynamodb.TransactWriteItemsInput)
		want   []string
	}{
		{"idempotency record dropped from every transaction", func(in *dynamodb.TransactWriteItemsInput) {
			kept := in.TransactItems[:0]
			for _, it := range in.TransactItems {
				if it.Put != nil {
					if et, ok := it.Put.Item["EntityType"].(*types.AttributeValueMemberS); ok && et.Value == idempotency.EntityType {
						continue
					}
				}
				kept = append(kept, it)
			}
			in.TransactItems = kept
		}, []string{workload.InvAckedOnce, workload.InvKeyOnce}},
		{"balance guard removed from debits", func(in *dynamodb.TransactWriteItemsInput) {
			for _, it := range in.TransactItems {
				if u := it.Update; u != nil && u.UpdateExpression != nil && u.ConditionExpression != nil && strings.Contains(*u.UpdateExpression, "-") {
					u.ConditionExpression = nil
					// the condition's placeholders are now unused, which DynamoDB refuses: keep only the update's
					u.ExpressionAttributeNames, u.ExpressionAttributeValues = usedOnly(*u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues)
				}
			}
		}, []string{workload.InvNegativeRead}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mutate := func(o *dynamodb.Options) {
				o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
					return st.Initialize.Add(middleware.InitializeMiddlewareFunc("mutant",
						func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
							if p, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok {
								tc.mutate(p)
							}
							return next.HandleInitialize(ctx, in)
						}), middleware.Before)
				})
			}
			res, err := workload.Run(context.Background(), workload.Config{Duration: 3 * time.Second, Clients: 4, Users: 4,
				Seed: 3, NoFaults: true, ClientOptions: []func(*dynamodb.Options){mutate}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, v := range res.Violations {
				got[v.Invariant]++
			}
			for _, w := range tc.want {
				if got[w] == 0 {
					t.Errorf("mutant %q: violations %v, want some of %q", tc.name, got, w)
				}
			}
		})
	}
}

// usedOnly keeps the placeholders an expression uses.
func usedOnly(expr string, names map[string]string, values map[string]types.AttributeValue) (map[string]string, map[string]types.AttributeValue) {
	n, v := map[string]string{}, map[string]types.AttributeValue{}
	for k, x := range names {
		if contains(expr, k) {
			n[k] = x
		}
	}
	for k, x := range values {
		if contains(expr, k) {
			v[k] = x
		}
	}
	return n, v
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub && (i+len(sub) == len(s) || !isWord(s[i+len(sub)])) {
			return true
		}
	}
	return false
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
